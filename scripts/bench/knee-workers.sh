#!/usr/bin/env bash
# The loss knee of one stream with one media worker and with two (issue 9: "with rtc.workers 2,
# the no-loss knee of one stream is at least 1.7x the knee with one worker"). Runs
# scripts/bench/knee.sh twice, WORKERS=1 then WORKERS=2, with MAX_P99_MS=100000 (loss alone
# decides) and cheap players (--player-receive headers: no SRTP unprotect in the tester, which
# shares the machine), and prints both knees and their ratio. A knee is the largest step with
# loss under MAX_LOSS_PERCENT (0.1) before the first step over it; when no step is over, it is
# at least the last step (printed as ">=N", and the ratio is then a bound, not a figure).
#
# Needs root and release builds (swift build -c release). STEPS (player counts), DURATION (20),
# TASKSET and SERVER_CPUS are passed on to knee.sh, and so are extra flags:
#   STEPS="200 400 600 800 1000" DURATION=20 scripts/bench/knee-workers.sh
#   TASKSET=1 STEPS="100 200" DURATION=8 scripts/bench/knee-workers.sh --video-bitrate 1000
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
out="$repo/artifacts/knee-workers"
export STEPS="${STEPS:-200 300 400 500 600 700 800 1000}"
export MAX_P99_MS=100000
rm -rf "$out"
mkdir -p "$out"

# knee.sh prints one row per step, "ok" or "over" last; the knee is the last "ok" before the
# first "over" (knee.sh stops there).
knee_of() {
    awk '$NF == "ok" { last = $1 } $NF == "over" { over = 1; exit } END {
        if (last == "") print "none"; else if (over) print last; else print ">=" last }' "$1"
}

for workers in 1 2; do
    echo "==== knee-workers: WORKERS=$workers, STEPS=\"$STEPS\""
    WORKERS=$workers OUT="$out/w$workers" scripts/bench/knee.sh --player-receive headers "$@" | tee "$out/w$workers.txt"
    status=${PIPESTATUS[0]}
    (( status == 0 )) || { echo "knee-workers: knee.sh failed with status $status at WORKERS=$workers"; exit 1; }
done

k1="$(knee_of "$out/w1.txt")"
k2="$(knee_of "$out/w2.txt")"
python3 - "$k1" "$k2" <<'PY' | tee "$out/summary.txt"
import sys
k1, k2 = sys.argv[1], sys.argv[2]
print(f"loss knee of one stream, players: rtc.workers 1: {k1}, rtc.workers 2: {k2}")
def value(k):
    return None if k == "none" else int(k.lstrip(">="))
a, b = value(k1), value(k2)
if a and b:
    bound = k1.startswith(">=") or k2.startswith(">=")
    print(f"ratio 2 workers / 1 worker: {b / a:.2f}" + (" (a bound: a knee lies past the last step; add STEPS)" if bound else ""))
else:
    print("ratio: not defined (a run had no step without loss; lower STEPS)")
PY
