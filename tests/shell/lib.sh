# shellcheck shell=bash
# Common prelude of the shell suites: each tests/shell/test_*.sh is one CTest entry
# (label `shell`), run as `bash script` with CONDACUDA, CONDACUDA_SOURCE_DIR and
# CONDACUDA_BUILD_DIR set. The shared prelude (tests/tools/prelude.sh) gives strict
# mode, the failure trap, skip (exit 125), fail, note and the scratch folder $scratch
# (kept on failure).
# shellcheck source=../tools/prelude.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tools/prelude.sh"
export LC_ALL=C

require_command() {
  command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed"
}

# The test-only renderer (tests/tools/render_hooks.cpp): CTest passes its path.
render_hooks_tool() {
  local tool=${CONDACUDA_RENDER_HOOKS:-${CONDACUDA_BUILD_DIR:-build}/tests/condacuda_render_hooks}
  [[ -x $tool ]] || { echo "FAIL: render tool not built: $tool" >&2; return 1; }
  printf '%s\n' "$tool"
}

# ---------------------------------------------------------------------------------
# Hook harness: emulate conda's activation in a real shell and check LD_LIBRARY_PATH
# byte for byte. A scenario is written as calls below; each becomes a driver script in
# the shell under test (run as a fresh process, PATH pointing at an empty folder so an
# external command in a hook fails) plus the transcript it must print. Strings reach
# the driver as environment variables (T_1, T_2, ...), never through its source text,
# so the harness needs no quoting of its own.
#
# conda semantics emulated (conda/activate.py, _Activator and its activate/deactivate/reactivate):
#   activate P        old env's deactivate.d (CONDA_PREFIX still old), then
#                     CONDA_PREFIX=P and P's activate.d, sorted
#   activate P stack  as above without the old env's deactivate.d
#   deactivate        top's deactivate.d in reverse sorted order (sorted with `pixi`),
#                     then CONDA_PREFIX=previous and its activate.d again
#   reactivate        top's deactivate.d then activate.d (after every install)
# ---------------------------------------------------------------------------------
declare -A HK_BLOCK=()   # env prefix -> its planned entries joined by ':'
HK_FAILURES=0

hk_setup() {
  HK_SHELL=$1
  case $HK_SHELL in
    bash | zsh | dash | ksh) HK_EXT="sh" ;;
    fish) HK_EXT="fish" ;;
    tcsh) HK_EXT=csh ;;
    *) echo "FAIL: unknown shell $HK_SHELL" >&2; return 1 ;;
  esac
  require_command "$HK_SHELL"
  HK_LOCALE=C
  if grep -qix -e C.UTF-8 -e C.utf8 <<< "$(locale -a 2>/dev/null)"; then HK_LOCALE=C.UTF-8; fi
  HK_TOOL=$(render_hooks_tool)
  HK_EMPTY_DIR=$scratch/empty-path
  HK_PRINTER=$scratch/printer
  mkdir -p "$HK_EMPTY_DIR"
  _hk_write_printer "$HK_PRINTER"
}

# An external helper the drivers run by absolute path: prints LD_LIBRARY_PATH as the
# environment holds it (what the loader sees), or what state is left over.
_hk_write_printer() {
  cat >"$1" <<'EOF'
#!/bin/sh
PATH=/usr/bin:/bin
mode=$1 label=$2
case $mode in
  show)
    if [ -n "${LD_LIBRARY_PATH+x}" ]; then
      printf '%s [%s]\n' "$label" "$LD_LIBRARY_PATH"
    else
      printf '%s <unset>\n' "$label"
    fi ;;
  state)
    left=$(env | grep '^CONDACUDA_HOOK_' | sort | tr '\n' ' ')
    printf '%s state: %s\n' "$label" "${left:-none}" ;;
  leaks) # the shell's variable listing on stdin; the hooks' temporaries start with _condacuda
    left=$(grep -a '^_condacuda' | tr '\n' ' ')
    printf '%s leaks: %s\n' "$label" "${left:-none}" ;;
  fishleaks) # `set -gn` on stdin, compared with the list taken when the driver started
    sort "$3" >"$3.sorted"
    left=$(sort | comm -13 "$3.sorted" - | grep -v -x -e LD_LIBRARY_PATH -e CONDA_PREFIX -e 'CONDACUDA_HOOK_.*' | tr '\n' ' ')
    printf '%s leaks: %s\n' "$label" "${left:-none}" ;;
