#!/usr/bin/env bash
# The quoting functions of src/repair/hooks.cpp round-trip through the real shells:
# each string, quoted by condacuda_render_hooks --quote, is printed back by bash, zsh,
# dash, ksh (posix), fish and tcsh (csh) and must come back byte for byte. Shells that
# are not installed are left out; skipped when none is.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

tool=$(render_hooks_tool)
# shellcheck disable=SC1003 # backslashes at the end of a string are test data
strings=(
  plain 'with space' "it's" "''" "'" '"' 'd"q' "a'b\"c" '$HOME' '${x}' '$(cmd)' '`cmd`'
  'back\slash' 'trail\' '\' "\\'" $'new\nline' $'\n' $'x\\\ny' $'\ttab' '!bang' '!!'
  'a\!b' '!$' '^x' '*' '?' '[a]' '~user' '{a,b}' '#hash' ';|&<>()' '%s' '-e' '--' ':'
  'é ü 中' ''
)

expected=$TEST_TMP/expected
: >"$expected"
for s in "${strings[@]}"; do printf '%s\0' "$s" >>"$expected"; done

# script_for FAMILY: a script with one `printf '%s\0' QUOTED` line per string (made once).
script_for() {
  local family=$1 s
  REPLY=$TEST_TMP/quoted.$family
  [[ -e $REPLY ]] && return 0
  for s in "${strings[@]}"; do
    printf "printf '%%s\\\\0' %s\n" "$("$tool" --quote "$family" "$s")" >>"$REPLY"
  done
}

tested=0
failed=0
for shell in bash zsh dash ksh fish tcsh; do
  if ! command -v "$shell" >/dev/null 2>&1; then
    echo "note: $shell not installed, left out"
    continue
  fi
  case $shell in
    fish) family=fish command=(fish --no-config) ;;
    tcsh) family=csh command=(tcsh -f) ;;
    zsh) family=posix command=(zsh -f) ;;
    *) family=posix command=("$shell") ;;
  esac
  script_for "$family"
  script=$REPLY
  "${command[@]}" "$script" >"$TEST_TMP/actual.$shell" || true # a parse error shows as a diff
  if cmp -s "$expected" "$TEST_TMP/actual.$shell"; then
    echo "ok   $shell: ${#strings[@]} strings quoted by quote_$family read back exactly"
  else
    echo "FAIL $shell: quote_$family does not round-trip (script: $script)" >&2
    diff <(tr '\0' '\n' <"$expected") <(tr '\0' '\n' <"$TEST_TMP/actual.$shell") >&2 || true
    failed=$((failed + 1))
  fi
  tested=$((tested + 1))
done
[[ $tested -gt 0 ]] || skip "none of bash, zsh, dash, ksh, fish, tcsh is installed"
[[ $failed -eq 0 ]]
