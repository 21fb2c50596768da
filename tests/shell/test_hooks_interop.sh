#!/usr/bin/env bash
# The hooks of every shell share one state variable, CONDACUDA_HOOK_STATE: envs activated
# in one shell are deactivated exactly in another that inherits the environment (a fish
# started from bash, a bash started from tcsh). For each ordered pair of installed shells
# X, Y: X activates A then B stacked and execs Y; Y deactivates B (re-running A's
# activate.d, as conda does), then A. LD_LIBRARY_PATH must come back byte for byte and
# no state may be left. Skipped when fewer than two shells are installed.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tool=$(render_hooks_tool)
printer=$scratch/printer
_hk_write_printer "$printer"
sp=lib/python3.11/site-packages/nvidia
env_a="$scratch/envs/env A \$x 'q' \"d\""
env_b=$scratch/envs/envB
"$tool" "$env_a" "$sp/cusparse/lib" "$sp/nvjitlink/lib"
"$tool" "$env_b" lib
block_a="$env_a/$sp/cusparse/lib:$env_a/$sp/nvjitlink/lib"
block_b=$env_b/lib

shells=()
for shell in bash dash zsh ksh fish tcsh; do
  command -v "$shell" >/dev/null 2>&1 && shells+=("$shell")
done
[[ ${#shells[@]} -ge 2 ]] || skip "fewer than two of bash, dash, zsh, ksh, fish, tcsh are installed"

ext_of() {
  case $1 in
    fish) REPLY='fish' ;;
    tcsh) REPLY='csh' ;;
    *) REPLY='sh' ;;
  esac
}

# Command line that runs SCRIPT in SHELL.
command_of() {
  local path
  path=$(command -v "$1")
  case $1 in
    bash) REPLY="$path --norc --noprofile $2" ;;
    zsh) REPLY="$path -f $2" ;;
    fish) REPLY="$path --no-config $2" ;;
    tcsh) REPLY="$path -f $2" ;;
    *) REPLY="$path $2" ;;
  esac
}

# Script lines, per shell family: set CONDA_PREFIX to the value of variable $2 and
# source the env's PHASE.d script ($1).
source_line() {
  local phase=$1 var=$2 ext=$3
  case $ext in
    sh) REPLY="CONDA_PREFIX=\$$var; export CONDA_PREFIX; . \"\$CONDA_PREFIX/etc/conda/$phase.d/condacuda.sh\"" ;;
    fish) REPLY="set -gx CONDA_PREFIX \"\$$var\"; source \"\$CONDA_PREFIX/etc/conda/$phase.d/condacuda.fish\"" ;;
    csh) REPLY="setenv CONDA_PREFIX \$$var:q; source \${CONDA_PREFIX:q}/etc/conda/$phase.d/condacuda.csh" ;;
  esac
}
# show_line MODE LABEL EXT: a line running the printer (lib.sh) in that mode.
show_line() {
  # shellcheck disable=SC2089 # a command line, word-split where it is run below
  case $3 in
    csh) REPLY="\$CC_PRINTER:q $1 $2" ;;
    *) REPLY="\"\$CC_PRINTER\" $1 $2" ;;
  esac
}

failed=0
runs=0
for first in "${shells[@]}"; do
  for second in "${shells[@]}"; do
    [[ $first == "$second" ]] && continue
    for start in unset /usr/lib; do
      dir=$scratch/run.$first.$second.${start//\//_}
      mkdir -p "$dir"
      ext_of "$first" && ext1=$REPLY
      ext_of "$second" && ext2=$REPLY
      command_of "$second" "$dir/stage2.$ext2" && next=$REPLY
      {
        source_line activate T_A "$ext1" && echo "$REPLY"
        source_line activate T_B "$ext1" && echo "$REPLY"
        show_line show 1 "$ext1" && echo "$REPLY"
        echo "exec $next"
      } >"$dir/stage1.$ext1"
      {
        source_line deactivate T_B "$ext2" && echo "$REPLY"
        source_line activate T_A "$ext2" && echo "$REPLY"
        show_line show 2 "$ext2" && echo "$REPLY"
        source_line deactivate T_A "$ext2" && echo "$REPLY"
        show_line show 3 "$ext2" && echo "$REPLY"
        show_line state 4 "$ext2" && echo "$REPLY"
      } >"$dir/stage2.$ext2"
      base=${start/unset/}
      {
        echo "1 [$block_b:$block_a${base:+:$base}]"
        echo "2 [$block_a${base:+:$base}]"
        if [[ $start == unset ]]; then echo "3 <unset>"; else echo "3 [$start]"; fi
        echo "4 state: none"
      } >"$dir/expected"
      command_of "$first" "$dir/stage1.$ext1" && launch=$REPLY
      ld=()
      [[ $start == unset ]] || ld=(LD_LIBRARY_PATH="$start")
      # shellcheck disable=SC2086,SC2090 # launch is a command line made above, paths without blanks
      env -u CONDA_PREFIX -u LD_LIBRARY_PATH -u CONDACUDA_HOOK_STATE "${ld[@]}" LC_ALL=C.UTF-8 \
        T_A="$env_a" T_B="$env_b" CC_PRINTER="$printer" $launch >"$dir/actual" 2>"$dir/stderr" || true
      runs=$((runs + 1))
      if cmp -s "$dir/expected" "$dir/actual" && [[ ! -s $dir/stderr ]]; then
        echo "ok   $first activates, $second deactivates (start: $start)"
      else
        echo "FAIL $first activates, $second deactivates (start: $start)" >&2
        diff -u "$dir/expected" "$dir/actual" >&2 || true
        cat "$dir/stderr" >&2
        failed=$((failed + 1))
      fi
    done
  done
done
echo "$runs runs, $failed failed"
[[ $failed -eq 0 ]]
