#!/usr/bin/env bash
# The fixtures of e2e.loader_glibc_2_31, _2_36 and _2_41
# (tests/e2e/loader_versions_check.sh), built by the gcc, binutils and
# ldconfig of the glibc under test: run inside a Debian root by its own bash
# (in_root ... bash /src/tests/e2e/loader_versions_fixtures.sh /scratch /src)
# or on this machine.
#
#   loader_versions_fixtures.sh WORK SRC
#
# WORK is the folder the fixtures go to, as the loader will see it; SRC the
# source tree (for tests/tools/dlopen_probe.c). It writes:
#   WORK/probe            the dlopen probe, linked against this glibc (-ldl
#                         for 2.31, --as-needed drops it on 2.34+)
#   WORK/env              a conda env without python: the dlopen experiments'
#                         roots in WORK/env/lib (doctor's minimal C host, what
#                         the probe is)
#   WORK/start/env        a conda env whose bin/python3 is the probe linked
#                         with a library that asks for an executable stack:
#                         doctor models its start-up as its host
#   WORK/cache            libraries only /etc/ld.so.cache knows, and the
#                         caches this glibc's ldconfig writes of them:
#                         new.cache (its default format) of cache/dir (a
#                         plain library, one in x86_64/, one in
#                         glibc-hwcaps/x86-64-v2/); compat.cache and
#                         old.cache (-c compat, -c old) of cache/flat (the
#                         plain one alone: Debian 12's ldconfig aborts,
#                         "double free or corruption", writing those formats
#                         of a folder with an x86_64/ subfolder)
# What the test edits or builds on this machine (tests/e2e/loader_versions.py
# patch: the load-command variants; the DT_RELR libraries, which need
# binutils 2.38's -z pack-relative-relocs) is not made here. Nothing here depends on the glibc version but
# the tools that build it.
set -euo pipefail
work=${1:?WORK} src=${2:?SRC}
cd "$work"
mkdir -p c env/conda-meta env/lib start/env/conda-meta start/env/bin start/env/lib cache
: > env/conda-meta/history
: > start/env/conda-meta/history
lib=$work/env/lib
cc=(gcc -shared -fPIC -O1)

gcc -O1 -o probe "$src/tests/tools/dlopen_probe.c" -Wl,--as-needed -ldl

# A library and a root that needs it by soname, reaching it through RUNPATH
# (or, without one, through the cache): c/leaf.c, c/root.c.
echo 'int leaf(void) { return 7; }' > c/leaf.c
echo 'int leaf(void); int root(void) { return leaf(); }' > c/root.c
# leaf_in DIR NAME: DIR/libNAME.so, soname libNAME.so.
leaf_in() {
  mkdir -p "$1"
  "${cc[@]}" -Wl,-soname,"lib$2.so" -o "$1/lib$2.so" c/leaf.c
}
# root_of OUT LINKDIR NAME [RUNPATH]: OUT needs libNAME.so (linked against
# LINKDIR's copy), with RUNPATH when given.
root_of() {
  local rp=()
  [ -z "${4:-}" ] || rp=("-Wl,--enable-new-dtags,-rpath,$4")
  "${cc[@]}" "${rp[@]}" -o "$1" c/root.c -L"$2" -l"$3"
}

# hwcaps: the dependency only in a subdirectory of the RUNPATH folder.
leaf_in "$lib/hw/x86_64" cchwlegacy
root_of "$lib/libroot_hwcaps_legacy.so" "$lib/hw/x86_64" cchwlegacy '$ORIGIN/hw'
leaf_in "$lib/hw/tls" cchwtls
root_of "$lib/libroot_hwcaps_tls.so" "$lib/hw/tls" cchwtls '$ORIGIN/hw'
leaf_in "$lib/hw/glibc-hwcaps/x86-64-v2" cchwv2
root_of "$lib/libroot_glibc_hwcaps.so" "$lib/hw/glibc-hwcaps/x86-64-v2" cchwv2 '$ORIGIN/hw'

