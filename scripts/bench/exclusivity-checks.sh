#!/usr/bin/env bash
# Where a release build still calls swift_beginAccess (a dynamic exclusivity check,
# docs/design.md hot-path rule 8): for each function whose mangled name matches PATTERN, the
# source line of each call. Pair it with callgrind.sh's count of the instructions spent in
# checks, and with callgrind_annotate --tree=caller on its callgrind.out for how often each
# function calls it.
#   scripts/bench/exclusivity-checks.sh [BINARY] [PATTERN]
#   scripts/bench/exclusivity-checks.sh .build-dwarf4/release/sluice 'SluiceMedia8ConsumerC'
# BINARY needs line tables (the DWARF 4 build of callgrind.sh); default PATTERN: the packet
# path's modules.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
binary="${1:-$repo/.build-dwarf4/release/sluice}"
# Single quotes: the mangled names start with a literal "$s".
default_pattern='^\$s(10SluiceWire|9SluiceRTP|15SluiceTransport|11SluiceMedia)'
pattern="${2:-$default_pattern}"
for tool in nm objdump awk; do
    command -v "$tool" >/dev/null || { echo "exclusivity-checks: $tool is missing (binutils)"; exit 1; }
done
nm --defined-only "$binary" | awk '$2 ~ /^[tT]$/ { print $3 }' | grep -E "$pattern" | sort -u |
while read -r symbol; do
    sites=$(objdump -dl --no-show-raw-insn --disassemble="$symbol" "$binary" 2>/dev/null | awk '
        /^\/.*:[0-9]+/ { location = $1; next }
        /call.*<swift_beginAccess/ { print location }')
    [[ -z $sites ]] && continue
    echo "== $(swift demangle --compact "$symbol" 2>/dev/null | cut -c1-160 || echo "$symbol")"
    while read -r location; do
        file="${location%:*}" line="${location##*:}"
        text=$(sed -n "${line}p" "$file" 2>/dev/null | sed 's/^ *//' | cut -c1-110)
        echo "  ${file#"$repo"/Sources/}:$line  $text"
    done <<< "$sites"
done
