#!/usr/bin/env bash
# The glibc floor of the install tree (issue 29), with the check packaging/
# portable/build.sh gates the packages on (tests/tools/check_manylinux.py,
# what auditwheel checks for the manylinux_2_28 tag): bin/condacuda is fully
# static, libexec/condacuda/condacuda-probe needs glibc 2.28 at most and no
# libstdc++ symbol version, nothing needs a library outside the allow-list.
# Then the check is shown to fail where it must, on programs built here: a
# GLIBC_2.34 symbol, libstdc++ linked dynamically, a DT_NEEDED outside the
# allow-list, a truncated ELF; and to pass static and static-pie programs.
source "$(dirname "$0")/lib.sh"
checker=$CONDACUDA_SOURCE_DIR/tests/tools/check_manylinux.py

note "the installed tree"
prefix=$scratch/prefix
cmake --install "$CONDACUDA_BUILD_DIR" --prefix "$prefix" > "$scratch/install.log" ||
  { cat "$scratch/install.log"; fail "cmake --install"; }
[ -f "$prefix/libexec/condacuda/condacuda-probe" ] || fail "no libexec/condacuda/condacuda-probe: not a portable build"
out=$(cd "$prefix" && python3 "$checker" --policy manylinux_2_28 .) || { echo "$out"; fail "the installed tree fails manylinux_2_28"; }
echo "$out"
grep -qx 'bin/condacuda: static (no PT_INTERP, no DT_NEEDED): no glibc floor' <<< "$out" || fail "bin/condacuda is not fully static"
probe_line=$(grep '^libexec/condacuda/condacuda-probe: ' <<< "$out") || fail "the probe was not checked"
[[ $probe_line =~ needs\ GLIBC_2\.([0-9]+)(\.[0-9]+)?\ at\ most\ \(claim\ manylinux_2_28\):\ ok$ ]] ||
  fail "the probe: $probe_line"
[ "${BASH_REMATCH[1]}" -le 28 ] || fail "the probe needs glibc 2.${BASH_REMATCH[1]}"
expect_eq "$(grep -c ': static\|: needs' <<< "$out")" 2 "ELF files in the tree (the binary and the probe)"
note "bin/condacuda $(stat -c %s "$prefix/bin/condacuda") bytes, libexec/condacuda/condacuda-probe $(stat -c %s "$prefix/libexec/condacuda/condacuda-probe") bytes (not stripped)"

note "the checker fails where auditwheel would"
cd "$scratch"
cat > floor.c << 'C'
#define _GNU_SOURCE
#include <unistd.h>
int close_all(void) { return close_range(3, ~0U, 0); }
C
cat > hello.c << 'C'
#include <stdio.h>
int main(void) { puts("hello"); return 0; }
C
cat > hello.cpp << 'C'
#include <iostream>
int main() { std::cout << "hello" << std::endl; return 0; }
C
echo 'int custom(void) { return 1; }' > custom.c
echo 'int custom(void); int use_custom(void) { return custom(); }' > user.c
mkdir bad good
cc -shared -fPIC -o bad/libfloor.so floor.c             # close_range: GLIBC_2.34
c++ -o bad/cxx-dynamic hello.cpp                         # libstdc++.so.6: GLIBCXX_3.4
cc -shared -fPIC -Wl,-soname,libcustom.so.1 -o libcustom.so.1 custom.c
cc -shared -fPIC -Wl,--no-as-needed -o bad/libuser.so user.c -L. -l:libcustom.so.1
head -c 300 bad/libfloor.so > bad/truncated.so
cc -static -o good/hello-static hello.c
cc -static-pie -o good/hello-static-pie hello.c
c++ -static -o good/cxx-static hello.cpp
echo 'not an ELF file' > good/readme.txt

expect_status 0 python3 "$checker" good > good.txt
cat good.txt
for f in hello-static hello-static-pie cxx-static; do
  grep -qx "good/$f: static (no PT_INTERP, no DT_NEEDED): no glibc floor" good.txt || fail "$f is not static for the checker"
done
grep -qx 'manylinux_2_28: 3 ELF file(s), 0 failed (1 other file(s) skipped)' good.txt || fail "the non-ELF file is not skipped"

# rejected FILE TEXT...: the checker fails on bad/FILE and its line says each TEXT.
rejected() {
  local file=$1 line
  shift
  expect_status 1 python3 "$checker" --policy manylinux_2_28 "bad/$file" > "$file.txt"
  line=$(grep "^bad/$file: " "$file.txt") || fail "no line for $file"
  echo "$line"
  local text
  for text in "$@"; do
    [[ $line == *"$text"* ]] || fail "$file: the reason does not say [$text]: $line"
  done
}
rejected libfloor.so "needs GLIBC_2.34 at most" "FAILS: GLIBC_2.34: newer than GLIBC_2.28: close_range"
rejected cxx-dynamic "GLIBCXX_3.4: libstdc++ linked dynamically (libstdc++.so.6)" "_ZNSt8ios_base4InitC1Ev"
rejected libuser.so "DT_NEEDED libcustom.so.1 is outside the manylinux allow-list"
rejected truncated.so "malformed ELF: "
# The same close_range library passes a policy at its floor.
expect_status 0 python3 "$checker" --policy manylinux_2_34 bad/libfloor.so > /dev/null
# A tree with one bad file fails as a whole; no ELF file at all is a failure too.
cp bad/libfloor.so good/
expect_status 1 python3 "$checker" good > /dev/null
expect_status 1 python3 "$checker" good/readme.txt > /dev/null
expect_status 2 python3 "$checker" --policy musllinux_1_2 good > /dev/null 2>&1
note "glibc floor: ok"
