#!/usr/bin/env bash
# User-space instructions per forwarded packet, under callgrind (issue 4, benchmark 3).
#
# A fixed forwarding run: the server runs under valgrind --tool=callgrind with collection off;
# sluice-loadtest joins 1 publisher x PLAYERS players (640x360 VP8 at 800 kbit/s plus Opus);
# once every player has joined, collection is switched on for MEASURE seconds, then off. The
# instructions of the server in that window (Ir, every thread) over the datagrams its workers
# sent in the same window (/metrics) is the figure: ingest, SRTP both ways, fan-out, RTCP and
# timers included, handshakes left out. Kernel work (the syscalls) is not in it. The count
# still varies from run to run on one binary, by up to about 4%: which timers, RTCP and probes
# fall in the window against how many datagrams, and how many datagrams each recvmmsg batch
# takes (the load of the machine). So the script measures RUNS times (default 3, each its own
# server) and reports the median, with the spread (lowest, highest) beside it; compare two
# builds by alternating them. artifacts/callgrind/result.json holds the median as
# instructionsPerPacket and each run under runs; run-N/ holds each run's callgrind.out.
#
# Runs in a private network namespace with only lo. Needs root, valgrind, and release builds
# with DWARF 4 (valgrind 3.19 reads no DWARF 5):
#   swift build -c release --scratch-path .build-dwarf4 -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4
#   BIN=.build-dwarf4/release PLAYERS=10 MEASURE=10 RUNS=3 scripts/bench/callgrind.sh
# WORKERS (default 1) sets rtc.workers: with 2, the players are spread over both workers and
# the figure includes the cross-worker hand-over (docs/design.md "One stream on every worker").
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
players="${PLAYERS:-10}"
workers="${WORKERS:-1}"
measure="${MEASURE:-10}"
runs="${RUNS:-3}"
# Where the DWARF-4 release build is (a scratch path keeps it apart from the normal build).
bin="${BIN:-$repo/.build/release}"
out="$repo/artifacts/callgrind"
for tool in valgrind callgrind_control callgrind_annotate unshare python3 curl; do
    command -v "$tool" >/dev/null || { echo "callgrind: $tool is missing (apt-get install valgrind curl)"; exit 1; }
done
for product in sluice sluice-loadtest; do
    [[ -x $bin/$product ]] || { echo "callgrind: build $bin/$product first (see above)"; exit 1; }
done
rm -rf "$out"
mkdir -p "$out"

