# shellcheck shell=bash
# Debian roots for the e2e tests that run condacuda on other Debian releases
# (another glibc) than the machine's: debootstrap's minbase roots, built once
# and cached outside the checkout, and a way to run a command inside one
# without changing it. Sourced after lib.sh (it uses skip, fail and note):
#
#   source "$(dirname "$0")/lib.sh"
#   source "$(dirname "$0")/debian_root.sh"
#   root=$(debian_root bullseye) || exit       # `|| exit`: a skip stays a skip
#   in_root "$root" "$scratch" python3 -c 'import sys; print(sys.version)'
#
# Functions
#   debian_root SUITE  prints the path of the cached root of SUITE (bullseye:
#       Debian 11, glibc 2.31; trixie: Debian 13, glibc 2.41), building it when
#       it is missing or was built with another package list:
#         debootstrap --variant=minbase --include=PACKAGES SUITE DIR MIRROR
#       into a temporary sibling of the cached root, then renamed into place,
#       under a lock (flock on CACHE/SUITE.lock: two tests never build the
#       same root at once; one waits for the other's root). Its notes (built in
#       how many seconds, how large; or cached since when) go to stderr: stdout
#       is the path. Skips (exit 125) when not root or a program is missing
#       (debootstrap unshare chroot flock mount wget), and when the mirror
#       cannot be reached; under CI (CI=true) each of these fails instead.
#       A debootstrap that fails while the mirror answers fails.
#   in_root ROOT SCRATCH [--bind SRC DEST]... CMD...  runs CMD inside ROOT
#       as root, in a mount namespace of its own (unshare --mount
#       --propagation private), so that every mount below vanishes with CMD's
#       process and the cached root is never written to:
#         /          ROOT, bound read-only
#         /scratch   SCRATCH, read-write (SCRATCH/home and SCRATCH/tmp made)
#         /src       the source tree (CONDACUDA_SOURCE_DIR), read-only
#         /tmp       SCRATCH/tmp (on disk, kept with a failed test's scratch)
#         /proc      a proc of its own (mount -t proc)
#         /dev       a small tmpfs with null, zero, full, random and urandom
#                    bound from the host's /dev, fd/stdin/stdout/stderr links
#                    and an empty tmpfs /dev/shm: not the host's whole /dev
#                    (its disks and terminals); no /dev/tty (CTest gives tests
#                    no terminal either), no /sys
#       --bind SRC DEST (repeatable, before CMD): SRC, a file or folder of
#       the host, bound read-only over DEST, a path inside the root that
#       exists and is of the same kind (a file over a file), after the mounts
#       above: --bind "$scratch/ld.so.cache" /etc/ld.so.cache gives the
#       root's ld.so another cache for CMD alone, the cached root's own file
#       untouched (e2e.loader_glibc_*: the cache each root's ldconfig writes,
#       read by its ld.so and by doctor).
#       CMD runs with a clean environment:
#         env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/scratch/home
#                LANG=C.UTF-8 TMPDIR=/tmp PYTHONDONTWRITEBYTECODE=1 CMD...
#       (more variables: in_root ROOT SCRATCH env NAME=VALUE CMD...). Its exit
#       status is CMD's; stdin, stdout and stderr are the caller's. unshare's
#       --kill-child: CMD is killed when unshare dies (a test killed by CTest's
#       timeout leaves nothing running).
#   debian_root_mounts ROOT  prints the mounts at or below ROOT that this
#       shell's mount namespace has: empty after any in_root (the proof that
#       nothing leaked).
# Variables (read)
#   CONDACUDA_ROOT_CACHE    the cache folder, default
#                           /var/cache/condacuda-tests/debian-roots: outside
#                           the checkout, kept between CI runs (bullseye
#                           374 MB, trixie 423 MB; each 96-240 s to build,
#                           the mirror's speed and the machine's load
#                           deciding)
#   CONDACUDA_DEBIAN_MIRROR default: the machine's own Debian mirror, read from
#                           its apt sources (_debian_root_apt_mirror)
#   DEBIAN_ROOT_LOCK_TIMEOUT  seconds to wait for another test's build of the
#                           same root (default 900)
#
# The cached root: CACHE/SUITE, with /etc/condacuda-test-root, its stamp
# (suite, variant, packages, mirror, when it was built, in how many seconds,
# its size, debootstrap's version), written last: a root whose stamp is
# missing or names other suite, variant or packages than wanted is rebuilt.
# apt's downloaded packages and its package lists are removed from it (the
# tests install nothing with apt). The empty folders /scratch and /src are
# the mount points in_root binds onto. in_root takes no lock: a rebuild (only
# when the package list here changes) replaces a root that another checkout's
# test sharing the cache may be using.
#
# Why binds and not an overlay: a read-only bind of the root with writable
# binds over /scratch and /tmp is all the tests need (they write only there),
# needs no upper folder, and works on any file system the cache is on; an
# overlayfs over a root on an overlay (Docker's) may be refused by the kernel.
# On this machine (a Docker container with CAP_SYS_ADMIN, the root on ext4)
# unshare, bind mounts, the read-only remount and a fresh proc all work.

