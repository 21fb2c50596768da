#!/usr/bin/env bash
# The generated zsh completion in a real interactive zsh: under zpty, with
# compinit and the generated _condacuda on fpath; compadd wrapped to print
# what the completion functions add, between markers, and the screen kept
# for what zsh lists (descriptions). Subcommands, options, env names (from
# `condacuda list --names`, a space, `$` and `'` kept), commands after
# `run ENV --`, apostrophes in descriptions. Skipped (125) without zsh.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/completions.sh"
completion_setup zsh
mkdir -p "$scratch/zfunc" && cp "$scratch/completion.zsh" "$scratch/zfunc/_condacuda"

cat > "$scratch/zcomplete.zsh" <<'ZSH'
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "fpath=($ZFUNC \$fpath); autoload -Uz compinit; compinit -u -D; cd ${(q)ZCWD}; bindkey -e"
zpty -w z 'compadd() { local -a __hits; builtin compadd -O __hits "$@"; (( $#__hits )) && print -rl -- "<hit>"${^__hits}; builtin compadd "$@"; }'
zpty -w z 'zstyle ":completion:*" list-prompt ""; zstyle ":completion:*" select-prompt ""; PROMPT="<p>"; COLUMNS=250 LISTMAX=10000'
# Type the line only once zle shows its prompt: typed earlier, the terminal's
# own line editing (still on) would take the ^U below.
zpty -w z "print -r -- '<rea''dy>'"
zpty -r -m z ready '*<ready>*<p>*'
# TAB, then (once zle has done all it does for it) ^U and a marker line:
# everything up to the marker is what the completion printed.
zpty -w -n z "$LINE"$'\t'
zpty -w z $'\x15'"print -r -- '<do''ne>'"
out=
while zpty -r z line; do [[ $line == *"<done>"* ]] && break; out+=$line; done
if [[ -n $ZSCREEN ]]; then
  print -r -- "$out" | tr -d '\r'
else
  print -r -- "$out" | tr -d '\r' | grep -o '<hit>[^<]*' | sed 's/^<hit>//' | sed 's/[[:space:]]*$//' | sort -u
fi
zpty -d z
ZSH
# zsh_complete LINE: the candidates zsh adds for LINE<TAB>, one a line.
zsh_complete() { ZFUNC=$scratch/zfunc ZCWD=$COMPLETION_CWD LINE=$1 timeout 20 zsh -f "$scratch/zcomplete.zsh"; }
# zsh_screen LINE: what the terminal shows after LINE<TAB>.
zsh_screen() { ZSCREEN=1 zsh_complete "$1"; }

got=$(zsh_complete 'condacuda ')
expect "subcommands" "$got" list info doctor repair undo run lock check
expect_not "no hidden commands" "$got" __generate
expect "options" "$(zsh_complete 'condacuda lock --')" --check --json --releases
got=$(zsh_complete 'condacuda doctor -n ')
expect "env names after -n, one candidate each, unexpanded" "$got" alpha-env beta-env 'my env' 'cost$HOME' "it's"
expect_not "env names are not split" "$got" my env it s
got=$(zsh_complete 'condacuda info ')
# _files hands compadd names it quoted itself
expect "env names and folders as ENV" "$got" alpha-env 'my env' somedir 'dir\ with\ space' 'dol\$lar\ dir' "apo\\'dir"

got=$(zsh_complete 'condacuda run alpha-env -- condacuda-test-')
expect "a command after run ENV --" "$got" condacuda-test-tool
expect_not "no env names or options after run ENV --" "$got" alpha-env -- --json -n
got=$(zsh_complete 'condacuda run alpha-env -- ')
expect "commands after run ENV --" "$got" condacuda-test-tool condacuda
expect_not "no env names or options after run ENV -- (empty word)" "$got" alpha-env beta-env -- -n --name
expect "env names before --" "$(zsh_complete 'condacuda run al')" alpha-env

got=$(zsh_screen 'condacuda doctor -')
grep -qF -- "conda's envs dirs ('base' is the root)" <<< "$got" ||
  { echo "FAIL: the description of -n lost its apostrophes:"; echo "$got"; exit 1; }
echo "ok   apostrophes kept in descriptions"
echo "# completions (zsh): ok"
