#!/usr/bin/env python3
"""Issue 9's load-test legs, one run: one publisher and many players on one worker, on two
workers, and on a 2-node cluster (Redis, node1 on 127.0.0.1, node2 on 127.0.0.2), each with
`sluice-loadtest --assert-no-loss`. Run by scripts/loadtest-smoke.sh inside its network
namespace (only `lo`), from the repository's root, after a release build.

What fails a leg: the tester's exit status (loss, a duplicate, a gap, a failed join), a server
that did not exit cleanly, and counts that show the fan-out did not go as built:
  * two workers: players on both (each worker sent at least a fifth of the media), and the
    publisher's worker handed every packet to the other once, not once per player
    (`sluice_worker_relay_packets_total`);
  * cluster: node2's players all joined and received, the origin served exactly one link to
    node2, and sent on it about one copy of what the publisher sent (within a small slack for
    retransmissions), not one per player (`sluice_cluster_link_packets_total`), while node2's
    players received many times that. Never wall-clock time.

Figures (never asserted): players, players without loss, packets forwarded, server CPU
(utime + stime from /proc/<pid>/stat, around the tester's run) per forwarded packet, and for
the cluster leg the link's packets against the publisher's and node2's players'. They go to
<out>/figures.json, and a table to stdout.

    scripts/loadtest-scale.py OUT SECONDS PLAYERS
    LOADTEST_SCALE_LEGS=cluster LOADTEST_SCALE_LOG=debug ...   (some legs only; the servers' log level)
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

SLUICE = Path(".build/release/sluice")
LOADTEST = Path(".build/release/sluice-loadtest")
REDIS = "/usr/bin/redis-server"
SECRET = "loadtest-cluster-secret-0123456789"
CLOCK_TICK = os.sysconf("SC_CLK_TCK")
# The link may carry a few packets more than the publisher sent (NACKs answered on the link)
# and a few less (the link comes up after the first packets): per player it would be N times.
LINK_SLACK = 0.05
# What a player must have got to count as placed on a worker or node (packets).
MIN_PACKETS = 50
# The recording legs: streams, each with this many players.
RECORDED_STREAMS = 10
RECORDED_PLAYERS = 2


def free_ports(host, count):
    """`count` consecutive port numbers free for UDP and TCP on `host` (the media ports: ICE-TCP
    listens on the same numbers), and one more free TCP port for HTTP."""
    while True:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind((host, 0))
        base = u.getsockname()[1]
        u.close()
        if base + count > 65535:
            continue
        held = []
        try:
            for port in range(base, base + count):
                for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
                    s = socket.socket(socket.AF_INET, kind)
                    held.append(s)
                    s.bind((host, port))
            t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            held.append(t)
            t.bind((host, 0))
            return t.getsockname()[1], base
        except OSError:
            continue
        finally:
            for s in held:
                s.close()


def cpu_seconds(pid):
    """utime + stime of a process, from /proc/<pid>/stat (fields 14 and 15, after the name)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICK


