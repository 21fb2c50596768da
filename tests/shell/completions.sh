# shellcheck shell=bash
# Shared by tests/shell/test_completions_{bash,zsh,fish}.sh (sourced after
# lib.sh; each test is one shell, skipped with 125 when it is not installed).
#
# completion_setup SHELL: the generated completion for SHELL in
# $scratch/completion.SHELL; `condacuda` (a link to the binary under test)
# and a command `condacuda-test-tool` first on PATH; envs under
# CONDA_ENVS_PATH whose names hold what splits or expands in a shell (a space,
# `$`, `'`); and $scratch/cwd with files and folders named the same way.
: "${CONDACUDA:?}" "${scratch:?sourced after lib.sh}"

completion_setup() {
  local shell=$1 name
  require_command "$shell"
  COMPLETION_BIN=$scratch/bin
  mkdir -p "$COMPLETION_BIN" "$scratch/home"
  ln -s "$CONDACUDA" "$COMPLETION_BIN/condacuda"
  printf '#!/bin/sh\nexit 0\n' > "$COMPLETION_BIN/condacuda-test-tool"
  chmod +x "$COMPLETION_BIN/condacuda-test-tool"
  # Names a line-based reader cannot take (a newline, ESC): `list --names`
  # leaves them out, `list` shows them escaped on one row each (issue 26).
  for name in alpha-env beta-env 'my env' 'cost$HOME' "it's" $'new\nline' $'esc\x1b[31mred'; do
    mkdir -p "$scratch/envs/$name/conda-meta"
    touch "$scratch/envs/$name/conda-meta/history"
  done
  COMPLETION_CWD=$scratch/cwd
  mkdir -p "$COMPLETION_CWD/somedir" "$COMPLETION_CWD/dir with space" "$COMPLETION_CWD/dol\$lar dir" \
    "$COMPLETION_CWD/apo'dir"
  touch "$COMPLETION_CWD/some.lock.yml" "$COMPLETION_CWD/a file.yml"
  "$CONDACUDA" __generate "$shell" > "$scratch/completion.$shell"
  export PATH=$COMPLETION_BIN:$PATH HOME=$scratch/home CONDA_ENVS_PATH=$scratch/envs
  unset CONDA_PREFIX CONDA_EXE CONDA_ROOT MAMBA_ROOT_PREFIX CONDARC VIRTUAL_ENV 2> /dev/null || true
  local names
  names=$(condacuda list --names)
  [ "$names" = "$(printf '%s\n' alpha-env beta-env 'cost$HOME' "it's" 'my env')" ] ||
    { echo "FAIL: list --names gave:"; echo "$names"; exit 1; }
  local table
  table=$(condacuda list --color never)
  # 8 rows (a table wider than 100 columns puts each prefix on an indented line under its row)
  if [ "$(grep -c '^[^ ]' <<< "$table")" != 8 ] || ! grep -qF 'new\x0aline' <<< "$table" ||
    ! grep -qF 'esc\x1b[31mred' <<< "$table" || [[ $table == *$'\x1b'* ]]; then
    echo "FAIL: list shows raw bytes or splits a row:"; echo "$table"; exit 1
  fi
}

# expect WHAT GOT WANT...: every wanted line is among the candidates (one per line).
expect() {
  local what=$1 got=$2 w
  shift 2
  for w in "$@"; do
    grep -qxF -- "$w" <<< "$got" || { echo "FAIL: $what: no '$w' among:"; echo "$got"; exit 1; }
  done
  echo "ok   $what"
}
expect_not() {
  local what=$1 got=$2 w
  shift 2
  for w in "$@"; do
    ! grep -qxF -- "$w" <<< "$got" || { echo "FAIL: $what: unexpected '$w' among:"; echo "$got"; exit 1; }
  done
  echo "ok   $what"
}

# pty_session COMMAND...: runs COMMAND (an interactive POSIX-like shell) in a
# pseudo-terminal, types each line of stdin into it (a literal \t is a TAB),
# and prints what the terminal showed. After each line it types `echo` of a
# marker and waits for the marker, so nothing depends on timing.
pty_session() {
  require_command python3
  cat > "$scratch/pty_session.py" << 'PY'
import os, pty, select, sys, time
typed = [line for line in sys.stdin.read().split("\n") if line]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
def read_until(marker, seconds=30):
    global out
    end = time.time() + seconds
    while marker not in out:
        if time.time() > end:
            sys.exit("pty_session: no %r from the shell; it showed:\n%s" % (marker, out.decode("utf-8", "replace")))
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                sys.exit("pty_session: the shell ended; it showed:\n" + out.decode("utf-8", "replace"))
            out += data
for n, line in enumerate(typed):
    os.write(fd, (line.replace("\\t", "\t") + "\n").encode())
    # the echo of the typed line shows '<mark''N>', its output <markN>
    os.write(fd, ("echo '<mark''%d>'\n" % n).encode())
    read_until(b"\n<mark%d>" % n)
os.write(fd, b"exit\n")
os.kill(pid, 9)
os.waitpid(pid, 0)
sys.stdout.write(out.decode("utf-8", "replace").replace("\r", ""))
PY
  python3 "$scratch/pty_session.py" "$@"
}
