#!/usr/bin/env bash
# Builds the Debian package sluice_<version>_amd64.deb (docs/deploy.md installs it).
#   scripts/package.sh              into artifacts/package/
#   scripts/package.sh DIR          into DIR/
#   scripts/package.sh FILE.deb     as FILE.deb
# The binary links the Swift standard library and Foundation statically, so the host needs no
# Swift toolchain; Depends is what dpkg-shlibdeps finds for the Debian libraries it does link.
# Sources of the package's own files: packaging/deb/. Needs dpkg-dev and binutils (strip),
# which the Swift toolchain's own apt dependencies already bring.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
target="${1:-$repo/artifacts/package}"
src="$repo/packaging/deb"

# Its own scratch path, so the ordinary `swift build -c release` (.build/) is never relinked
# statically under the tests' feet. --disable-local-rpath: SwiftPM's default RUNPATH $ORIGIN
# would make the loader search /usr/bin for libraries (lintian: custom-library-search-path).
# -z now: the GOT fully read-only after start, as Debian's hardening flags link (bindnow).
echo "package: swift build -c release --static-swift-stdlib (scratch path .build-static)"
start=$(date +%s)
swift build -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now \
    --scratch-path .build-static --product sluice
echo "package: static build in $(( $(date +%s) - start ))s"
binary=.build-static/release/sluice

# One version: SluiceVersion.swift, as the built binary prints it. The browser SDK the package
# serves must say the same.
version="$("$binary" --version | sed -n 's/^sluice //p')"
source_version="$(scripts/sluice-version.sh)"
[[ $version == "$source_version" ]] || {
    echo "package: the binary says $version, SluiceVersion.swift $source_version" >&2; exit 1; }
sdk_version="$(sed -n "s/^export const VERSION = '\(.*\)';/\1/p" web/sdk/session.mjs)"
[[ $sdk_version == "$version" ]] || {
    echo "package: web/sdk/session.mjs VERSION is '$sdk_version', the server $version: make them agree" >&2; exit 1; }

if [[ $target == *.deb ]]; then deb="$target"; else deb="$target/sluice_${version}_amd64.deb"; fi
mkdir -p "$(dirname "$deb")"
work="$(mktemp -d /tmp/sluice-package.XXXXXX)"
trap 'rm -rf "$work"' EXIT
root="$work/root"
umask 022

install -D -m 0755 "$binary" "$root/usr/bin/sluice"
# What dh_strip does: no symbol table, no .comment or .note (Swift's metadata sections stay).
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/sluice"
# The point of the static build: nothing may come from the toolchain (nor be missing) on a host
# without it. scripts/check-package.sh checks the extracted package the same way, and more.
if env -u LD_LIBRARY_PATH ldd "$root/usr/bin/sluice" | grep -E '/opt/swift|not found'; then
    echo "package: the binary needs libraries from the Swift toolchain or missing ones (above)" >&2; exit 1
fi
install -D -m 0644 "$src/sluice.json" "$root/etc/sluice/sluice.json"
install -D -m 0644 "$src/sluice.service" "$root/lib/systemd/system/sluice.service"
# The web root as the server serves it from the repo: web/'s tracked files, nothing stray.
git ls-files -z web | while IFS= read -r -d '' file; do
    install -D -m 0644 "$file" "$root/usr/share/sluice/${file}"
done
doc="$root/usr/share/doc/sluice"
install -D -m 0644 "$src/copyright" "$doc/copyright"
# index.html is the demo page the server serves, not documentation; lintian is told so.
install -D -m 0644 "$src/lintian-overrides" "$root/usr/share/lintian/overrides/sluice"
mkdir -p "$root/usr/share/man/man1"
gzip -9n < "$src/sluice.1" > "$root/usr/share/man/man1/sluice.1.gz"
# A native package's changelog (the version has no Debian revision): one entry for this build,
# dated by the commit, so that two builds of one commit are the same.
commit="$(git rev-parse --short HEAD)"
dirty=""; git diff --quiet HEAD -- 2>/dev/null || dirty=" with uncommitted changes"
# The project has no mail domain yet: a placeholder under .example (RFC 2606) that lintian
# accepts; set SLUICE_MAINTAINER to a real address for packages that leave your hands.
maintainer="${SLUICE_MAINTAINER:-Sluice developers <dev@sluice.example>}"
{
    echo "sluice ($version) unstable; urgency=medium"
    echo
    echo "  * Sluice $version, built from commit $commit$dirty."
    echo
    echo " -- $maintainer  $(git log -1 --format=%aD HEAD)"
} | gzip -9n > "$doc/changelog.gz"

# Depends: dpkg-shlibdeps maps each NEEDED library to the package that ships it, with the
# version its symbols need. It reads debian/control, so it gets a minimal one in $work.
mkdir -p "$work/debian"
printf 'Source: sluice\n\nPackage: sluice\nArchitecture: amd64\n' > "$work/debian/control"
shlibs="$(cd "$work" && dpkg-shlibdeps -O "root/usr/bin/sluice" 2>"$work/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p')"
[[ -n $shlibs ]] || { cat "$work/shlibdeps.log" >&2; echo "package: dpkg-shlibdeps found nothing" >&2; exit 1; }
grep -v 'binaries to analyze should already be installed' "$work/shlibdeps.log" >&2 || true

mkdir -p "$root/DEBIAN"
install -m 0755 "$src/postinst" "$src/prerm" "$src/postrm" "$root/DEBIAN/"
echo /etc/sluice/sluice.json > "$root/DEBIAN/conffiles"
# adduser: postinst creates the system user with it.
cat > "$root/DEBIAN/control" <<CONTROL
Package: sluice
Version: $version
Architecture: amd64
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: adduser, $shlibs
Section: net
Priority: optional
Description: WebRTC selective forwarding unit
 Sluice relays WebRTC media between publishers and players without
 transcoding: simulcast layers chosen per player, RTX, Opus RED, recording
 to WebM or MP4, data channels, 1:1 calls, WHIP and WHEP, and an
 origin/edge cluster over Redis.
 .
 This package runs it as a hardened systemd service (sluice.service) with
 /etc/sluice/sluice.json, and serves the browser demo and SDK from
 /usr/share/sluice/web.
CONTROL
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
    > "$root/DEBIAN/md5sums"

SOURCE_DATE_EPOCH="$(git log -1 --format=%ct HEAD)" \
    dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "package: $deb ($(stat -c %s "$deb") bytes; Depends: adduser, $shlibs)"
