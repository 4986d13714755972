#!/usr/bin/env bash
# Runs one scenario against Sluice and then against Janus's VideoRoom (Debian's janus
# package), on the same machine with the same load tester, and prints per-server figures and
# their ratios (Janus / Sluice). Everything runs inside a private network namespace that has
# only `lo` and a veth pair; nothing can leave 127.0.0.0/8.
#
# Janus (libnice) gathers no candidate on a loopback interface, so the veth carries
# 127.0.0.2/32 and Janus's ice_enforce_list names it: its candidate is 127.0.0.2, which is
# local to the namespace like the rest of 127.0.0.0/8. Janus runs ICE-lite (ice_lite), because
# the Swift client is always the controlling ICE agent, also when Janus makes the offer.
#
#   scripts/bench/compare-janus.sh                       # 1 publisher x 40 players, 20 s
#   PLAYERS=100 DURATION=30 scripts/bench/compare-janus.sh --simulcast off --audio on
#   GSO=false PLAYERS=200 scripts/bench/compare-janus.sh     # Sluice without UDP GSO (rtc.gso)
# Extra arguments go to both sluice-loadtest runs. Needs root (it installs Debian's janus when
# missing) and `swift build -c release --product sluice --product sluice-loadtest`. Output:
# artifacts/compare-janus/{sluice,janus}/ (result.json, report.html, server logs) and
# artifacts/compare-janus/comparison.txt.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
out="$repo/artifacts/compare-janus"
players="${PLAYERS:-40}"
seconds="${DURATION:-20}"
gso="${GSO:-true}"
[[ "$gso" == true || "$gso" == false ]] || { echo "compare-janus: GSO must be true or false"; exit 1; }
janus_bin="${JANUS:-$(command -v janus || echo /usr/bin/janus)}"

for tool in unshare ip python3; do
    command -v "$tool" >/dev/null || { echo "compare-janus: $tool is missing"; exit 1; }
done
if [[ ! -x "$janus_bin" ]]; then
    echo "compare-janus: installing janus from Debian (apt-get install janus)"
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends janus; } ||
        { echo "compare-janus: could not install janus"; exit 1; }
    janus_bin="$(command -v janus || echo /usr/bin/janus)"
fi
for product in sluice sluice-loadtest; do
    [[ -x .build/release/$product ]] || { echo "compare-janus: build it first: swift build -c release --product $product"; exit 1; }
done
rm -rf "$out"
mkdir -p "$out"

unshare -n bash -s -- "$out" "$players" "$seconds" "$janus_bin" "$gso" "$@" <<'INNER'
set -uo pipefail
out="$1" players="$2" seconds="$3" janus_bin="$4" gso="$5"
shift 5
ip link set lo up || exit 1
ip link add lt-janus type veth peer name lt-peer || exit 1
# libnice sends from its 127.0.0.2 socket through the veth, so the packets come back in on
# lt-peer with a local source address: accept_local and no reverse-path filter let them in.
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv4.conf.all.route_localnet=1 \
    net.ipv4.conf.all.accept_local=1 net.ipv4.conf.all.rp_filter=0 || exit 1
for dev in lt-janus lt-peer; do
    sysctl -qw "net.ipv4.conf.$dev.accept_local=1" "net.ipv4.conf.$dev.route_localnet=1" \
        "net.ipv4.conf.$dev.rp_filter=0" || exit 1
done
ip addr add 127.0.0.2/32 dev lt-janus
ip link set lt-janus up
ip link set lt-peer up

read -r http_port rtc_port janus_port < <(python3 - <<'PY'
import socket
t = socket.socket(); t.bind(("127.0.0.1", 0))
j = socket.socket(); j.bind(("127.0.0.1", 0))
# The media port must be free for TCP too (Sluice's ICE-TCP listens on the same number).
while True:
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
    try:
        socket.socket().bind(("127.0.0.1", u.getsockname()[1]))
        break
    except OSError:
        continue
print(t.getsockname()[1], u.getsockname()[1], j.getsockname()[1])
PY
)

common=(--publishers 1 --players "$players" --duration "$seconds" --join-rate 20 --join-timeout 60 "$@")

# Sluice, one media worker (Janus gets no limit: it runs a thread per handle by default).
mkdir -p "$out/sluice"
cat > "$out/sluice/sluice.json" <<JSON
{
  "server": {"host": "127.0.0.1", "port": $http_port},
  "rtc": {"bindAddress": "127.0.0.1", "port": $rtc_port, "workers": 1, "announcedAddresses": ["127.0.0.1"], "gso": $gso},
  "apps": [{"key": "defaultApp"}],
  "log": {"level": "warn"}
}
JSON
echo "==== Sluice: 1 publisher x $players players, ${seconds}s"
.build/release/sluice-loadtest --spawn .build/release/sluice --spawn-config "$out/sluice/sluice.json" \
    --url "ws://127.0.0.1:$http_port/ws" --output "$out/sluice" "${common[@]}"