esac
EOF
  chmod +x "$1"
}

# hk_make_env PREFIX FOLDER...: renders the hooks into PREFIX.
hk_make_env() {
  local prefix=$1
  shift
  "$HK_TOOL" "$prefix" "$@"
  hk_register_env "$prefix" "$@"
}

# hk_register_env PREFIX FOLDER...: records the entries PREFIX's hooks add (for a clone).
hk_register_env() {
  local prefix=$1 block="" folder
  shift
  for folder in "$@"; do
    block+=${block:+:}$prefix/$folder
  done
  HK_BLOCK[$prefix]=$block
}

# The entries env PREFIX puts first.
hk_block() { printf '%s' "${HK_BLOCK[$1]}"; }

# hk_scenario NAME MODE: starts a driver; MODE strict = `set -eu` (sh) or `-e` (tcsh).
hk_scenario() {
  HK_NAME=$1
  HK_MODE=$2
  HK_DIR=$scratch/scenarios/$(printf '%s' "$HK_NAME.$HK_MODE" | tr -c 'A-Za-z0-9._-' '_')
  mkdir -p "$HK_DIR"
  HK_DRIVER=$HK_DIR/driver.$HK_EXT
  HK_EXPECTED=$HK_DIR/expected
  HK_STDERR_EXPECTED=""
  HK_VALS=()
  HK_STACK=()
  HK_STEP=0
  : >"$HK_EXPECTED"
  case $HK_EXT in
    sh)
      _hk_emit 'PATH=$CC_EMPTY'
      [[ $HK_MODE == strict ]] && _hk_emit 'set -eu'
      ;;
    fish)
      _hk_emit 'set -gn >$CC_BASELINE'
      _hk_emit 'set -gx PATH "$CC_EMPTY"'
      ;;
    csh) _hk_emit 'set path = ( $CC_EMPTY:q )' ;;
  esac
  return 0
}

_hk_emit() { printf '%s\n' "$1" >>"$HK_DRIVER"; }

# Stores a value for the driver; HK_REF = the variable that holds it there.
_hk_ref() {
  HK_VALS+=("$1")
  HK_REF=T_${#HK_VALS[@]}
}

hk_ld_unset() {
  case $HK_EXT in
    sh) _hk_emit 'unset LD_LIBRARY_PATH' ;;
    fish) _hk_emit 'set -e LD_LIBRARY_PATH' ;;
    csh) _hk_emit 'unsetenv LD_LIBRARY_PATH' ;;
  esac
}

hk_ld_set() {
  _hk_ref "$1"
  case $HK_EXT in
    sh) _hk_emit "LD_LIBRARY_PATH=\$$HK_REF; export LD_LIBRARY_PATH" ;;
    fish) _hk_emit "set -gx LD_LIBRARY_PATH \"\$$HK_REF\"" ;;
    csh) _hk_emit "setenv LD_LIBRARY_PATH \$$HK_REF:q" ;;
  esac
}

# What `module load` does: prepend one folder, without an empty entry.
hk_ld_prepend() {
  _hk_ref "$1"
  case $HK_EXT in
    sh) _hk_emit "LD_LIBRARY_PATH=\$$HK_REF\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}; export LD_LIBRARY_PATH" ;;
    fish)
      _hk_emit "if test -n \"\$LD_LIBRARY_PATH\"; set -gx LD_LIBRARY_PATH \"\$$HK_REF\" \$LD_LIBRARY_PATH"
      _hk_emit "else; set -gx LD_LIBRARY_PATH \"\$$HK_REF\"; end"
      ;;
    csh)
      _hk_emit "set _t_value = ''"
      _hk_emit 'if ( $?LD_LIBRARY_PATH ) then'
      _hk_emit '  set _t_value = $LD_LIBRARY_PATH:q'
      _hk_emit 'endif'
      _hk_emit "if ( \$_t_value:q == '' ) then"
      _hk_emit "  setenv LD_LIBRARY_PATH \$$HK_REF:q"
      _hk_emit 'else'
      _hk_emit "  setenv LD_LIBRARY_PATH \${$HK_REF:q}:\${_t_value:q}"
      _hk_emit 'endif'
      _hk_emit 'unset _t_value'
      ;;
  esac
}