# measure_once DIR: one server under callgrind, one load test; DIR/run.json gets its figure.
measure_once() {
unshare -n bash -s -- "$1" "$players" "$measure" "$bin" "$workers" <<'INNER'
set -uo pipefail
out="$1" players="$2" measure="$3" bin="$4" workers="$5"
mkdir -p "$out"
ip link set lo up || exit 1
token="callgrind-$(date +%s)-token"
cat > "$out/sluice.json" <<JSON
{
  "server": {"host": "127.0.0.1", "port": 18480, "webRoot": "web"},
  "rtc": {"bindAddress": "127.0.0.1", "port": 21480, "workers": $workers, "announcedAddresses": ["127.0.0.1"]},
  "apps": [{"key": "defaultApp"}],
  "admin": {"token": "$token"},
  "log": {"level": "warn"}
}
JSON
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out/callgrind.out" \
    "$bin/sluice" --config "$out/sluice.json" > "$out/server.log" 2>&1 &
server=$!
for _ in $(seq 1 300); do
    curl -sf http://127.0.0.1:18480/health >/dev/null && break
    sleep 0.2
done
sent() {
    curl -sf -H "Authorization: Bearer $token" http://127.0.0.1:18480/metrics |
        awk '/^sluice_worker_datagrams_sent_total/ { total += $NF } END { printf "%d", total }'
}
# Joining under valgrind is slow: give it a generous timeout and a run long enough to measure.
"$bin/sluice-loadtest" --url ws://127.0.0.1:18480/ws --players "$players" --join-rate 2 \
    --join-timeout 120 --duration $((measure + 60)) --output "$out/loadtest" > "$out/loadtest.log" 2>&1 &
tester=$!
for _ in $(seq 1 600); do
    grep -q "joined $players/$players" "$out/loadtest.log" 2>/dev/null && break
    sleep 0.5
done
sleep 3
before=$(sent)
callgrind_control -i on "$server" >/dev/null 2>&1
sleep "$measure"
callgrind_control -i off "$server" >/dev/null 2>&1
after=$(sent)
kill "$tester" 2>/dev/null; wait "$tester" 2>/dev/null
kill -TERM "$server"; wait "$server"
callgrind_annotate "$out"/callgrind.out* > "$out/annotate.txt" 2>/dev/null
ir=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$out/annotate.txt")
# Swift's dynamic exclusivity checks (swift_beginAccess and what it calls, swift_endAccess):
# a part of the figure worth watching on its own (docs/design.md, hot-path rule 8).
access=$(awk '/swift_beginAccess|swift_endAccess|AccessSet::insert/ { gsub(",", "", $1); total += $1 }
              END { printf "%d", total }' "$out/annotate.txt")
python3 - "$ir" "$access" "$before" "$after" "$out" <<'PY'
import json, sys
ir, access, before, after, out = sys.argv[1:]
ir, access, packets = int(ir or 0), int(access or 0), int(after or 0) - int(before or 0)
json.dump({"instructions": ir, "datagramsSent": packets,
           "instructionsPerPacket": round(ir / packets) if packets else None,
           "exclusivityCheckInstructionsPerPacket": round(access / packets) if packets else None},
          open(f"{out}/run.json", "w"), indent=2)
print(f"callgrind: run: {ir:,} instructions over {packets:,} datagrams"
      + (f", {round(ir / packets):,} per packet ({round(access / packets):,} in exclusivity checks)" if packets else
         " (no packets forwarded in the window: see server.log, loadtest.log)"))
PY
INNER
}

for i in $(seq 1 "$runs"); do
    measure_once "$out/run-$i"
done
python3 - "$out" "$runs" "$players" "$measure" <<'PY'
import json, os, statistics, sys
out, runs, players, measure = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
each = []
for i in range(1, runs + 1):
    path = f"{out}/run-{i}/run.json"
    each.append(json.load(open(path)) if os.path.exists(path) else {"instructionsPerPacket": None})
good = [r for r in each if r.get("instructionsPerPacket")]
if len(good) < runs:
    print(f"callgrind: {runs - len(good)} of {runs} runs forwarded no packets in the window "
          f"(see {out}/run-N/server.log, loadtest.log)")
    json.dump({"players": players, "measuredSeconds": measure, "runs": each}, open(f"{out}/result.json", "w"), indent=2)
    sys.exit(1)
figures = sorted(r["instructionsPerPacket"] for r in good)
median = round(statistics.median(figures))
checks = round(statistics.median(r["exclusivityCheckInstructionsPerPacket"] for r in good))
middle = sorted(good, key=lambda r: r["instructionsPerPacket"])[(len(good) - 1) // 2]
result = {"players": players, "measuredSeconds": measure,
          "instructions": middle["instructions"], "datagramsSent": middle["datagramsSent"],
          "instructionsPerPacket": median, "lowest": figures[0], "highest": figures[-1],
          "exclusivityCheckInstructionsPerPacket": checks, "runs": each}
json.dump(result, open(f"{out}/result.json", "w"), indent=2)
print(f"callgrind: {middle['instructions']:,} instructions over {middle['datagramsSent']:,} datagrams sent "
      f"in {measure} s with {players} players (the median run of {runs})")
print(f"callgrind: {median:,} user-space instructions per forwarded packet "
      f"(median of {runs} runs; lowest {figures[0]:,}, highest {figures[-1]:,}, "
      f"spread {figures[-1] - figures[0]:,})")
print(f"callgrind: of which {checks:,} in Swift's dynamic exclusivity checks (median)")
PY
status=$?
echo "callgrind: annotate with callgrind_annotate $out/run-1/callgrind.out* | head -60"
exit $status
