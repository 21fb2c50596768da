# shellcheck shell=bash
# Shared by tests/shell/test_hooks_quoting_<shell>.sh (sourced after lib.sh):
# the quoting functions of src/repair/hooks.cpp round-trip through a real
# shell. Each string, quoted by condacuda_render_hooks --quote FAMILY, is
# printed back by the shell and must come back byte for byte.
: "${scratch:?sourced after lib.sh}"

# hooks_quoting_roundtrip SHELL: bash, zsh, dash, ksh (the posix family),
# fish or tcsh (csh); skipped (125) when SHELL is not installed.
hooks_quoting_roundtrip() {
  local shell=$1 family s tool
  local -a command
  require_command "$shell"
  case $shell in
    fish) family=fish command=(fish --no-config) ;;
    tcsh) family=csh command=(tcsh -f) ;;
    zsh) family=posix command=(zsh -f) ;;
    bash | dash | ksh) family=posix command=("$shell") ;;
    *) echo "FAIL: no quoting family for $shell" >&2; return 1 ;;
  esac
  tool=$(render_hooks_tool)
  # shellcheck disable=SC1003 # backslashes at the end of a string are test data
  local -a strings=(
    plain 'with space' "it's" "''" "'" '"' 'd"q' "a'b\"c" '$HOME' '${x}' '$(cmd)' '`cmd`'
    'back\slash' 'trail\' '\' "\\'" $'new\nline' $'\n' $'x\\\ny' $'\ttab' '!bang' '!!'
    'a\!b' '!$' '^x' '*' '?' '[a]' '~user' '{a,b}' '#hash' ';|&<>()' '%s' '-e' '--' ':'
    'é ü 中' ''
  )
  local expected=$scratch/expected script=$scratch/quoted.$family actual=$scratch/actual.$shell
  : > "$expected"
  : > "$script"
  for s in "${strings[@]}"; do
    printf '%s\0' "$s" >> "$expected"
    # one `printf '%s\0' QUOTED` line per string
    printf "printf '%%s\\\\0' %s\n" "$("$tool" --quote "$family" "$s")" >> "$script"
  done
  "${command[@]}" "$script" > "$actual" || true # a parse error shows as a diff
  if cmp -s "$expected" "$actual"; then
    echo "ok   $shell: ${#strings[@]} strings quoted by quote_$family read back exactly"
  else
    echo "FAIL $shell: quote_$family does not round-trip (script: $script)" >&2
    diff <(tr '\0' '\n' < "$expected") <(tr '\0' '\n' < "$actual") >&2 || true
    return 1
  fi
}