_hk_set_prefix() {
  _hk_ref "$1"
  case $HK_EXT in
    sh) _hk_emit "CONDA_PREFIX=\$$HK_REF; export CONDA_PREFIX" ;;
    fish) _hk_emit "set -gx CONDA_PREFIX \"\$$HK_REF\"" ;;
    csh) _hk_emit "setenv CONDA_PREFIX \$$HK_REF:q" ;;
  esac
}

_hk_unset_prefix() {
  case $HK_EXT in
    sh) _hk_emit 'unset CONDA_PREFIX' ;;
    fish) _hk_emit 'set -e CONDA_PREFIX' ;;
    csh) _hk_emit 'unsetenv CONDA_PREFIX' ;;
  esac
}

_hk_source() {
  _hk_ref "$1"
  case $HK_EXT in
    sh) _hk_emit ". \"\$$HK_REF\"" ;;
    fish) _hk_emit "source \"\$$HK_REF\"" ;;
    csh) _hk_emit "source \$$HK_REF:q" ;;
  esac
}

# _hk_run_scripts activate|deactivate PREFIX [pixi]: sources the env's scripts for this
# shell in conda's order (deactivate.d reversed, except with pixi).
_hk_run_scripts() {
  local phase=$1 prefix=$2 order=${3:-conda} file
  local -a files=()
  shopt -s nullglob
  files=("$prefix/etc/conda/$phase.d/"*".$HK_EXT")
  shopt -u nullglob
  if [[ $phase == deactivate && $order == conda ]]; then
    local -a reversed=()
    local i
    for ((i = ${#files[@]} - 1; i >= 0; i--)); do reversed+=("${files[i]}"); done
    files=("${reversed[@]}")
  fi
  for file in "${files[@]}"; do _hk_source "$file"; done
}

# hk_activate PREFIX [stack]
hk_activate() {
  if [[ ${#HK_STACK[@]} -gt 0 && ${2:-} != stack ]]; then
    _hk_run_scripts deactivate "${HK_STACK[-1]}"
  fi
  _hk_set_prefix "$1"
  _hk_run_scripts activate "$1"
  HK_STACK+=("$1")
}

# hk_deactivate [pixi]
hk_deactivate() {
  _hk_run_scripts deactivate "${HK_STACK[-1]}" "${1:-conda}"
  _hk_pop_env
}

# Drops the top env; conda re-runs the activate.d scripts of the one underneath.
_hk_pop_env() {
  unset 'HK_STACK[-1]'
  if [[ ${#HK_STACK[@]} -gt 0 ]]; then
    _hk_set_prefix "${HK_STACK[-1]}"
    _hk_run_scripts activate "${HK_STACK[-1]}"
  else
    _hk_unset_prefix
  fi
}

hk_reactivate() {
  _hk_run_scripts deactivate "${HK_STACK[-1]}"
  _hk_run_scripts activate "${HK_STACK[-1]}"
}

# Sources the top env's activate.d once more, as a user or a tool might.
hk_source_activate_again() { _hk_run_scripts activate "${HK_STACK[-1]}"; }

# hk_deactivate_rerendered OTHER: deactivates the top env with the deactivate.d scripts
# found under OTHER, CONDA_PREFIX unchanged: what happens when `condacuda repair` ran
# again while the env was active and planned other folders.
hk_deactivate_rerendered() {
  _hk_run_scripts deactivate "$1"
  _hk_pop_env
}

_hk_printer() {
  HK_STEP=$((HK_STEP + 1))
  case $HK_EXT in
    sh | fish) _hk_emit "\"\$CC_PRINTER\" $1 $HK_STEP" ;;
    csh) _hk_emit "\$CC_PRINTER:q $1 $HK_STEP" ;;
  esac
}

# hk_expect VALUE: LD_LIBRARY_PATH is exactly VALUE here.
hk_expect() {
  _hk_printer show
  printf '%s [%s]\n' "$HK_STEP" "$1" >>"$HK_EXPECTED"
}

hk_expect_unset() {
  _hk_printer show
  printf '%s <unset>\n' "$HK_STEP" >>"$HK_EXPECTED"
}

# No CONDACUDA_HOOK_* variable left in the environment, no hook temporary in the shell.
hk_expect_clean() {
  _hk_printer state
  printf '%s state: none\n' "$HK_STEP" >>"$HK_EXPECTED"
  HK_STEP=$((HK_STEP + 1))
  case $HK_EXT in
    sh) _hk_emit "set | \"\$CC_PRINTER\" leaks $HK_STEP" ;;
    fish) _hk_emit "set -gn | \"\$CC_PRINTER\" fishleaks $HK_STEP \"\$CC_BASELINE\"" ;;
    csh) _hk_emit "set | \$CC_PRINTER:q leaks $HK_STEP" ;;
  esac
  printf '%s leaks: none\n' "$HK_STEP" >>"$HK_EXPECTED"
}

# The hooks must write nothing to stderr, except where a scenario expects a warning.
hk_expect_stderr() { HK_STDERR_EXPECTED=$1; }

# HK_COMMAND: the driver's environment and command line, as `env` arguments.
_hk_command() {
  # A UTF-8 locale, as users have: A2's prefix is not ASCII (fish cannot even source a
  # file by such a name in the C locale, and bash then counts characters, not bytes).
  HK_COMMAND=(-u CONDA_PREFIX -u LD_LIBRARY_PATH LC_ALL="$HK_LOCALE"
    CC_EMPTY="$HK_EMPTY_DIR" CC_PRINTER="$HK_PRINTER" CC_BASELINE="$HK_DIR/baseline")
  local i
  for i in "${!HK_VALS[@]}"; do HK_COMMAND+=("T_$((i + 1))=${HK_VALS[i]}"); done
  case $HK_SHELL in
    bash) HK_COMMAND+=(bash --norc --noprofile) ;;
    zsh) HK_COMMAND+=(zsh -f) ;;
    fish) HK_COMMAND+=(fish --no-config) ;;
    tcsh) HK_COMMAND+=(tcsh -f)
      [[ $HK_MODE == strict ]] && HK_COMMAND+=(-e) ;;
    *) HK_COMMAND+=("$HK_SHELL") ;;
  esac
  HK_COMMAND+=("$HK_DRIVER")
}

