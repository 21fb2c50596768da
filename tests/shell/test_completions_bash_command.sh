#!/usr/bin/env bash
# With bash-completion loaded, the words after `condacuda run ENV --` are
# completed by the command's own completion (bash-completion's
# _command_offset): a command, then its options and arguments, condacuda's
# own completion included. Without bash-completion the generated completion
# offers commands, then file names (test_completions_bash.sh). Skipped (125)
# without bash or bash-completion.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/completions.sh"
completion_setup bash
framework=/usr/share/bash-completion/bash_completion
[ -f "$framework" ] || skip "bash-completion is not installed ($framework)"

bash_complete() { # the words of the command line; the last is the one completed
  bash --norc --noprofile -c 'source "$1" 2> /dev/null; source "$2"; shift 2
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _condacuda 2> /dev/null; printf "%s\n" "${COMPREPLY[@]}"' _ "$framework" "$scratch/completion.bash" "$@"
}
cd "$COMPLETION_CWD"
expect "a command after run ENV --" "$(bash_complete condacuda run alpha-env -- condacuda-test-)" condacuda-test-tool
expect "condacuda's own completion after run ENV -- condacuda" \
  "$(bash_complete condacuda run alpha-env -- condacuda d)" doctor
expect "its env names too" "$(bash_complete condacuda run alpha-env -- condacuda info al)" alpha-env
expect_not "not run's own words after --" "$(bash_complete condacuda run alpha-env -- condacuda -)" --print-ld-library-path
echo "# completions (bash, with bash-completion): ok"