_debian_root_cache=${CONDACUDA_ROOT_CACHE:-/var/cache/condacuda-tests/debian-roots}
# _debian_root_apt_mirror: the first Debian archive this machine's apt uses
# (deb822 /etc/apt/sources.list.d/*.sources, then the one-line
# /etc/apt/sources.list and sources.list.d/*.list), the security archive
# excepted; nothing when apt names none. No host is written here.
_debian_root_apt_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk 'function flush() { if (deb && uri != "" && suites !~ /-security/) { print uri; found = 1; exit } }
         /^[[:space:]]*$/ { flush(); deb = 0; uri = ""; suites = ""; next }
         /^Types:/ { deb = ($0 ~ /(^|[[:space:]])deb([[:space:]]|$)/) }
         /^URIs:/ { uri = $2 }
         /^Suites:/ { suites = $0 }
         END { if (!found) flush() }' "$f"
  done | head -n 1 | grep . && return 0
  # One-line sources: only the files there are (a missing one would fail the pipeline under pipefail).
  local lists=() f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do [ -r "$f" ] && lists+=("$f"); done
  [ "${#lists[@]}" -gt 0 ] || return 1
  awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ } if ($(i + 1) !~ /-security/) { print $i; exit } }' \
    "${lists[@]}" | grep .
}
_debian_root_mirror=${CONDACUDA_DEBIAN_MIRROR:-$(_debian_root_apt_mirror || true)} # none: said where a root must be built (below)
_debian_root_mirror=${_debian_root_mirror%/}
_debian_root_variant=minbase
# What the tests build and run in the root: the demo env (gcc, the C library's
# headers, python3 and its headers), and the wheel (python3 -m venv, with
# ensurepip's bundled pip: python3-venv depends on it).
_debian_root_packages=(gcc libc6-dev python3 python3-dev python3-venv)
_debian_root_programs=(debootstrap unshare chroot flock mount wget du)

debian_root() {
  local suite=${1:?debian_root SUITE}
  case $suite in
    bullseye | trixie) ;;
    *) fail "debian_root: unknown suite '$suite' (bullseye or trixie)" ;;
  esac
  _debian_root_check_host
  local cache=$_debian_root_cache root
  root=$cache/$suite
  if _debian_root_current "$suite" "$root"; then
    _debian_root_note_cached "$suite" "$root"
    echo "$root"
    return 0
  fi
  mkdir -p "$cache" || _debian_root_unavailable "cannot make the root cache $cache"
  local lock_fd
  exec {lock_fd}> "$cache/$suite.lock"
  local waited=$SECONDS
  flock -w "${DEBIAN_ROOT_LOCK_TIMEOUT:-900}" "$lock_fd" ||
    fail "debian_root: no lock on $cache/$suite.lock in ${DEBIAN_ROOT_LOCK_TIMEOUT:-900} s (another test building $suite?)"
  [ $((SECONDS - waited)) -lt 2 ] || note "debian root $suite: waited $((SECONDS - waited)) s for another test's build" >&2
  # Another test may have built it while this one waited.
  if ! _debian_root_current "$suite" "$root"; then
    _debian_root_build "$suite" "$root"
  else
    _debian_root_note_cached "$suite" "$root"
  fi
  exec {lock_fd}>&-
  echo "$root"
}