# Runs the driver; a mismatch is reported and counted, the next scenario still runs.
hk_run() {
  _hk_command
  local status=0
  env "${HK_COMMAND[@]}" >"$HK_DIR/actual" 2>"$HK_DIR/stderr" || status=$?
  local ok=1
  if [[ $status -ne 0 ]]; then
    echo "--- $HK_SHELL: $HK_NAME ($HK_MODE): exit status $status" >&2
    ok=0
  fi
  if ! cmp -s "$HK_EXPECTED" "$HK_DIR/actual"; then
    echo "--- $HK_SHELL: $HK_NAME ($HK_MODE): LD_LIBRARY_PATH differs (- expected, + actual)" >&2
    diff -u "$HK_EXPECTED" "$HK_DIR/actual" >&2 || true
    ok=0
  fi
  if [[ -n $HK_STDERR_EXPECTED ]]; then
    if ! grep -qF -- "$HK_STDERR_EXPECTED" "$HK_DIR/stderr"; then
      echo "--- $HK_SHELL: $HK_NAME ($HK_MODE): expected on stderr: $HK_STDERR_EXPECTED" >&2
      ok=0
    fi
  elif [[ -s $HK_DIR/stderr ]]; then
    echo "--- $HK_SHELL: $HK_NAME ($HK_MODE): unexpected stderr:" >&2
    cat "$HK_DIR/stderr" >&2
    ok=0
  fi
  if [[ $ok -eq 1 ]]; then
    echo "ok   $HK_SHELL: $HK_NAME ($HK_MODE)"
  else
    echo "     driver: $HK_DRIVER" >&2
    echo "FAIL $HK_SHELL: $HK_NAME ($HK_MODE)"
    HK_FAILURES=$((HK_FAILURES + 1))
  fi
  return 0
}

