#!/usr/bin/env bash
# SRTP cost per 1,100-byte packet, protect and unprotect, on libsrtp2 (Debian's, on NSS) and on
# Sluice's own SRTP over OpenSSL, both profiles, for 1, 200 and 1,000 transports (an outbound
# and an inbound session each, 3 SSRCs per session). Thread CPU time, median of 3 runs; prints
# a markdown table (Tests/SluiceTransportTests/SRTPBenchmarkTests.swift says how it measures).
#   scripts/bench/srtp.sh
#   SESSIONS=1,50 scripts/bench/srtp.sh     other transport counts
#   BACKENDS=openssl scripts/bench/srtp.sh  one back end (openssl, libsrtp)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
export SLUICE_SRTP_BENCH=1
[[ -n ${SESSIONS:-} ]] && export SLUICE_SRTP_BENCH_SESSIONS="$SESSIONS"
[[ -n ${BACKENDS:-} ]] && export SLUICE_SRTP_BENCH_BACKENDS="$BACKENDS"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! swift test -c release --filter 'SRTPBenchmark' > "$log" 2>&1; then
    tail -n 40 "$log"
    echo "srtp bench: failed"
    exit 1
fi
# The summary the test prints last: its first line, then the table.
awk '/^SRTP per / { found = 1; print; next } found && /^\|/ { print } found && !/^\|/ { found = 0 }' "$log"
