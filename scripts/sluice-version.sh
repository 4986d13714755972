#!/usr/bin/env bash
# Prints Sluice's version as Sources/SluiceServer/SluiceVersion.swift sets it: the one place it
# is written (`sluice --version` prints it). The Debian package (scripts/package.sh), the SDK
# dependency check's git tag (scripts/check-sdk-dependency.sh) and the browser SDK's VERSION
# (web/sdk/session.mjs, checked by package.sh) follow it.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="$(sed -n 's/^ *public static let string = "\([0-9][0-9A-Za-z.+~-]*\)".*/\1/p' \
    "$repo/Sources/SluiceServer/SluiceVersion.swift")"
[[ -n $version ]] || { echo "sluice-version: no version found in SluiceVersion.swift" >&2; exit 1; }
echo "$version"