# ---------------------------------------------------------------------------------
# The scenarios every shell runs (tests/shell/test_hooks_<shell>.sh).
# ---------------------------------------------------------------------------------

# Another package's hooks next to condacuda's, sorted after them: they prepend
# /opt/other and take it off the front again, as many activation scripts do.
_hk_write_other_hooks() {
  local prefix=$1
  cat >"$prefix/etc/conda/activate.d/zz-other.sh" <<'EOF_'
LD_LIBRARY_PATH=/opt/other${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; export LD_LIBRARY_PATH
EOF_
  cat >"$prefix/etc/conda/deactivate.d/zz-other.sh" <<'EOF_'
case ${LD_LIBRARY_PATH-} in /opt/other:*) LD_LIBRARY_PATH=${LD_LIBRARY_PATH#/opt/other:}; export LD_LIBRARY_PATH ;; esac
EOF_
  cat >"$prefix/etc/conda/activate.d/zz-other.fish" <<'EOF_'
set -gx LD_LIBRARY_PATH /opt/other $LD_LIBRARY_PATH
EOF_
  cat >"$prefix/etc/conda/deactivate.d/zz-other.fish" <<'EOF_'
if test "$LD_LIBRARY_PATH[1]" = /opt/other; set -e LD_LIBRARY_PATH[1]; end
EOF_
  cat >"$prefix/etc/conda/activate.d/zz-other.csh" <<'EOF_'
setenv LD_LIBRARY_PATH /opt/other:${LD_LIBRARY_PATH:q}
EOF_
  cat >"$prefix/etc/conda/deactivate.d/zz-other.csh" <<'EOF_'
if ( $LD_LIBRARY_PATH:q =~ /opt/other:* ) then
    setenv LD_LIBRARY_PATH "${LD_LIBRARY_PATH:s|/opt/other:||:q}"
endif
EOF_
}

# The envs: A has a prefix with spaces, $, ' and " (and A2 is a copy of it, as
# `conda create --clone` makes, with a non-ASCII name); W has folders with awkward
# names (E one that changed after the repair, named with ESC and CR); P has another package's hooks too; C has a ':' in its prefix (C2 a ';'), which no
# LD_LIBRARY_PATH can hold, and S an ASCII RS, which separates the hooks' records;
# R2 holds the hooks `condacuda repair` would write for R's prefix with other folders.
hk_make_envs() {
  local root=$scratch/envs
  local sp=lib/python3.11/site-packages/nvidia
  HK_A="$root/env A \$x 'q' \"d\""
  HK_A2="$root/env A2 \$x 'q' \"d\" é"
  HK_B=$root/envB
  HK_W=$root/weird
  HK_P=$root/pixi
  HK_C=$root/bad:prefix
  HK_C2=$root/bad\;prefix
  HK_S=$root/bad$'\x1e'sep
  HK_E=$root/escaped
  HK_R=$root/rerendered
  HK_R2=$root/rerendered-later
  mkdir -p "$root"
  hk_make_env "$HK_A" "$sp/cusparse/lib" "$sp/nvjitlink/lib"
  cp -a "$HK_A" "$HK_A2"
  hk_register_env "$HK_A2" "$sp/cusparse/lib" "$sp/nvjitlink/lib"
  hk_make_env "$HK_B" lib
  hk_make_env "$HK_W" "lib/it's" 'lib/$HOME dir' 'lib/back\slash' $'lib/new\nline' \
    'lib/!bang' 'lib/"dq"' 'lib/`tick`' 'lib/*' 'lib/a&b|c'
  hk_make_env "$HK_P" lib
  _hk_write_other_hooks "$HK_P"
  hk_make_env "$HK_C" lib
  hk_make_env "$HK_C2" lib
  hk_make_env "$HK_S" lib
  # A watched folder named with ESC and CR, changed after the repair: the hooks'
  # staleness line shows it escaped as the CLI does (issue 26).
  HK_E_FOLDER=$'lib/py\x1b[31mthon\r/site-packages/nvidia/cu13/lib'
  hk_make_env "$HK_E" "$HK_E_FOLDER"
  mkdir -p "$HK_E/$HK_E_FOLDER"
  touch -d "@$(($(date +%s) - 20))" "$HK_E/etc/condacuda"
  hk_make_env "$HK_R" "$sp/cusparse/lib" "$sp/nvjitlink/lib"
  "$HK_TOOL" "$HK_R2" "$sp/cu13/lib"
}

# Starting states of LD_LIBRARY_PATH, by name.
_hk_start() {
  case $1 in
    unset) hk_ld_unset ;;
    empty) hk_ld_set '' ;;
    one) hk_ld_set /usr/lib ;;
    spaced) hk_ld_set '/opt/with space/lib:/usr/lib' ;;
    cwd) hk_ld_set ':/usr/lib' ;; # the user's own empty entry: kept, never multiplied
  esac
}

