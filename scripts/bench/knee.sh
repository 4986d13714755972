#!/usr/bin/env bash
# The knee (issue 4, benchmark 2): the most players of one stream that a Sluice server with
# WORKERS media workers (1) serves with under 0.1% loss and a delay p99 under 5 ms (after all joined). Steps through player counts, one
# spawned server per step, 1 publisher (640x360 VP8 at 800 kbit/s plus Opus), and prints a
# table; stops after the first step over either limit. "srv p99" is the server's own share:
# the bucket (µs) that holds 99% of the datagrams its worker handled, from receive to the
# last send they caused (sluice_worker_forward_delay_datagrams_total in /metrics). The load tester shares the machine,
# so on a small box its own CPU is part of what limits the figure: the table shows both.
#
# Runs in a private network namespace with only lo. Needs root and release builds:
#   swift build -c release
#   STEPS="25 50 100 150 200" DURATION=20 scripts/bench/knee.sh [extra sluice-loadtest flags]
# MAX_P99_MS (5) and MAX_LOSS_PERCENT (0.1) set the limits; MAX_P99_MS=100000 finds the loss
# knee alone. WORKERS (1) sets the spawned server's rtc.workers. TASKSET (unset) pins the load
# tester to that CPU list (taskset -c) and runs its server on SERVER_CPUS (default: every CPU).
# OUT (artifacts/knee) is where each step's result.json, log and metrics go. Extra arguments go
# to every sluice-loadtest run, e.g. --player-receive headers for cheaper players.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
steps="${STEPS:-25 50 100 150 200 300}"
duration="${DURATION:-20}"
out="${OUT:-$repo/artifacts/knee}"
export MAX_P99_MS="${MAX_P99_MS:-5}" MAX_LOSS_PERCENT="${MAX_LOSS_PERCENT:-0.1}"
export KNEE_WORKERS="${WORKERS:-1}" KNEE_TASKSET="${TASKSET:-}" KNEE_SERVER_CPUS="${SERVER_CPUS:-0-$(( $(nproc) - 1 ))}"
[[ "$KNEE_WORKERS" =~ ^[1-9][0-9]?$ ]] || { echo "knee: WORKERS must be a whole number from 1 to 99, not '$KNEE_WORKERS'"; exit 1; }
if [[ -n "$KNEE_TASKSET" ]]; then
    command -v taskset >/dev/null || { echo "knee: TASKSET needs taskset (util-linux)"; exit 1; }
fi
for product in sluice sluice-loadtest; do
    [[ -x .build/release/$product ]] || { echo "knee: build .build/release/$product first (swift build -c release)"; exit 1; }
done
rm -rf "$out"
mkdir -p "$out"

unshare -n bash -s -- "$out" "$duration" "$steps" "$@" <<'INNER'
set -uo pipefail
out="$1" duration="$2" steps="$3"
shift 3
ip link set lo up || exit 1
cat > "$out/sluice.json" <<JSON
{
  "server": {"host": "127.0.0.1", "port": 18580, "webRoot": "web"},
  "rtc": {"bindAddress": "127.0.0.1", "port": 21580, "workers": $KNEE_WORKERS, "announcedAddresses": ["127.0.0.1"]},
  "apps": [{"key": "defaultApp"}],
  "limits": {"maxSessions": 5000, "maxPlayersPerStream": 5000},
  "log": {"level": "warn"}
}
JSON
# The tester (and with it its spawned server, unless --spawn-cpus says otherwise) under taskset.
pin=()
if [[ -n "$KNEE_TASKSET" ]]; then
    pin=(taskset -c "$KNEE_TASKSET")
    set -- --spawn-cpus "$KNEE_SERVER_CPUS" "$@"
fi
echo "knee: rtc.workers $KNEE_WORKERS, tester on CPUs ${KNEE_TASKSET:-any}${KNEE_TASKSET:+, server on $KNEE_SERVER_CPUS}, limits loss < ${MAX_LOSS_PERCENT}% and p99 < ${MAX_P99_MS} ms${*:+, flags: $*}"
printf "%7s %6s %9s %8s %7s %7s %8s %8s %9s %10s %10s\n" players joined "pkt/s" loss "p50 ms" "p99 ms" "cpu" "µs/pkt" "tester" "tester µs" "srv p99 µs"
for players in $steps; do
    echo "knee: $players players for ${duration}s" >&2
    # The server's own forward delay (/metrics), read two seconds before the run ends.
    (sleep $((duration - 2)); curl -sf -m 5 http://127.0.0.1:18580/metrics > "$out/$players.metrics") &
    "${pin[@]}" .build/release/sluice-loadtest --spawn .build/release/sluice --spawn-config "$out/sluice.json" \
        --url ws://127.0.0.1:18580/ws --players "$players" --join-rate 50 --duration "$duration" \
        --output "$out/$players" "$@" > "$out/$players.log" 2>&1
    wait
    python3 - "$out/$players/result.json" "$out/$players.metrics" <<'PY' || break
import json, os, sys
r = json.load(open(sys.argv[1]))
c, t, s = r["totals"]["continuity"], r["totals"], r["server"]
loss = c["lost"] / max(1, c["lost"] + c["packets"])
# The steady span is missing or empty when the last join finished (or timed out) within the
# last second of the run: then the whole run's figures stand in.
steady = r["steadyDelay"] if (r.get("steadyDelay") or {}).get("count") else r["delay"]
p99 = (steady.get("p99Micros") or 0) / 1000
per_packet = s.get("steadyCPUMicrosPerPacket") or s.get("cpuMicrosPerPacket") or 0
# Server forward delay p99: the first cumulative bucket that holds 99% of the datagrams, the
# buckets summed over the workers (each has its own series, in the same bucket order).
buckets = []
try:
    totals = {}
    for line in open(sys.argv[2]):
        if line.startswith("sluice_worker_forward_delay_datagrams_total{"):
            bound = line.split('le_us="')[1].split('"')[0]
            totals[bound] = totals.get(bound, 0) + int(line.rsplit(" ", 1)[1])
    buckets = list(totals.items())
except OSError:
    pass
server_p99 = "?"
if buckets and buckets[-1][1] > 0:
    server_p99 = next(b for b, n in buckets if n >= 0.99 * buckets[-1][1])
ok = (100 * loss < float(os.environ["MAX_LOSS_PERCENT"]) and p99 < float(os.environ["MAX_P99_MS"])
      and t["failedPlayers"] == 0)
print(f"{r['options']['players']:>7} {t['joinedPlayers']:>6} {t['packetsPerSecond']:>9.0f} {100 * loss:>7.3f}% "
      f"{(steady.get('p50Micros') or 0) / 1000:>7.2f} {p99:>7.2f} {s['meanCPUPercent']:>7.1f}% "
      f"{per_packet:>8.1f} {r['clientCPUSeconds'] / max(1e-9, r['measuredSeconds']) * 100:>8.1f}% "
      f"{(r.get('tester') or {}).get('mediaCPUMicrosPerPacket') or 0:>10.2f} "
      f"{'<=' + server_p99:>10}  {'ok' if ok else 'over'}")
sys.exit(0 if ok else 1)
PY
done
INNER
