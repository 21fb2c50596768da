#!/usr/bin/env bash
# `cmake --install` into a DESTDIR gives the documented tree; the installed
# binary finds its share folder; the installed assets are the source's; the
# man page renders without warnings; the completions are the generated ones;
# the license is in share/doc/condacuda; CPack builds a .deb with the same tree.
source "$(dirname "$0")/lib.sh"

dest=$scratch/root
DESTDIR=$dest cmake --install "$CONDACUDA_BUILD_DIR" --prefix /usr > "$scratch/install.log"

note "the documented tree"
(cd "$dest" && find . -type f -o -type l | sed 's|^\./||' | sort) > "$scratch/tree.txt"
cat "$scratch/tree.txt"
for f in usr/bin/condacuda \
         usr/libexec/condacuda/condacuda-probe \
         usr/share/condacuda/templates/releases.yml \
         usr/share/condacuda/templates/hooks/activate.sh.in \
         usr/share/condacuda/hooks/post-link.sh \
         usr/share/condacuda/hooks/pre-unlink.sh \
         usr/share/man/man1/condacuda.1 \
         usr/share/bash-completion/completions/condacuda \
         usr/share/zsh/site-functions/_condacuda \
         usr/share/fish/vendor_completions.d/condacuda.fish \
         usr/share/doc/condacuda/LICENSE; do
  grep -qx "$f" "$scratch/tree.txt" || fail "missing from the install: $f"
done
unexpected=$(grep -Ev '^usr/(bin/condacuda|libexec/condacuda/condacuda-probe|share/(condacuda|doc/condacuda|man/man1|bash-completion|zsh|fish)/)' "$scratch/tree.txt" || true)
[ -z "$unexpected" ] || fail "files outside the documented tree: $unexpected"
[ -x "$dest/usr/share/condacuda/hooks/post-link.sh" ] || fail "post-link.sh is not executable"
cmp -s "$CONDACUDA_SOURCE_DIR/LICENSE" "$dest/usr/share/doc/condacuda/LICENSE" || fail "the installed LICENSE is not the source's"
grep -q "^BSD 3-Clause License" "$dest/usr/share/doc/condacuda/LICENSE" || fail "the installed LICENSE is not BSD-3-Clause"

note "the installed binary finds its share folder; the assets there are the source's"
expect_eq "$("$dest/usr/bin/condacuda" --print-share-dir)" "$dest/usr/share/condacuda" "--print-share-dir"
(cd "$CONDACUDA_SOURCE_DIR/templates" && find . -type f | sort) > "$scratch/src-templates.txt"
while read -r f; do
  cmp -s "$CONDACUDA_SOURCE_DIR/templates/$f" "$dest/usr/share/condacuda/templates/$f" || fail "differs: templates/$f"
done < "$scratch/src-templates.txt"
expect_status 2 "$CONDACUDA" --print-share-dir > /dev/null # the build tree has no share folder
grep -q "condacuda 0.1.0" <<< "$("$dest/usr/bin/condacuda" --version)" || fail "version"
[ -x "$dest/usr/libexec/condacuda/condacuda-probe" ] || fail "the GPU child is not executable"
grep -q "condacuda-probe 0.1.0" <<< "$("$dest/usr/libexec/condacuda/condacuda-probe" --version)" || fail "probe version"

note "man page renders cleanly and names every command"
warnings=$(groff -man -Tutf8 -ww -z "$dest/usr/share/man/man1/condacuda.1" 2>&1 || true)
[ -z "$warnings" ] || fail "groff warnings: $warnings"
MANWIDTH=100 man -l "$dest/usr/share/man/man1/condacuda.1" 2> /dev/null | col -b > "$scratch/man.txt"
for c in list info doctor repair undo run lock check; do
  grep -Eq "^ {3,}$c\$" "$scratch/man.txt" || fail "man page lacks the $c command"
done
grep -q "EXIT STATUS" "$scratch/man.txt" || fail "man page lacks EXIT STATUS"

note "completions and man page are what the binary generates now"
for kind_file in bash:bash-completion/completions/condacuda zsh:zsh/site-functions/_condacuda \
                 fish:fish/vendor_completions.d/condacuda.fish man:man/man1/condacuda.1; do
  "$CONDACUDA" __generate "${kind_file%%:*}" | cmp -s - "$dest/usr/share/${kind_file#*:}" || fail "stale ${kind_file#*:}"
done

note "CPack: a .deb with the same tree"
if command -v dpkg-deb > /dev/null && command -v cpack > /dev/null; then
  (cd "$scratch" && cpack --config "$CONDACUDA_BUILD_DIR/CPackConfig.cmake" -B "$scratch/deb" > "$scratch/cpack.log" 2>&1) ||
    { cat "$scratch/cpack.log"; fail "cpack"; }
  deb=$(ls "$scratch"/deb/*.deb)
  dpkg-deb -c "$deb" | awk '{print $6}' | grep -v '/$' | sed 's|^\./||' | sort > "$scratch/deb-tree.txt"
  # CPack installs under its own prefix (/usr by default).
  diff "$scratch/tree.txt" "$scratch/deb-tree.txt" || fail "the .deb's tree differs from cmake --install --prefix /usr"
  dpkg-deb -f "$deb" Package Depends
else
  note "no dpkg-deb/cpack: the .deb is not checked"
fi
note "install layout: ok"
