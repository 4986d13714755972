#!/usr/bin/env bash
# Checks the browser SDK's TypeScript declarations (web/sdk/sluice.d.ts and web/sdk/types/), two ways:
#   1. tsc --noEmit --strict compiles web/sdk/types-check/example.ts, a page that uses every
#      public call, against the declarations (web/sdk/types-check/tsconfig.json);
#   2. scripts/check-sdk-exports.mjs imports the SDK's ES modules under node and compares their
#      exports and classes' members with the declarations, both ways.
# Needs Debian's tsc (node-typescript, which brings nodejs): scripts/install-deps.sh --test.
# Fails when tsc is missing: a check that cannot run has proved nothing.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

tsc_bin="$(command -v tsc || true)"
if [[ -z $tsc_bin ]]; then
    echo "check-sdk-types: tsc is missing: apt-get install node-typescript (scripts/install-deps.sh --test)" >&2
    exit 1
fi
command -v node >/dev/null || { echo "check-sdk-types: node is missing (nodejs)" >&2; exit 1; }

echo "check-sdk-types: $("$tsc_bin" --version) on web/sdk/types-check/example.ts"
"$tsc_bin" -p web/sdk/types-check --noEmit --strict

# The compiler API from the same package as the tsc found: /usr/bin/tsc links to
# <package>/bin/tsc. (A node from another source does not search Debian's /usr/share/nodejs.)
typescript_dir="$(dirname "$(dirname "$(readlink -f "$tsc_bin")")")"
node scripts/check-sdk-exports.mjs "$typescript_dir"
echo "check-sdk-types: OK"