# /etc/ld.so.cache: folders only the cache names (ld.so.conf): a plain one,
# its legacy hwcap subfolder x86_64 and its glibc-hwcaps/x86-64-v2.
leaf_in "$work/cache/flat" cccacheplain
leaf_in "$work/cache/dir" cccacheplain
leaf_in "$work/cache/dir/x86_64" cccachelegacy
leaf_in "$work/cache/dir/glibc-hwcaps/x86-64-v2" cccachev2
root_of "$lib/libroot_cache_plain.so" "$work/cache/dir" cccacheplain
root_of "$lib/libroot_cache_legacy.so" "$work/cache/dir/x86_64" cccachelegacy
root_of "$lib/libroot_cache_hwcaps.so" "$work/cache/dir/glibc-hwcaps/x86-64-v2" cccachev2
echo "$work/cache/dir" > cache/dir.conf
echo "$work/cache/flat" > cache/flat.conf
# -X: no symbolic links made; -C: this file, not /etc/ld.so.cache.
/sbin/ldconfig -X -f "$work/cache/dir.conf" -C "$work/cache/new.cache"
/sbin/ldconfig -X -c compat -f "$work/cache/flat.conf" -C "$work/cache/compat.cache"
/sbin/ldconfig -X -c old -f "$work/cache/flat.conf" -C "$work/cache/old.cache"

# VERSYM (E6): libspam.so is linked against a libccver.so with the version
# V1, and finds through its RUNPATH one built without version information.
printf 'int foo(void) { return 1; }\nint bar(void) { return 2; }\n' > c/ver.c
echo 'V1 { global: foo; bar; local: *; };' > c/ver.map
mkdir -p "$lib/versym/link" "$lib/versym/plain"
"${cc[@]}" -Wl,-soname,libccver.so -Wl,--version-script=c/ver.map -o "$lib/versym/link/libccver.so" c/ver.c
"${cc[@]}" -Wl,-soname,libccver.so -o "$lib/versym/plain/libccver.so" c/ver.c
printf 'int foo(void);\nint bar(void);\nint use(void) { return foo() + bar(); }\n' > c/spam.c
"${cc[@]}" -Wl,--enable-new-dtags,-rpath,'$ORIGIN/versym/plain' -o "$lib/libspam.so" c/spam.c -L"$lib/versym/link" -lccver

# An executable stack (PT_GNU_STACK with PF_X): one dlopened, and one the
# start-up env's program needs, then a second dlopened from that program.
"${cc[@]}" -z execstack -o "$lib/libexecstack.so" c/leaf.c
"${cc[@]}" -Wl,-soname,libccexecstart.so -z execstack -o "$work/start/env/lib/libccexecstart.so" c/leaf.c
"${cc[@]}" -z execstack -o "$work/start/env/lib/libexecstack2.so" c/leaf.c
gcc -O1 -o "$work/start/env/bin/python3" "$src/tests/tools/dlopen_probe.c" \
  -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib' -Wl,--no-as-needed -L"$work/start/env/lib" -lccexecstart -Wl,--as-needed -ldl

# Plain libraries the test rewrites one program-header field of (the
# load-command checks whose texts changed) and one with an ABI note asking
# for Linux 99.0.0 (the kernel-version check of open_verify).
for name in misaligned align2m alignsmall; do
  "${cc[@]}" -o "$lib/lib$name.so" c/leaf.c
done
cat > c/abitag.s << 'S'
	.section .note.ABI-tag,"a",@note
	.p2align 2
	.long 4, 16, 1
	.asciz "GNU"
	.long 0, 99, 0, 0
	.section .note.GNU-stack,"",@progbits
S
"${cc[@]}" -Wl,--build-id=none -o "$lib/libabitag.so" c/leaf.c c/abitag.s
