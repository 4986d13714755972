#!/usr/bin/env bash
# Can an app depend on SluiceClient by version? (issue 13, "The SDK as a dependency")
#
# SwiftPM refuses a versioned dependency whose products' targets use unsafeFlags, and the
# root package never sees that refusal: only a package that depends on Sluice does. So this
# makes one. The current tree (committed or not, as `git ls-files` lists it) goes into a
# throwaway git repo under /tmp tagged with Sluice's version (SluiceVersion.swift, through
# scripts/sluice-version.sh: the tag an app would depend on); a throwaway app package beside
# it depends on it with .package(url: "file://...", from: "<version>"), imports SluiceClient and uses its
# types; `swift build` builds it (debug: only the client's own modules). Fails if SwiftPM
# refuses the dependency or the build fails. No network: a file:// URL resolves offline.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d /tmp/sluice-sdk-dependency.XXXXXX)"
trap 'rm -rf "$work"' EXIT
version="$("$repo/scripts/sluice-version.sh")"

echo "check-sdk-dependency: copying the tree into $work/sluice (a git repo tagged $version)"
mkdir -p "$work/sluice"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' file; do [[ -e $file ]] && printf '%s\0' "$file"; done |
    tar --null -T - -cf -) | tar -C "$work/sluice" -xf -
git -C "$work/sluice" init -q
git -C "$work/sluice" add -A
git -C "$work/sluice" -c user.name=ci -c user.email=ci@localhost commit -q -m "sluice under test"
git -C "$work/sluice" tag "$version"

mkdir -p "$work/app/Sources/App"
cat > "$work/app/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "App",
    dependencies: [.package(url: "file://$work/sluice", from: "$version")],
    targets: [
        .executableTarget(name: "App",
                          dependencies: [.product(name: "SluiceClient", package: "sluice")],
                          swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)
SWIFT
cat > "$work/app/Sources/App/main.swift" <<'SWIFT'
import SluiceClient

// Types from the SDK's signaling and (on Linux) media parts; nothing is run.
let constraints = StreamConstraints()
print("SluiceClient links: signaling", type(of: constraints))
#if os(Linux)
let configuration = PeerConnection.Configuration(role: .play)
print("SluiceClient links: media", configuration.role)
#endif
SWIFT

echo "check-sdk-dependency: swift build of an app that depends on SluiceClient from: $version"
cd "$work/app"
start=$(date +%s)
if ! swift build 2>&1 | tee "$work/build.log"; then
    if grep -qi "unsafe" "$work/build.log"; then
        echo "check-sdk-dependency: FAILED: SwiftPM refuses Sluice as a versioned dependency (unsafeFlags)"
    else
        echo "check-sdk-dependency: FAILED: the app did not build against SluiceClient"
    fi
    exit 1
fi
.build/debug/App
echo "check-sdk-dependency: passed: an app builds against SluiceClient $version by version in $(( $(date +%s) - start ))s"
