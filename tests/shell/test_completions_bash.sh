#!/usr/bin/env bash
# The generated bash completion, two ways: its function called as readline
# calls it (COMP_WORDS/COMP_CWORD set, COMPREPLY printed one candidate a
# line), and an interactive bash in a pseudo-terminal where TAB completes a
# line and Enter runs it (`condacuda` there a function printing its words).
# Subcommands, options, option values, env names (from `condacuda list
# --names`) and paths: names with a space, `$` or `'` stay one word and come
# back unexpanded; after `run ENV --` it completes commands. Skipped (125)
# without bash.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/completions.sh"
completion_setup bash

bash_complete() { # the words of the command line; the last is the one completed
  bash --norc --noprofile -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _condacuda; printf "%s\n" "${COMPREPLY[@]}"' _ \
    "$scratch/completion.bash" "$@"
}
got=$(bash_complete condacuda '')
expect "subcommands" "$got" list info doctor repair undo run lock check
expect_not "no hidden commands" "$got" __generate
expect "a subcommand's prefix" "$(bash_complete condacuda re)" repair
expect "options" "$(bash_complete condacuda lock --)" --check --json --releases
expect "--color values" "$(bash_complete condacuda doctor --color '')" auto always never

# Candidates come quoted as the word was begun, so that readline inserts one
# literal word each: my\ env unquoted, 'my env' after a ', "cost\$HOME" after a ".
got=$(bash_complete condacuda doctor -n '')
expect "env names after -n, one candidate each, quoted" "$got" alpha-env beta-env 'my\ env' 'cost\$HOME' "it\\'s"
expect_not "env names are not split or expanded" "$got" my env "it" "s" "cost$HOME"
expect "env names as ENV" "$(bash_complete condacuda info al)" alpha-env
expect "a name with a space, typed with a backslash" "$(bash_complete condacuda info 'my\ e')" 'my\ env'
expect "a name typed after a single quote" "$(bash_complete condacuda info "'my")" 'my env'
expect "a name with an apostrophe, after a single quote" "$(bash_complete condacuda info "'it")" "it'\\''s"
expect "a name typed after a double quote" "$(bash_complete condacuda info '"cost$')" 'cost\$HOME'
expect "a name with an apostrophe, typed escaped" "$(bash_complete condacuda info "it\\'")" "it\\'s"

cd "$COMPLETION_CWD"
got=$(bash_complete condacuda lock --check so)
expect "files and folders for --check" "$got" some.lock.yml somedir/
got=$(bash_complete condacuda doctor -p so)
expect "folders for -p" "$got" somedir/
expect_not "only folders for -p" "$got" some.lock.yml
expect "a folder with a space, one word" "$(bash_complete condacuda doctor -p di)" 'dir\ with\ space/'
expect "a folder with a \$, unexpanded" "$(bash_complete condacuda doctor -p 'dol$')" 'dol\$lar\ dir/'
expect "a folder with an apostrophe as ENV" "$(bash_complete condacuda info apo)" "apo\\'dir/"
expect "a file with a space for -o" "$(bash_complete condacuda lock -o "a\\ ")" 'a\ file.yml'
# shellcheck disable=SC2088 # the ~ is the text typed, to stay unexpanded
expect "a path under ~ keeps its ~" "$(HOME=$COMPLETION_CWD bash_complete condacuda doctor -p '~/dir')" '~/dir\ with\ space/'

got=$(bash_complete condacuda run alpha-env -- condacuda-test-)
expect "a command after run ENV --" "$got" condacuda-test-tool
# A command name is data: an executable named zz$(touch ...) on PATH (an
# activated env's bin/) completes as that name and runs nothing (issue 26).
planted='zz$(touch PWNED)'
printf '#!/bin/sh\nexit 0\n' > "$COMPLETION_BIN/$planted"
chmod +x "$COMPLETION_BIN/$planted"
got=$(bash_complete condacuda run alpha-env -- zz)
[ ! -e PWNED ] || { echo "FAIL: completing a command name ran what the name holds"; exit 1; }
expect "the planted name, quoted as data" "$got" 'zz\$\(touch\ PWNED\)'
rm -f "$COMPLETION_BIN/$planted"
got=$(bash_complete condacuda run alpha-env -- '')
expect_not "no env names or options after run ENV --" "$got" alpha-env beta-env --help
expect "env names before --" "$(bash_complete condacuda run al)" alpha-env
expect "-- among run's words" "$(bash_complete condacuda run alpha-env -)" --
got=$(bash_complete condacuda run alpha-env -- condacuda-test-tool so)
expect "the command's words: files" "$got" some.lock.yml
expect_not "the command's words: no env names" "$(bash_complete condacuda run alpha-env -- condacuda-test-tool al)" alpha-env

# Readline itself: what TAB inserts is quoted so that the line runs with one
# word per name. A unique candidate is inserted whole, then Enter runs the line.
got=$(pty_session env PS1='$ ' TERM=dumb bash --norc --noprofile -i << EOF
source '$scratch/completion.bash'
condacuda() { printf '<%s>' "\$@"; echo; }
condacuda info my\\t
condacuda info cost\\t
condacuda info 'it\\t
condacuda info "cost\\t
condacuda info 'my\\t
condacuda doctor -p dir\\t
condacuda doctor -p dol\\t
condacuda info apo\\t
condacuda run alpha-env -- condacuda-test-t\\t
EOF
)
words=$(grep '^<' <<< "$got" || true)
expect "readline: one word per name" "$words" '<info><my env>' '<info><cost$HOME>' "<info><it's>" \
  '<info><cost$HOME>' '<info><my env>' \
  '<doctor><-p><dir with space/>' '<doctor><-p><dol$lar dir/>' "<info><apo'dir/>" \
  '<run><alpha-env><--><condacuda-test-tool>'
echo "# completions (bash): ok"
