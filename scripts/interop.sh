#!/usr/bin/env bash
# Runs the interop suite (interop/) inside a private network namespace that has only `lo`,
# so nothing it starts can send past 127.0.0.0/8. Needs root, .venv (scripts/install-deps.sh
# --test) and the release server (swift build -c release). Arguments go to pytest:
#   scripts/interop.sh -k test_wait_play_resumes
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
for tool in unshare ip; do
    command -v "$tool" >/dev/null || { echo "interop: $tool is missing (util-linux, iproute2)"; exit 1; }
done
[[ -x .venv/bin/python ]] || { echo "interop: .venv is missing: run scripts/install-deps.sh --test"; exit 1; }

unshare -n bash -c 'ip link set lo up && exec .venv/bin/python -m pytest interop -v --durations=10 "$@"' \
    interop "$@"
rc=$?
# pytest's 5 means no test ran: that proves nothing, so it is a failure like any other.
if (( rc == 5 )); then echo "interop: pytest ran no test"; fi
exit $rc
