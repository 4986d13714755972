#!/usr/bin/env bash
# Load-tester smoke run (CI stage `loadtest`): inside a private network namespace with only
# `lo`, sluice-loadtest spawns the release server on free ports and runs three short scenarios
# with --assert-no-loss: 1 publisher x 5 players without simulcast, then with 3-layer
# simulcast, then players spread over two --urls (127.0.0.1 and 127.0.0.2, the same server
# listening on 0.0.0.0 in the namespace) with --player-receive headers, where each URL must
# have had its players join and receive. It fails only on loss, a duplicate, a sequence
# discontinuity, a failed join or a URL without players, never on timing. result.json, report.html and server.log of each run go to
# artifacts/loadtest/<run>/. Then issue 9's legs (scripts/loadtest-scale.py, in the same
# namespace): 1 publisher x LOADTEST_SCALE_PLAYERS players on rtc.workers 1, on rtc.workers 2
# (players on both workers, one hand-over per packet), and on a 2-node cluster (Redis, node1 on
# 127.0.0.1 publishing, node2 on 127.0.0.2; one relay link, one copy of the stream on it, not
# one per player); figures (players without loss, server CPU per forwarded packet, the link's
# packets) in artifacts/loadtest/figures.json and a table at the end. Then issue 10's legs: 10
# publishers x 2 players on one worker, plain and with every stream recorded (`--record on`):
# the server CPU per recorded stream, the players' loss and delay in both, and one closed file
# per stream. Needs root, redis-server and a release build (swift build -c release).
#   LOADTEST_SECONDS=6 LOADTEST_PLAYERS=5 LOADTEST_SCALE_SECONDS=8 LOADTEST_SCALE_PLAYERS=30 scripts/loadtest-smoke.sh
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
out="$repo/artifacts/loadtest"
seconds="${LOADTEST_SECONDS:-6}"
players="${LOADTEST_PLAYERS:-5}"
scale_seconds="${LOADTEST_SCALE_SECONDS:-8}"
scale_players="${LOADTEST_SCALE_PLAYERS:-30}"

for tool in unshare ip python3 redis-server; do
    command -v "$tool" >/dev/null || { echo "loadtest: $tool is missing"; exit 1; }
done
for product in sluice sluice-loadtest; do
    if [[ ! -x .build/release/$product ]]; then
        echo "loadtest: building .build/release/$product"
        swift build -c release --product "$product" || exit 1
    fi
done
rm -rf "$out"
mkdir -p "$out"

# Everything below runs in the namespace: the ports are picked there, where only these
# processes live, and nothing can leave 127.0.0.0/8.
unshare -n bash -s -- "$out" "$seconds" "$players" "$scale_seconds" "$scale_players" <<'INNER'
set -uo pipefail
out="$1" seconds="$2" players="$3" scale_seconds="$4" scale_players="$5"
ip link set lo up || exit 1

# A free TCP port for signaling and a media port free for UDP and for TCP (ICE-TCP listens on
# the same number), all bound together and released.
read -r http_port rtc_port < <(python3 - <<'PY'
import socket
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM); t.bind(("127.0.0.1", 0))
while True:
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).bind(("127.0.0.1", u.getsockname()[1]))
        break
    except OSError:
        continue
print(t.getsockname()[1], u.getsockname()[1])
PY
)
config="$out/sluice.json"
cat > "$config" <<JSON
{
  "server": {"host": "127.0.0.1", "port": $http_port, "webRoot": "web", "drainSeconds": 0},
  "rtc": {"bindAddress": "127.0.0.1", "port": $rtc_port, "workers": 1, "announcedAddresses": ["127.0.0.1"]},
  "apps": [{"key": "defaultApp"}],
  "log": {"level": "warn"}
}
JSON

failed=0
run() {
    local name="$1"
    shift
    echo "==== loadtest $name: 1 publisher x $players players, ${seconds}s $*"
    .build/release/sluice-loadtest --spawn .build/release/sluice --spawn-config "$config" \
        --publishers 1 --players "$players" --duration "$seconds" \
        --join-rate 10 --join-timeout 60 --key-frame-interval 1 --assert-no-loss --output "$out/$name" "$@"
    local rc=$?
    echo "==== loadtest $name: exit $rc (artifacts/loadtest/$name/report.html)"
    (( rc == 0 )) || failed=1
}
url="ws://127.0.0.1:$http_port/ws"
run plain --url "$url" --simulcast off
run simulcast --url "$url" --simulcast on --video-bitrate 1200

# Two URLs into one server: it listens on every address of the namespace, which has only lo.
sed 's/"host": "127.0.0.1"/"host": "0.0.0.0"/' "$out/sluice.json" > "$out/sluice-any.json"
config="$out/sluice-any.json"
run two-urls --url "ws://127.0.0.1:$http_port/ws,ws://127.0.0.2:$http_port/ws" --player-receive headers
python3 - "$out/two-urls/result.json" <<'PY' || failed=1
import json, sys
r = json.load(open(sys.argv[1]))
per = r["totals"]["perURL"]
print("==== loadtest two-urls: " + ", ".join(f"{u['url']} {u['joined']}/{u['players']} joined, {u['packets']} packets" for u in per))
ok = len(per) == 2 and all(u["players"] > 0 and u["joined"] == u["players"] and u["packets"] > 0 for u in per)
ok = ok and {p["url"] for p in r["players"] if p["joined"]} == set(r["urls"])
if not ok:
    print("==== loadtest two-urls: FAILED: a URL had no players, or not all of its players joined and received")
sys.exit(0 if ok else 1)
PY

# Issue 9: one worker, two workers, a 2-node cluster; figures in artifacts/loadtest/figures.json.
python3 scripts/loadtest-scale.py "$out" "$scale_seconds" "$scale_players" || failed=1
exit $failed
INNER