def metrics(host, port):
    """/metrics as {(name, frozenset(labels)): value}."""
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    values = {}
    for line in text.splitlines():
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ([0-9.eE+-]+)$', line)
        if not m:
            continue
        labels = frozenset(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
        values[(m.group(1), labels)] = float(m.group(3))
    return values


def metric(values, name, **labels):
    """The sum of every series of `name` whose labels include `labels`."""
    want = set(labels.items())
    return sum(v for (n, ls), v in values.items() if n == name and want <= ls)


class Node:
    """One Sluice server on `host`, started from the release binary with its own config."""

    def __init__(self, out, name, host, workers, cluster=None, recording=None):
        self.name, self.host, self.workers = name, host, workers
        self.http_port, self.media_port = free_ports(host, workers)
        config = {
            # No drain: SIGTERM at the end stops at once, whatever is still connected.
            "server": {"host": host, "port": self.http_port, "webRoot": "web", "drainSeconds": 0},
            "rtc": {"bindAddress": host, "port": self.media_port, "workers": workers, "announcedAddresses": [host]},
            "apps": [{"key": "defaultApp"}],
            "log": {"level": os.environ.get("LOADTEST_SCALE_LOG", "warn")},
        }
        if recording:
            config["recording"] = {"folder": str(recording)}
        if cluster:
            config["cluster"] = {"redis": cluster, "nodeId": name, "relayAddress": f"{host}:{self.media_port}",
                                 "secret": SECRET}
        self.config_path = out / f"{name}.json"
        self.config_path.write_text(json.dumps(config, indent=2) + "\n")
        self.log_path = out / f"{name}.log"
        self.process = None

    @property
    def url(self):
        return f"ws://{self.host}:{self.http_port}/ws"

    def start(self):
        log = open(self.log_path, "wb")
        self.process = subprocess.Popen([str(SLUICE), "--config", str(self.config_path)], stdout=log,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + 30
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}; see {self.log_path}")
            try:
                with urllib.request.urlopen(f"http://{self.host}:{self.http_port}/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} /health did not answer; see {self.log_path}")
            time.sleep(0.1)

    def metrics(self):
        return metrics(self.host, self.http_port)

    def cpu(self):
        return cpu_seconds(self.process.pid)

    def stop(self):
        """SIGTERM; what went wrong (None when it exited 0)."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else f"{self.name} died during the leg ({self.process.returncode})"
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return f"{self.name} did not exit within 15 s of SIGTERM"
        return None if self.process.returncode == 0 else f"{self.name} exited with {self.process.returncode}"


class Redis:
    def __init__(self, out):
        _, self.port = free_ports("127.0.0.1", 1)
        self.out = out
        self.process = None

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}"

    def start(self):
        log = open(self.out / "redis.log", "wb")
        self.process = subprocess.Popen(
            [REDIS, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
             "--dir", str(self.out), "--daemonize", "no"], stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not answer")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


class Sampler(threading.Thread):
    """Reads a node's /metrics every half second while the tester runs, for what is only there
    while a link is up: the most links the origin served at once, per edge."""

    def __init__(self, node):
        super().__init__(daemon=True)
        self.node = node
        self.stopped = threading.Event()
        self.max_links = {}
        self.max_stream_packets = {}

    def run(self):
        while not self.stopped.wait(0.5):
            try:
                values = self.node.metrics()
            except OSError:
                continue
            for (name, labels), value in values.items():
                labels = dict(labels)
                if name == "sluice_cluster_links_by_edge":
                    edge = labels.get("edge", "")
                    self.max_links[edge] = max(self.max_links.get(edge, 0), int(value))
                elif name == "sluice_cluster_link_stream_packets":
                    key = (labels.get("edge", ""), labels.get("stream", ""))
                    self.max_stream_packets[key] = max(self.max_stream_packets.get(key, 0), int(value))


def run_tester(out, leg, urls, players, seconds, pid, extra=(), publishers=1):
    command = [str(LOADTEST), "--url", ",".join(urls), "--publishers", str(publishers), "--players", str(players),
               "--duration", str(seconds), "--join-rate", "10", "--join-timeout", "60", "--key-frame-interval", "1",
               "--player-receive", "headers", "--assert-no-loss", "--server-pid", str(pid),
               "--output", str(out / leg), *extra]
    print(f"==== loadtest {leg}: {' '.join(command)}", flush=True)
    rc = subprocess.call(command)
    result = json.loads((out / leg / "result.json").read_text())
    return rc, result


def player_packets(player):
    return player["videoPackets"] + player["audioPackets"]


def without_loss(players):
    return sum(1 for p in players if p["joined"] and not p.get("ended") and p["continuity"]["lost"] == 0
               and p["continuity"]["duplicates"] == 0 and p["continuity"]["gaps"] == 0
               and p["continuity"]["ssrcChanges"] == 0)


def figure(leg, result, forwarded, cpu):
    players = result["players"]
    return {
        "leg": leg,
        "players": len(players),
        "playersJoined": sum(1 for p in players if p["joined"]),
        "playersWithoutLoss": without_loss(players),
        "publisherPackets": sum(p["packetsSent"] for p in result["publishers"]),
        "packetsForwarded": forwarded,
        "serverCPUSeconds": round(cpu, 3),
        "serverCPUMicrosPerForwardedPacket": round(cpu * 1e6 / forwarded, 2) if forwarded else None,
        "testerSteadyServerCPUMicrosPerPacket": (result.get("server") or {}).get("steadyCPUMicrosPerPacket"),
        "measuredSeconds": round(result["measuredSeconds"], 2),
    }


def measured_run(out, leg, node, players, seconds, problems, extra=(), publishers=1):
    """Starts `node`, runs the tester against it and stops it: the tester's result, the leg's
    figures (server CPU around the run) and the node's last /metrics."""
    node.start()
    try:
        cpu0 = node.cpu()
        rc, result = run_tester(out, leg, [node.url], players, seconds, node.process.pid, extra=extra,
                                publishers=publishers)
        cpu = node.cpu() - cpu0
        values = node.metrics()
    finally:
        problem = node.stop()
    if problem:
        problems.append(f"{leg}: {problem}")
    if rc != 0:
        problems.append(f"{leg}: sluice-loadtest exited {rc} (see artifacts/loadtest/{leg}/result.json)")
    forwarded = sum(player_packets(p) for p in result["players"])
    return result, figure(leg, result, forwarded, cpu), values


def single_leg(out, leg, workers, players, seconds, problems):
    node = Node(out, leg, "127.0.0.1", workers)
    _, fig, values = measured_run(out, leg, node, players, seconds, problems)
    fig["workers"] = workers
    sent = [int(metric(values, "sluice_worker_datagrams_sent_total", worker=str(i))) for i in range(workers)]
    fig["datagramsSentPerWorker"] = sent
    if workers > 1:
        handed = int(metric(values, "sluice_worker_relay_packets_total", event="handed"))
        delivered = int(metric(values, "sluice_worker_relay_packets_total", event="delivered"))
        dropped = int(metric(values, "sluice_worker_relay_packets_total", event="dropped"))
        fig.update(relayHanded=handed, relayDelivered=delivered, relayDropped=dropped)
        publisher = fig["publisherPackets"]
        print(f"==== loadtest {leg}: datagrams sent per worker {sent}; relay handed {handed}, delivered {delivered}, "
              f"dropped {dropped}; publisher sent {publisher}")
        # Players on every worker: each sent a fair share of the media (they are placed on the
        # least-loaded worker, so about half each; a worker without players sends next to nothing).
        if min(sent) < 0.2 * sum(sent):
            problems.append(f"{leg}: a worker sent almost nothing ({sent}): the players did not spread over the workers")
        # One hand-over per packet and relaying worker, not per player: about the publisher's packets.
        if not (0 < handed <= publisher * (1 + LINK_SLACK) + 20 and delivered > 0):
            problems.append(f"{leg}: the relay handed {handed} packets (delivered {delivered}) for {publisher} "
                            "published: not one hand-over per packet")
    return fig


def cluster_leg(out, players, seconds, problems):
    leg = "cluster"
    redis = Redis(out)
    redis.start()
    node1 = Node(out, "node1", "127.0.0.1", 1, cluster=redis.url)
    node2 = Node(out, "node2", "127.0.0.2", 1, cluster=redis.url)
    sampler = Sampler(node1)
    try:
        node1.start()
        node2.start()
        cpu0 = (node1.cpu(), node2.cpu())
        sampler.start()
        # Publisher on node1; players alternate node1, node2. They play with wait: a play on
        # node2 may come before the stream's record (with its codecs) reached Redis.
        rc, result = run_tester(out, leg, [node1.url, node2.url], players, seconds, node1.process.pid,
                                extra=["--play-wait", "on"])
        cpu = (node1.cpu() - cpu0[0], node2.cpu() - cpu0[1])
        sampler.stopped.set()
        sampler.join()
        values1 = node1.metrics()
    finally:
        sampler.stopped.set()
        for node in (node1, node2):
            problem = node.stop()
            if problem:
                problems.append(f"{leg}: {problem}")
        redis.stop()
    if rc != 0:
        problems.append(f"{leg}: sluice-loadtest exited {rc} (see artifacts/loadtest/{leg}/result.json)")
    on = {url: [p for p in result["players"] if p["url"] == url] for url in result["urls"]}
    edge_url = result["urls"][1] if len(result["urls"]) > 1 else None
    edge_players = on.get(edge_url, [])
    origin_players = on.get(result["urls"][0], [])
    link_packets = int(metric(values1, "sluice_cluster_link_packets_total", role="origin"))
    publisher = sum(p["packetsSent"] for p in result["publishers"])
    edge_received = sum(player_packets(p) for p in edge_players)
    edge_most = max((player_packets(p) for p in edge_players), default=0)
    forwarded1 = sum(player_packets(p) for p in origin_players) + link_packets
    forwarded2 = edge_received
    fig = figure(leg, result, forwarded1 + forwarded2, cpu[0] + cpu[1])
    fig.update({
        "nodes": [{"node": "node1", "players": len(origin_players), "packetsForwarded": forwarded1,
                   "serverCPUSeconds": round(cpu[0], 3),
                   "serverCPUMicrosPerForwardedPacket": round(cpu[0] * 1e6 / forwarded1, 2) if forwarded1 else None},
                  {"node": "node2", "players": len(edge_players), "packetsForwarded": forwarded2,
                   "serverCPUSeconds": round(cpu[1], 3),
                   "serverCPUMicrosPerForwardedPacket": round(cpu[1] * 1e6 / forwarded2, 2) if forwarded2 else None}],
        "linkPackets": link_packets,
        "linkPacketsPerPublisherPacket": round(link_packets / publisher, 3) if publisher else None,
        "edgePlayers": len(edge_players),
        "edgePlayersPackets": edge_received,
        "edgePlayersPacketsPerLinkPacket": round(edge_received / link_packets, 2) if link_packets else None,
        "maxLinksToEdge": sampler.max_links,
        # The live link's own series, at the last reading before it closed.
        "linkStreamPacketsSeen": {f"{edge}/{stream}": n for (edge, stream), n in sampler.max_stream_packets.items()},
    })
    # The tester watched node1 only, but divided by every player's packets: not a figure here.
    fig.pop("testerSteadyServerCPUMicrosPerPacket", None)
    print(f"==== loadtest {leg}: publisher sent {publisher}, origin sent {link_packets} on its link(s), "
          f"node2's {len(edge_players)} players received {edge_received}; most links to an edge at once "
          f"{sampler.max_links}")
    if len(edge_players) < 2 or any(not p["joined"] or player_packets(p) < MIN_PACKETS for p in edge_players):
        problems.append(f"{leg}: node2 had {len(edge_players)} players, not all of them joined and received")
    if sampler.max_links.get("node2") != 1 or set(sampler.max_links) - {"node2"}:
        problems.append(f"{leg}: the origin served links {sampler.max_links}, not exactly one to node2")
    seen = sampler.max_stream_packets.get(("node2", result["publishers"][0]["stream"]), 0)
    if not 0 < seen <= link_packets:
        problems.append(f"{leg}: node1's live link to node2 showed {seen} packets "
                        f"(sluice_cluster_link_stream_packets), against {link_packets} in all")
    # One copy per stream and edge: what the link sent is what the publisher sent (less what came
    # before the link was up, plus retransmissions), and at least what any one edge player got.
    if not (edge_most * (1 - LINK_SLACK) <= link_packets <= publisher * (1 + LINK_SLACK) + 20):
        problems.append(f"{leg}: the origin sent {link_packets} packets on its link for {publisher} published "
                        f"and at most {edge_most} received by one node2 player: not one copy per edge")
    # The control: per player, the link would have carried node2's players' total.
    if not edge_received >= 2 * link_packets:
        problems.append(f"{leg}: node2's players received {edge_received}, not many times the link's {link_packets}: "
                        "the leg cannot tell one copy per edge from one per player")
    return fig


def recording_legs(out, seconds, problems):
    """Issue 10's benchmark: RECORDED_STREAMS publishers with RECORDED_PLAYERS players each on one
    worker, once plain and once with every stream recorded. The figures: the server CPU the
    recordings add, per recorded stream (never asserted), and the players' loss and delay in
    both runs. What fails: loss in either run (the tester's --assert-no-loss), and a recorded
    run that did not leave one closed, non-empty file per stream."""
    figures = []
    for leg, record in (("record-off", False), ("record-on", True)):
        folder = out / f"{leg}-files"
        node = Node(out, leg, "127.0.0.1", 1, recording=folder)
        result, fig, _ = measured_run(out, leg, node, RECORDED_PLAYERS, seconds, problems,
                                      extra=["--record", "on" if record else "off"], publishers=RECORDED_STREAMS)
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        fig.update(recorded=record, files=len(files), fileBytes=sum(p.stat().st_size for p in files),
                   delayP50Micros=result["delay"].get("p50Micros"), delayP99Micros=result["delay"].get("p99Micros"))
        if record:
            closed = [p for p in files if p.suffix == ".webm" and p.stat().st_size > 0]
            if len(closed) != RECORDED_STREAMS or len(files) != RECORDED_STREAMS:
                problems.append(f"{leg}: {len(closed)} closed non-empty recordings of {RECORDED_STREAMS} streams "
                                f"(files: {[str(p.relative_to(folder)) for p in files]})")
        elif files:
            problems.append(f"{leg}: files were recorded without --record: {files}")
        figures.append(fig)
    if len(figures) == 2:
        off, on = figures
        # CPU per second of the measured run, so runs of slightly different length compare.
        per_second = [f["serverCPUSeconds"] / f["measuredSeconds"] if f["measuredSeconds"] else 0 for f in figures]
        added = (per_second[1] - per_second[0]) / RECORDED_STREAMS
        on["addedCorePercentPerRecordedStream"] = round(added * 100, 3)
        print(f"==== loadtest recording: server CPU {per_second[0] * 100:.1f}% of a core plain, "
              f"{per_second[1] * 100:.1f}% with {RECORDED_STREAMS} streams recorded: "
              f"{added * 100:.2f}% of a core per recorded stream; {on['files']} files, {on['fileBytes']} bytes")
    return figures


def table(figures):
    rows = [("leg", "players", "no loss", "forwarded", "CPU s", "CPU µs/pkt", "relay / link")]
    for f in figures:
        if "linkPackets" in f:
            extra = (f"link {f['linkPackets']} for {f['publisherPackets']} published, "
                     f"{f['edgePlayers']} edge players got {f['edgePlayersPackets']}")
        elif "relayHanded" in f:
            extra = f"handed {f['relayHanded']} for {f['publisherPackets']} published"
        else:
            extra = ""
        rows.append((f["leg"], str(f["players"]), str(f["playersWithoutLoss"]), str(f["packetsForwarded"]),
                     f"{f['serverCPUSeconds']:.2f}", str(f["serverCPUMicrosPerForwardedPacket"]), extra))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


def main():
    out, seconds, players = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    problems, figures = [], []
    for name, leg in (("workers1", lambda: single_leg(out, "workers1", 1, players, seconds, problems)),
                      ("workers2", lambda: single_leg(out, "workers2", 2, players, seconds, problems)),
                      ("cluster", lambda: cluster_leg(out, players, seconds, problems)),
                      ("recording", lambda: recording_legs(out, seconds, problems))):
        if name not in os.environ.get("LOADTEST_SCALE_LEGS", "workers1,workers2,cluster,recording").split(","):
            continue
        try:
            made = leg()
            figures.extend(made if isinstance(made, list) else [made])
        except Exception as error:  # a leg that could not run is a failure, and the next still runs
            problems.append(f"{name}: {error}")
    (out / "figures.json").write_text(json.dumps({
        "what": "1 publisher x N players: one worker, two workers, a 2-node cluster; 10 publishers x 2 players "
                "plain and recorded (scripts/loadtest-scale.py)",
        "secondsPerLeg": float(seconds), "legs": figures, "problems": problems}, indent=2) + "\n")
    print("==== loadtest scale figures (artifacts/loadtest/figures.json):")
    table(figures)
    for problem in problems:
        print(f"==== loadtest scale: FAILED: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