sluice_rc=$?

# Janus: only the VideoRoom plugin and the WebSocket transport, candidates on the veth only.
conf="$out/janus/conf"
mkdir -p "$conf"
lib=/usr/lib/x86_64-linux-gnu/janus
disable_plugins=$(cd "$lib/plugins" && ls *.so | grep -v '^libjanus_videoroom\.so$' | paste -sd, -)
disable_transports=$(cd "$lib/transports" && ls *.so | grep -v '^libjanus_websockets\.so$' | paste -sd, -)
cat > "$conf/janus.jcfg" <<JCFG
general: {
	configs_folder = "$conf"
	plugins_folder = "$lib/plugins"
	transports_folder = "$lib/transports"
	events_folder = "$lib/events"
	loggers_folder = "$lib/loggers"
	debug_level = 3
	session_timeout = 60
}
media: {
	ipv6 = false
	rtp_port_range = "30000-39999"
}
nat: {
	nice_debug = false
	ice_lite = true
	ice_enforce_list = "lt-janus"
	ignore_mdns = true
}
plugins: {
	disable = "$disable_plugins"
}
transports: {
	disable = "$disable_transports"
}
events: {
	broadcast = false
}
loggers: {
	disable = "libjanus_jsonlog.so"
}
JCFG
cat > "$conf/janus.transport.websockets.jcfg" <<JCFG
general: {
	json = "plain"
	ws = true
	ws_port = $janus_port
	ws_ip = "127.0.0.1"
	wss = false
}
admin: {
	admin_ws = false
	admin_wss = false
}
JCFG
cat > "$conf/janus.plugin.videoroom.jcfg" <<JCFG
general: {
}
JCFG
echo "==== Janus $("$janus_bin" --version 2>/dev/null | head -n 1): 1 publisher x $players players, ${seconds}s"
.build/release/sluice-loadtest --target janus --spawn "$janus_bin" --spawn-config "$conf/janus.jcfg" \
    --url "ws://127.0.0.1:$janus_port/" --output "$out/janus" "${common[@]}"
janus_rc=$?
echo "==== exit: sluice $sluice_rc, janus $janus_rc"
exit $(( sluice_rc != 0 || janus_rc != 0 ))
INNER
rc=$?

python3 - "$out" <<'PY' | tee "$out/comparison.txt"
import json, os, sys
out = sys.argv[1]
runs = {}
for name in ("sluice", "janus"):
    try:
        with open(os.path.join(out, name, "result.json")) as f:
            runs[name] = json.load(f)
    except OSError:
        pass
if len(runs) < 2:
    print("comparison: a run left no result.json:", ", ".join(sorted(runs)) or "none")
    sys.exit(0)

def get(r, *path):
    for p in path:
        r = r.get(p) if isinstance(r, dict) else None
    return r

rows = [
    ("players joined", lambda r: get(r, "totals", "joinedPlayers"), "{:.0f}"),
    ("forwarded packets/s", lambda r: get(r, "totals", "packetsPerSecond"), "{:.0f}"),
    ("lost packets", lambda r: get(r, "totals", "continuity", "lost"), "{:.0f}"),
    ("server CPU, % of a core", lambda r: get(r, "server", "meanCPUPercent"), "{:.1f}"),
    ("server CPU µs/packet", lambda r: get(r, "server", "cpuMicrosPerPacket"), "{:.2f}"),
    ("  after all joined", lambda r: get(r, "server", "steadyCPUMicrosPerPacket"), "{:.2f}"),
    ("server max RSS, MiB", lambda r: (get(r, "server", "maxRSSBytes") or 0) / 1048576, "{:.1f}"),
    ("delay p50, ms", lambda r: (get(r, "delay", "p50Micros") or 0) / 1000, "{:.2f}"),
    ("delay p99, ms", lambda r: (get(r, "delay", "p99Micros") or 0) / 1000, "{:.2f}"),
    ("join time p50, ms", lambda r: get(r, "totals", "joinMillisP50"), "{:.0f}"),
]
print(f"{'figure':26} {'sluice':>12} {'janus':>12} {'janus/sluice':>13}")
for label, fn, fmt in rows:
    s, j = fn(runs["sluice"]), fn(runs["janus"])
    fs = fmt.format(s) if isinstance(s, (int, float)) else "-"
    fj = fmt.format(j) if isinstance(j, (int, float)) else "-"
    ratio = f"{j / s:.2f}" if isinstance(s, (int, float)) and isinstance(j, (int, float)) and s else "-"
    print(f"{label:26} {fs:>12} {fj:>12} {ratio:>13}")
for name in ("sluice", "janus"):
    problems = runs[name].get("problems") or []
    if problems:
        print(f"{name}: {len(problems)} problem(s), first: {problems[0]}")
PY
exit $rc
