#!/usr/bin/env bash
# The rendered hooks pass `shellcheck -s sh|bash|dash|ksh` without a single warning, parse
# in every shell that sources them (`-n`), and the sh version has no command
# substitution (it starts no process: parameter expansion only). Skipped when
# there is no shellcheck.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_command shellcheck

tool=$(render_hooks_tool)
plain=$scratch/plain
weird=$scratch/weird
"$tool" "$plain" lib/python3.11/site-packages/nvidia/cusparse/lib lib/python3.11/site-packages/nvidia/nvjitlink/lib
"$tool" "$weird" "lib/it's" 'lib/$HOME' 'lib/back\slash' $'lib/new\nline' 'lib/!bang' 'lib/"dq"' 'lib/`tick`' 'lib/$(x)'

failed=0
for prefix in "$plain" "$weird"; do
  for phase in activate deactivate; do
    file=$prefix/etc/conda/$phase.d/condacuda.sh
    for dialect in sh bash dash ksh; do
      if shellcheck -s "$dialect" "$file"; then
        echo "ok   shellcheck -s $dialect: ${file#"$scratch"/}"
      else
        echo "FAIL shellcheck -s $dialect: $file" >&2
        failed=$((failed + 1))
      fi
    done
    for shell in bash zsh dash ksh fish tcsh; do
      command -v "$shell" >/dev/null 2>&1 || continue
      case $shell in
        fish) file=$prefix/etc/conda/$phase.d/condacuda.fish command=(fish --no-config -n) ;;
        tcsh) file=$prefix/etc/conda/$phase.d/condacuda.csh command=(tcsh -f -n) ;;
        *) file=$prefix/etc/conda/$phase.d/condacuda.sh command=("$shell" -n) ;;
      esac
      # ksh -n also prints style advice on stderr; only the status counts.
      if "${command[@]}" "$file" 2>"$scratch/parse.err"; then
        echo "ok   $shell -n: ${file#"$scratch"/}"
      else
        echo "FAIL $shell -n: $file" >&2
        cat "$scratch/parse.err" >&2
        failed=$((failed + 1))
      fi
    done
  done
done

# No $( or ` outside comments ($(( is arithmetic); the plain render has no such folders.
for phase in activate deactivate; do
  file=$plain/etc/conda/$phase.d/condacuda.sh
  if grep -v '^[[:space:]]*#' "$file" | grep -nE '\$\([^(]|`'; then
    echo "FAIL command substitution in $file" >&2
    failed=$((failed + 1))
  else
    echo "ok   no command substitution: ${file#"$scratch"/}"
  fi
done
[[ $failed -eq 0 ]]