in_root() {
  local root=${1:?in_root ROOT SCRATCH CMD...} dir=${2:?in_root ROOT SCRATCH CMD...}
  shift 2
  local binds=()
  while [ "${1:-}" = --bind ]; do
    [ $# -ge 3 ] || fail "in_root: --bind SRC DEST"
    [ -e "$2" ] || fail "in_root: --bind $2: no such file"
    binds+=("$(realpath "$2")" "$3")
    shift 3
  done
  [ $# -gt 0 ] || fail "in_root: no command"
  [ -f "$root/etc/condacuda-test-root" ] || fail "in_root: $root is not a root of debian_root"
  root=$(realpath "$root")
  dir=$(realpath "$dir")
  mkdir -p "$dir/home" "$dir/tmp"
  chmod 1777 "$dir/tmp"
  unshare --mount --propagation private --fork --kill-child \
    bash -euc "$_debian_root_enter" in_root "$root" "$dir" "$CONDACUDA_SOURCE_DIR" \
    "$((${#binds[@]} / 2))" "${binds[@]}" "$@"
}

debian_root_mounts() {
  local root
  root=$(realpath "${1:?debian_root_mounts ROOT}")
  # /proc/self/mountinfo's 5th field is the mount point (spaces as \040).
  awk -v root="$root" '$5 == root || index($5, root "/") == 1 { print $5 }' /proc/self/mountinfo
}

# --- internals ---

# The script in_root's unshare runs (bash, in the new mount namespace, on the
# host's programs): the mounts, then chroot. Arguments: ROOT SCRATCH SRC N,
# N pairs SRC DEST of --bind, CMD...
# shellcheck disable=SC2016 # expanded by that bash
_debian_root_enter='
root=$1 dir=$2 src=$3 nbinds=$4
shift 4
mount --bind "$root" "$root"
mount -o remount,bind,ro "$root"
mount --bind "$dir" "$root/scratch"
mount --bind "$src" "$root/src"
mount -o remount,bind,ro "$root/src"
mount --bind "$dir/tmp" "$root/tmp"
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount -t tmpfs -o mode=755,size=1m,nosuid,noexec condacuda-dev "$root/dev"
for node in null zero full random urandom; do
  : > "$root/dev/$node"
  mount --bind "/dev/$node" "$root/dev/$node"
done
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mkdir "$root/dev/shm"
mount -t tmpfs -o mode=1777,size=64m,nosuid,nodev condacuda-shm "$root/dev/shm"
for ((i = 0; i < nbinds; i++)); do
  [ -e "$root$2" ] || { echo "in_root: --bind: $2 is not in the root" >&2; exit 1; }
  mount --bind "$1" "$root$2"
  mount -o remount,bind,ro "$root$2"
  shift 2
done
exec chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/scratch/home \
  LANG=C.UTF-8 TMPDIR=/tmp PYTHONDONTWRITEBYTECODE=1 "$@"
'

# Not root, a program missing, the mirror out of reach: a skip, or under CI
# (where tests/install-deps.sh installed debootstrap) a failure.
_debian_root_unavailable() {
  if [ "${CI:-}" = true ]; then fail "$1 (CI=true: the Debian root tests must run)"; fi
  skip "$1"
}

_debian_root_check_host() {
  [ "$(id -u)" = 0 ] || _debian_root_unavailable "Debian roots need root (debootstrap, mount namespaces, chroot)"
  [ -n "$_debian_root_mirror" ] ||
    _debian_root_unavailable "no Debian mirror in this machine's apt sources (set CONDACUDA_DEBIAN_MIRROR)"
  local program
  for program in "${_debian_root_programs[@]}"; do
    command -v "$program" > /dev/null ||
      _debian_root_unavailable "$program is not installed (tests/install-deps.sh test installs debootstrap)"
  done
}

# _debian_root_key SUITE: the stamp's lines that decide whether a root is the
# one wanted.
_debian_root_key() {
  printf 'suite=%s\nvariant=%s\npackages=%s\n' "$1" "$_debian_root_variant" "${_debian_root_packages[*]}"
}

# _debian_root_current SUITE ROOT: ROOT is a finished root of SUITE with the
# wanted packages.
_debian_root_current() {
  local stamp=$2/etc/condacuda-test-root
  [ -f "$stamp" ] || return 1
  [ "$(grep -E '^(suite|variant|packages)=' "$stamp")" = "$(_debian_root_key "$1")" ]
}

_debian_root_note_cached() {
  local stamp=$2/etc/condacuda-test-root built seconds size
  built=$(sed -n 's/^built=//p' "$stamp")
  seconds=$(sed -n 's/^build_seconds=//p' "$stamp")
  size=$(sed -n 's/^size_mb=//p' "$stamp")
  note "debian root $1: cached in $2 (built $built in $seconds s, $size MB)" >&2
}

# _debian_root_reachable SUITE: the mirror serves SUITE's Release file.
_debian_root_reachable() {
  wget -q --spider -T 15 -t 2 "$_debian_root_mirror/dists/$1/Release" 2> /dev/null
}

# _debian_root_build SUITE ROOT (under the lock): debootstrap into a fresh
# sibling of ROOT, cleaned, stamped, then renamed to ROOT (an older ROOT is
# renamed aside first and removed after).
_debian_root_build() {
  local suite=$1 root=$2 cache=$_debian_root_cache tmp old log start seconds size
  # What a build killed half-way left (only a build holding the lock writes them).
  rm -rf "$cache/.$suite.new."* "$cache/.$suite.old."*
  _debian_root_reachable "$suite" ||
    _debian_root_unavailable "the Debian mirror $_debian_root_mirror does not answer (dists/$suite/Release): cannot build the $suite root"
  tmp=$(mktemp -d "$cache/.$suite.new.XXXXXX")
  chmod 755 "$tmp"
  log=$cache/$suite.build.log
  note "debian root $suite: building with debootstrap --variant=$_debian_root_variant (log: $log)" >&2
  start=$SECONDS
  if ! debootstrap --variant="$_debian_root_variant" --include="$(IFS=,; echo "${_debian_root_packages[*]}")" \
    "$suite" "$tmp" "$_debian_root_mirror" > "$log" 2>&1; then
    rm -rf "$tmp"
    tail -n 15 "$log" >&2
    _debian_root_reachable "$suite" ||
      _debian_root_unavailable "the Debian mirror $_debian_root_mirror stopped answering during debootstrap $suite"
    fail "debootstrap $suite failed (log: $log)"
  fi
  seconds=$((SECONDS - start))
  # apt's downloads and lists: 140 MB that nothing in the tests uses.
  chroot "$tmp" apt-get clean
  rm -rf "$tmp"/var/lib/apt/lists/*
  mkdir -p "$tmp/scratch" "$tmp/src"
  size=$(du -sm "$tmp" | cut -f1)
  {
    _debian_root_key "$suite"
    printf 'mirror=%s\nbuilt=%s\nbuild_seconds=%s\nsize_mb=%s\ndebootstrap=%s\n' "$_debian_root_mirror" \
      "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$seconds" "$size" "$(dpkg-query -W -f='${Version}' debootstrap 2> /dev/null || echo unknown)"
  } > "$tmp/etc/condacuda-test-root"
  if [ -e "$root" ]; then
    old=$(mktemp -u "$cache/.$suite.old.XXXXXX")
    mv -T "$root" "$old"
  fi
  mv -T "$tmp" "$root"
  [ -z "${old:-}" ] || rm -rf "$old"
  note "debian root $suite: built in $seconds s, $size MB, in $root" >&2
}
