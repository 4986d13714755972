#!/usr/bin/env bash
# Builds and runs the server: scripts/run.sh [--config FILE] [other sluice flags]
# Installs the C libraries if needed, builds the release binary, then execs it. Without
# --config it uses conf/sluice.json. Paths given are taken relative to the caller's directory.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$repo/scripts/install-deps.sh" >&2
swift build -c release --package-path "$repo" >&2

has_config=0
for arg in "$@"; do
    case "$arg" in --config|--config=*) has_config=1 ;; esac
done
if [[ $has_config == 0 ]]; then
    set -- --config "$repo/conf/sluice.json" "$@"
fi
exec "$repo/.build/release/sluice" "$@"