_hk_value_of() {
  case $1 in
    unset | empty) REPLY='' ;;
    one) REPLY=/usr/lib ;;
    spaced) REPLY='/opt/with space/lib:/usr/lib' ;;
    cwd) REPLY=':/usr/lib' ;;
  esac
}

_hk_expect_start() {
  if [[ $1 == unset ]]; then
    hk_expect_unset
  else
    _hk_value_of "$1"
    hk_expect "$REPLY"
  fi
}

# ENTRIES followed by the starting value, joined without an empty entry.
_hk_join() {
  _hk_value_of "$2"
  REPLY=$1${REPLY:+:$REPLY}
}

hk_run_scenarios() {
  hk_setup "$1"
  hk_make_envs
  local a a2 b p w start mode module=/opt/module
  a=$(hk_block "$HK_A")
  a2=$(hk_block "$HK_A2")
  b=$(hk_block "$HK_B")
  p=$(hk_block "$HK_P")
  w=$(hk_block "$HK_W")
  local -a modes=(plain strict)
  [[ $HK_EXT == fish ]] && modes=(plain) # fish has no errexit or nounset
  for mode in "${modes[@]}"; do
    for start in unset empty one spaced cwd; do
      hk_scenario "activate, source again, deactivate; start $start" "$mode"
      _hk_start "$start"
      hk_activate "$HK_A"
      _hk_join "$a" "$start" && hk_expect "$REPLY"
      hk_source_activate_again
      hk_expect "$REPLY"
      hk_deactivate
      _hk_expect_start "$start"
      hk_expect_clean
      hk_run
    done

    for start in unset one; do
      hk_scenario "reactivation (conda install: deactivate.d then activate.d); start $start" "$mode"
      _hk_start "$start"
      hk_activate "$HK_A"
      hk_reactivate
      _hk_join "$a" "$start" && hk_expect "$REPLY"
      hk_reactivate
      hk_expect "$REPLY"
      hk_deactivate
      _hk_expect_start "$start"
      hk_expect_clean
      hk_run
    done

    for start in unset empty one; do
      hk_scenario "a dir prepended after activation survives deactivation; start $start" "$mode"
      _hk_start "$start"
      hk_activate "$HK_A"
      hk_ld_prepend "$module"
      _hk_join "$a" "$start" && hk_expect "$module:$REPLY"
      hk_deactivate
      _hk_value_of "$start" && hk_expect "$module${REPLY:+:$REPLY}"
      hk_expect_clean
      hk_run
    done

    for start in unset one; do
      hk_scenario "stack A then B, deactivate B (A's activate.d again), deactivate A; start $start" "$mode"
      _hk_start "$start"
      hk_activate "$HK_A"
      hk_activate "$HK_B" stack
      _hk_join "$a" "$start" && hk_expect "$b:$REPLY"
      hk_deactivate
      _hk_join "$a" "$start" && hk_expect "$REPLY"
      hk_deactivate
      _hk_expect_start "$start"
      hk_expect_clean
      hk_run
    done

    hk_scenario "two clones of one env stacked keep separate state" "$mode"
    _hk_start one
    hk_activate "$HK_A"
    hk_activate "$HK_A2" stack
    hk_expect "$a2:$a:/usr/lib"
    hk_reactivate
    hk_expect "$a2:$a:/usr/lib"
    hk_deactivate
    hk_expect "$a:/usr/lib"
    hk_deactivate
    hk_expect /usr/lib
    hk_expect_clean
    hk_run

    hk_scenario "switch A to B without --stack, then back" "$mode"
    _hk_start unset
    hk_activate "$HK_A"
    hk_activate "$HK_B"
    hk_expect "$b"
    hk_deactivate
    hk_expect "$a"
    hk_deactivate
    hk_expect_unset
    hk_expect_clean
    hk_run

    hk_scenario "three stacked, reactivation and a module load in the middle" "$mode"
    _hk_start one
    hk_activate "$HK_A"
    hk_activate "$HK_B" stack
    hk_activate "$HK_A2" stack
    hk_reactivate
    hk_expect "$a2:$b:$a:/usr/lib"
    hk_ld_prepend "$module"
    hk_deactivate
    hk_expect "$b:$module:$a:/usr/lib"
    hk_deactivate
    hk_expect "$a:$module:/usr/lib"
    hk_deactivate
    hk_expect "$module:/usr/lib"
    hk_expect_clean
    hk_run

    hk_scenario "nested activate/deactivate sequences end where they started" "$mode"
    _hk_start spaced
    hk_activate "$HK_A"
    hk_activate "$HK_B" stack
    hk_deactivate
    hk_activate "$HK_B" stack
    hk_reactivate
    hk_activate "$HK_A2"
    hk_expect "$a2:$a:/opt/with space/lib:/usr/lib"
    hk_deactivate
    hk_expect "$b:$a:/opt/with space/lib:/usr/lib"
    hk_deactivate
    hk_expect "$a:/opt/with space/lib:/usr/lib"
    hk_activate "$HK_B"
    hk_activate "$HK_A" stack
    hk_deactivate
    hk_deactivate
    hk_deactivate
    _hk_expect_start spaced
    hk_expect_clean
    hk_run

    local order
    for order in conda pixi; do
      hk_scenario "another package's hooks, deactivation in $order order" "$mode"
      _hk_start one
      hk_activate "$HK_P"
      hk_expect "/opt/other:$p:/usr/lib"
      hk_deactivate $order
      hk_expect /usr/lib
      hk_expect_clean
      hk_run
    done

    hk_scenario "folders with quotes, \$, backslash, newline, ! and glob characters" "$mode"
    _hk_start one
    hk_activate "$HK_W"
    hk_expect "$w:/usr/lib"
    hk_source_activate_again
    hk_expect "$w:/usr/lib"
    hk_deactivate
    hk_expect /usr/lib
    hk_expect_clean
    hk_run

    hk_scenario "a stale folder named with ESC and CR: the staleness line escapes them" "$mode"
    _hk_start one
    hk_activate "$HK_E"
    hk_expect "$HK_E/$HK_E_FOLDER:/usr/lib"
    hk_deactivate
    hk_expect /usr/lib
    hk_expect_clean
    # As the CLI escapes what an env wrote: a raw ESC or CR would not match.
    hk_expect_stderr 'condacuda: lib/py\x1b[31mthon\x0d/site-packages/nvidia/cu13/lib changed after the repair'
    hk_run

    hk_scenario "a prefix with ':' is left alone, with a warning" "$mode"
    _hk_start one
    hk_activate "$HK_C"
    hk_expect /usr/lib
    hk_deactivate
    hk_expect /usr/lib
    hk_expect_clean
    hk_expect_stderr 'the env path contains ":"'
    hk_run

    # glibc splits LD_LIBRARY_PATH on ';' too: '.../bad;prefix/lib' would be
    # '.../bad' and 'prefix/lib', relative to the cwd (issue 26).
    hk_scenario "a prefix with a semicolon is left alone, with a warning" "$mode"
    _hk_start one
    hk_activate "$HK_C2"
    hk_expect /usr/lib
    hk_deactivate
    hk_expect /usr/lib
    hk_expect_clean
    hk_expect_stderr 'or ";" (the loader splits LD_LIBRARY_PATH on both)'
    hk_run

    for start in unset one; do
      hk_scenario "a prefix with an ASCII RS is left alone, with a warning; start $start" "$mode"
      _hk_start "$start"
      hk_activate "$HK_A"
      hk_activate "$HK_S" stack
      _hk_join "$a" "$start" && hk_expect "$REPLY"
      hk_deactivate
      hk_expect "$REPLY"
      hk_deactivate
      _hk_expect_start "$start"
      hk_expect_clean
      hk_expect_stderr 'control character'
      hk_run
    done

    for start in unset empty one; do
      hk_scenario "repair changed the folders while active: deactivation takes out the old ones; start $start" "$mode"
      _hk_start "$start"
      hk_activate "$HK_R"
      hk_deactivate_rerendered "$HK_R2"
      _hk_expect_start "$start"
      hk_expect_clean
      hk_run
    done

    hk_scenario "entries taken out by something else: LD_LIBRARY_PATH stays, the state goes" "$mode"
    _hk_start unset
    hk_activate "$HK_A"
    hk_ld_set /replaced
    hk_deactivate
    hk_expect /replaced
    hk_expect_clean
    hk_run

    # The other package's deactivate.d only takes /opt/other off the front, so after the
    # module load it stays: condacuda's entries go, everything else stays where it is.
    hk_scenario "pixi's order with two stacked envs and a module load" "$mode"
    _hk_start one
    hk_activate "$HK_A"
    hk_activate "$HK_P" stack
    hk_ld_prepend "$module"
    hk_expect "$module:/opt/other:$p:$a:/usr/lib"
    hk_deactivate pixi
    hk_expect "$a:$module:/opt/other:/usr/lib"
    hk_deactivate pixi
    hk_expect "$module:/opt/other:/usr/lib"
    hk_expect_clean
    hk_run
  done
  hk_check_no_process
  if [[ $HK_FAILURES -gt 0 ]]; then
    echo "$HK_FAILURES scenario(s) failed under $HK_SHELL" >&2
    return 1
  fi
}

