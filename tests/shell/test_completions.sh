#!/usr/bin/env bash
# The generated completions, loaded in the real shells: bash (the function
# called as readline would, COMP_WORDS/COMP_CWORD set), zsh (an interactive
# zsh under zpty with compinit, candidates captured at compadd) and fish
# (`complete -C`). Each completes the subcommands, options, option values
# and env names; env names come from `condacuda list --names`, here from
# CONDA_ENVS_PATH.
source "$(dirname "$0")/lib.sh"
: "${CONDACUDA:?}"

bin=$TEST_TMP/bin
mkdir -p "$bin" "$TEST_TMP/envs/alpha-env/conda-meta" "$TEST_TMP/envs/beta-env/conda-meta" "$TEST_TMP/home"
touch "$TEST_TMP/envs/alpha-env/conda-meta/history" "$TEST_TMP/envs/beta-env/conda-meta/history"
ln -s "$CONDACUDA" "$bin/condacuda"
for kind in bash zsh fish; do "$CONDACUDA" __generate "$kind" > "$TEST_TMP/completion.$kind"; done
mkdir -p "$TEST_TMP/zfunc" && cp "$TEST_TMP/completion.zsh" "$TEST_TMP/zfunc/_condacuda"
export PATH=$bin:$PATH HOME=$TEST_TMP/home CONDA_ENVS_PATH=$TEST_TMP/envs
unset CONDA_PREFIX CONDA_EXE CONDA_ROOT MAMBA_ROOT_PREFIX CONDARC 2> /dev/null || true
expect() { # WHAT GOT WANT-WORDS...: every wanted word is among the candidates
  local what=$1 got=$2 w
  shift 2
  for w in "$@"; do
    grep -qx -- "$w" <<< "$got" || { echo "FAIL: $what: no '$w' among:"; echo "$got"; exit 1; }
  done
}
expect_not() {
  local what=$1 got=$2 w
  shift 2
  for w in "$@"; do
    ! grep -qx -- "$w" <<< "$got" || { echo "FAIL: $what: unexpected '$w'"; exit 1; }
  done
}
[ "$(condacuda list --names | sort | tr '\n' ' ')" = "alpha-env beta-env " ] || { echo "FAIL: list --names"; exit 1; }

# ------------------------------------------------------------------- bash
bash_complete() { # the words of the command line; the last is the one completed
  bash --norc --noprofile -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _condacuda; printf "%s\n" "${COMPREPLY[@]}"' _ \
    "$TEST_TMP/completion.bash" "$@"
}
got=$(bash_complete condacuda '')
expect "bash subcommands" "$got" list info doctor repair undo run lock check
expect_not "bash hidden commands" "$got" __generate __probe
expect "bash subcommand prefix" "$(bash_complete condacuda re)" repair
expect "bash env names after -n" "$(bash_complete condacuda doctor -n '')" alpha-env beta-env
expect "bash env names as ENV" "$(bash_complete condacuda info al)" alpha-env
expect "bash options" "$(bash_complete condacuda lock --)" --check --json --releases
expect "bash --color values" "$(bash_complete condacuda doctor --color '')" auto always never
mkdir -p "$TEST_TMP/cwd/somedir" && touch "$TEST_TMP/cwd/some.lock.yml"
got=$(cd "$TEST_TMP/cwd" && bash_complete condacuda lock --check so)
expect "bash files for --check" "$got" some.lock.yml
got=$(cd "$TEST_TMP/cwd" && bash_complete condacuda doctor -p so)
expect "bash folders for -p" "$got" somedir
expect_not "bash folders only for -p" "$got" some.lock.yml

# ------------------------------------------------------------------- fish
if command -v fish > /dev/null; then
  fish_complete() { fish --no-config -c "source $TEST_TMP/completion.fish; complete -C '$1'" | cut -f1; }
  got=$(fish_complete 'condacuda ')
  expect "fish subcommands" "$got" list info doctor repair undo run lock check
  expect_not "fish hidden commands" "$got" __generate __probe
  expect "fish env names after -n" "$(fish_complete 'condacuda doctor -n ')" alpha-env beta-env
  expect "fish env names as ENV" "$(fish_complete 'condacuda repair ')" alpha-env beta-env
  expect "fish options" "$(fish_complete 'condacuda check --')" --json --as-is --timeout
  expect "fish --color values" "$(fish_complete 'condacuda info --color ')" auto always never
else
  echo "# fish not installed: skipped"
fi

# ------------------------------------------------------------------- zsh
if command -v zsh > /dev/null; then
  # An interactive zsh in a pseudo-terminal (zpty), compinit with the
  # generated _condacuda on fpath; compadd wrapped to print what the real
  # completion functions add, between markers.
  cat > "$TEST_TMP/zcomplete.zsh" <<'ZSH'
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "fpath=($ZFUNC \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd() { local -a __hits; builtin compadd -O __hits "$@"; (( $#__hits )) && print -rl -- "<hit>"${^__hits}; builtin compadd "$@"; }'
zpty -w z 'zstyle ":completion:*" list-prompt ""; zstyle ":completion:*" select-prompt ""; PROMPT="%% "'
zpty -w z 'print -r -- "<ready>"'
while zpty -r z line; do [[ $line == "<ready>"* ]] && break; done
zpty -w -n z "$LINE"$'\t'
sleep 1.5
zpty -r -t z out 2>/dev/null
while zpty -r -t z more 2>/dev/null; do out+=$more; done
print -r -- "$out" | tr -d '\r' | grep -o '<hit>[^<]*' | sed 's/^<hit>//' | sed 's/[[:space:]]*$//' | sort -u
zpty -d z
ZSH
  zsh_complete() { ZFUNC=$TEST_TMP/zfunc LINE=$1 timeout 20 zsh -f "$TEST_TMP/zcomplete.zsh"; }
  got=$(zsh_complete 'condacuda ')
  echo "# zsh: $(tr "\n" " " <<< "$got")"
  expect "zsh subcommands" "$got" list info doctor repair undo run lock check
  expect_not "zsh hidden commands" "$got" __generate __probe
  expect "zsh env names after -n" "$(zsh_complete 'condacuda doctor -n ')" alpha-env beta-env
  expect "zsh options" "$(zsh_complete 'condacuda lock --')" --check --json --releases
else
  echo "# zsh not installed: skipped"
fi
echo "# completions: ok"
