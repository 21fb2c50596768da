#!/usr/bin/env bash
# The generated fish completion in a real fish (`complete -C LINE`: what TAB
# offers after LINE). Subcommands, options, option values, env names (from
# `condacuda list --names`, a space, `$` and `'` kept) and folders; no file
# names for values that are not files (-n, --color); commands after
# `run ENV --`. Skipped (125) without fish.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/completions.sh"
completion_setup fish

# fish_complete LINE: the candidates for LINE, one a line (without descriptions).
fish_complete() {
  (cd "$COMPLETION_CWD" && fish --no-config -c 'source $argv[1]; complete -C $argv[2]' \
    "$scratch/completion.fish" "$1") | cut -f1
}
got=$(fish_complete 'condacuda ')
expect "subcommands" "$got" list info doctor repair undo run lock check
expect_not "no hidden commands" "$got" __generate
expect "options" "$(fish_complete 'condacuda check --')" --json --as-is --timeout
got=$(fish_complete 'condacuda doctor -n ')
expect "env names after -n, one candidate each, unexpanded" "$got" alpha-env beta-env 'my env' 'cost$HOME' "it's"
expect_not "no files or folders after -n" "$got" some.lock.yml 'a file.yml' somedir/
got=$(fish_complete 'condacuda info --color ')
expect "--color values" "$got" auto always never
expect_not "no files or folders after --color" "$got" some.lock.yml 'a file.yml' somedir/
got=$(fish_complete 'condacuda repair ')
expect "env names and folders as ENV" "$got" alpha-env beta-env 'my env' somedir/ 'dir with space/'
expect_not "no files as ENV" "$got" some.lock.yml
got=$(fish_complete 'condacuda doctor -p ')
expect "folders for -p" "$got" somedir/ 'dir with space/'
expect_not "only folders for -p" "$got" some.lock.yml
expect "files for --check" "$(fish_complete 'condacuda lock --check so')" some.lock.yml

got=$(fish_complete 'condacuda run alpha-env -- condacuda-test-')
expect "a command after run ENV --" "$got" condacuda-test-tool
got=$(fish_complete 'condacuda run alpha-env -- ')
expect_not "no env names after run ENV --" "$got" alpha-env beta-env
expect_not "no condacuda options after run ENV --" "$(fish_complete 'condacuda run alpha-env -- -')" \
  --print-ld-library-path --name
expect "env names before --" "$(fish_complete 'condacuda run al')" alpha-env
echo "# completions (fish): ok"