# The hooks start no process: a driver that sources them makes exactly as many
# fork/clone/execve calls as the same driver without them (strace -f; tcsh forks once
# at start-up, in both). Where strace is missing or cannot trace (no ptrace in a
# container) the check cannot be made and the whole script is skipped, unless a
# scenario already failed: a skip never hides a failure.
hk_check_no_process() {
  if ! command -v strace >/dev/null 2>&1 || ! strace -f -o /dev/null true 2>/dev/null; then
    if [[ $HK_FAILURES -gt 0 ]]; then
      echo "note: strace unusable here, the process check was not made" >&2
      return 0
    fi
    skip "strace is missing or cannot trace here: the check that the hooks start no process cannot be made"
  fi
  local -a counts=()
  local with
  for with in no yes; do
    hk_scenario "process count, hooks $with" plain
    hk_ld_set /usr/lib
    if [[ $with == yes ]]; then
      hk_activate "$HK_A"
      hk_source_activate_again
      hk_activate "$HK_B" stack
      hk_reactivate
      hk_deactivate
      hk_deactivate
    else
      _hk_set_prefix "$HK_A"
    fi
    _hk_command
    strace -f -qq -e trace=execve,fork,vfork,clone,clone3 -o "$HK_DIR/strace" env "${HK_COMMAND[@]}"
    # Threads (fish starts one) are not processes, failed execve calls (env searching
    # PATH) start nothing.
    counts+=("$(grep -E '(execve|fork|vfork|clone|clone3)\(' "$HK_DIR/strace" |
      grep -v -e CLONE_THREAD -e '= -1 E' -c || true)")
  done
  if [[ ${counts[0]} -eq ${counts[1]} ]]; then
    echo "ok   $HK_SHELL: the hooks start no process (${counts[1]} process calls with and without them)"
  else
    echo "FAIL $HK_SHELL: the hooks start processes: ${counts[0]} process calls without them, ${counts[1]} with" >&2
    echo "     strace log: $HK_DIR/strace" >&2
    HK_FAILURES=$((HK_FAILURES + 1))
  fi
}
