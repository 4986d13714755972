#!/usr/bin/env python3
"""Data channel fan-out bench: one aiortc publisher and N aiortc players on channel `chat`.

The publisher sends M timestamped messages as fast as its channel's bufferedAmount allows;
the script prints what the players got (messages/s delivered to all of them), the latency
from send to receive across all players (p50, p99; one process, one clock), the server's
drops, and the server's CPU time per message (utime + stime from /proc/<pid>/stat around
the send, less the same span's idle rate with only the small video flowing). Last line: one
JSON summary.

Needs a network namespace with only `lo` (as the interop suite):

    unshare -n bash -c 'ip link set lo up && .venv/bin/python scripts/bench/datachannel.py'

By default it starts its own .build/release/sluice with the app's data channel rate limits
off (messagesPerSecond 0, bytesPerSecond 0); --ws-url and --server-pid use a running one
instead (whose limits are then its own). All peers run in this one Python process: aiortc's
pure-Python SCTP is the bottleneck before the server is (players that cannot keep up make
the server drop for backlog, and the latency is then their queue), so read messages/s as a
floor; --rate paces the publisher to what the players can take, for latency and CPU per
message without that queue.
"""

import argparse
import asyncio
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "interop"))

from loopback import loopback_is_up, non_loopback_addresses, patch_aioice  # noqa: E402
from datachannel_peers import DataPlayer, DataPublisher, play_with_channels, publish_with_channels  # noqa: E402
from sessions import open_session  # noqa: E402

HEADER = struct.Struct("!Id")  # index, time.monotonic() at send
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of `pid` (all its threads), in seconds."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "; field 3 is fields[0]
    return (int(fields[11]) + int(fields[12])) / TICK


def thread_cpu(pid: int) -> dict:
    """CPU seconds by thread, keyed "name/tid" (the server's threads may all be named sluice)."""
    out: dict = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            text = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text[text.rindex(")") + 2:].split()
        out[f"{name}/{tid}"] = (int(fields[11]) + int(fields[12])) / TICK
    return out


def percentile(values: list, p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


def start_server(binary: Path, workers: int, log_path: Path):
    from conftest import _free_tcp_port, _free_udp_range, write_test_config
    http_port, media_port = _free_tcp_port(), _free_udp_range(workers)
    config_path = Path(tempfile.mkdtemp(prefix="dcbench-")) / "sluice.json"
    write_test_config(config_path, http_port, media_port, workers, {
        "apps": [{"key": "defaultApp", "dataChannels": {"messagesPerSecond": 0, "bytesPerSecond": 0}}],
        "log": {"level": "info"},
    })
    log = open(log_path, "wb")
    process = subprocess.Popen([str(binary), "--config", str(config_path)], cwd=REPO, stdout=log,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    import urllib.request
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise SystemExit(f"sluice exited with {process.returncode}; see {log_path}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            raise SystemExit(f"sluice did not answer /health within 30 s; see {log_path}")
        time.sleep(0.1)
    return process, f"ws://127.0.0.1:{http_port}/ws"


async def bench(args, ws_url: str, pid: int) -> dict:
    stream = "dc-bench"
    clients, peers = [], []
    try:
        pub_client = await open_session(ws_url)
        clients.append(pub_client)
        pub = DataPublisher(labels=("chat",), width=160, height=120)
        peers.append(pub)
        pub_handle = await publish_with_channels(pub_client, stream, pub)
        await pub_client.wait_status(pub_handle, "PUBLISHING", 15)
        players = []
        for _ in range(args.players):
            client = await open_session(ws_url)
            clients.append(client)
            player = DataPlayer(labels=("chat",))
            peers.append(player)
            handle = await play_with_channels(client, stream, player)
            players.append((client, player, handle))
        sender = pub.channels["chat"]
        await sender.wait_open(20)
        for _, player, _ in players:
            await player.channels["chat"].wait_open(20)

        # The idle rate: what the server spends with the video alone, over the same kind of span.
        idle_start, idle_cpu = time.monotonic(), cpu_seconds(pid)
        await asyncio.sleep(args.idle_seconds)
        idle_rate = (cpu_seconds(pid) - idle_cpu) / (time.monotonic() - idle_start)

        channel = sender.channel
        channel.bufferedAmountLowThreshold = args.max_buffered // 2
        low = asyncio.Event()
        channel.on("bufferedamountlow", low.set)
        padding = bytes(max(0, args.size - HEADER.size))
        threads_before = thread_cpu(pid)
        cpu_before, started = cpu_seconds(pid), time.monotonic()
        for i in range(args.messages):
            if args.rate > 0:
                delay = started + i / args.rate - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            while channel.bufferedAmount > args.max_buffered:
                low.clear()
                try:
                    await asyncio.wait_for(low.wait(), 1.0)
                except asyncio.TimeoutError:
                    pass
            channel.send(HEADER.pack(i, time.monotonic()) + padding)
            if args.rate <= 0 and i % 64 == 63:
                await asyncio.sleep(0)  # lets aiortc's SCTP run while the buffer has room
        send_done = time.monotonic()

        # Until every player has every message, or nothing arrived for a few seconds.
        deadline = time.monotonic() + args.timeout
        last_total, last_change = -1, time.monotonic()
        while time.monotonic() < deadline:
            total = sum(len(p.channels["chat"].received) for _, p, _ in players)
            if total == args.messages * args.players:
                break
            if total != last_total:
                last_total, last_change = total, time.monotonic()
            elif time.monotonic() - last_change > 3.0:
                break
            await asyncio.sleep(0.05)
        cpu_after, measured_until = cpu_seconds(pid), time.monotonic()
        threads_after = thread_cpu(pid)
        by_thread = {name: round(value - threads_before.get(name, 0.0), 2) for name, value in threads_after.items()
                     if value - threads_before.get(name, 0.0) > 0}
        receipts = [r for _, p, _ in players for r in p.channels["chat"].received]
        finished = max((r.at for r in receipts), default=time.monotonic())
        latencies = [r.at - HEADER.unpack_from(r.data)[1] for r in receipts]

        dropped = sent = 0
        for client, _, handle in players:
            for c in (await client.call("getStats", {"handle": handle})).get("dataChannels", []):
                dropped += c.get("messagesDropped", 0)
                sent += c.get("messagesSent", 0)
        pub_stats = (await pub_client.call("getStats", {"handle": pub_handle})).get("dataChannels", [])
        span = finished - started
        cpu = cpu_after - cpu_before
        cpu_data = max(0.0, cpu - idle_rate * (measured_until - started))
        delivered = len(receipts)
        return {
            "players": args.players, "rate": args.rate or None, "messages": args.messages, "size": args.size,
            "delivered": delivered, "expected": args.messages * args.players,
            "sendSeconds": round(send_done - started, 3), "deliverySeconds": round(span, 3),
            "publishedPerSecond": round(args.messages / (send_done - started), 1),
            "deliveredPerSecond": round(delivered / span, 1) if span > 0 else None,
            "latencyP50Ms": round(percentile(latencies, 0.5) * 1000, 2),
            "latencyP99Ms": round(percentile(latencies, 0.99) * 1000, 2),
            "serverReceived": sum(c.get("messagesReceived", 0) for c in pub_stats),
            "serverSentToPlayers": sent, "serverDropped": dropped,
            "serverCpuSeconds": round(cpu, 3), "serverIdleCpuPerSecond": round(idle_rate, 4),
            "serverCpuUsPerDelivered": round(cpu / delivered * 1e6, 2) if delivered else None,
            "serverCpuUsPerDeliveredLessIdle": round(cpu_data / delivered * 1e6, 2) if delivered else None,
            "serverCpuUsPerPublished": round(cpu / args.messages * 1e6, 2),
            "serverCpuSecondsByThread": by_thread,
        }
    finally:
        for peer in peers:
            try:
                await peer.close()
            except Exception:
                pass
        for client in clients:
            try:
                await client.close()
            except Exception:
                pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--size", type=int, default=200, help="bytes per message (at least 12)")
    parser.add_argument("--max-buffered", type=int, default=256 * 1024,
                        help="the publisher waits while its channel's bufferedAmount is above this")
    parser.add_argument("--rate", type=float, default=0.0,
                        help="messages per second the publisher paces to (0: as fast as bufferedAmount allows)")
    parser.add_argument("--timeout", type=float, default=120.0, help="bound on waiting for delivery")
    parser.add_argument("--idle-seconds", type=float, default=2.0)
    parser.add_argument("--binary", type=Path, default=REPO / ".build" / "release" / "sluice")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ws-url", help="use this running server (with --server-pid) instead of starting one")
    parser.add_argument("--server-pid", type=int)
    args = parser.parse_args()

    outside = non_loopback_addresses()
    if outside or not loopback_is_up():
        raise SystemExit(f"run in a namespace with only lo up (found {outside}): "
                         "unshare -n bash -c 'ip link set lo up && ...'")
    patch_aioice()
    process = None
    if args.ws_url:
        if not args.server_pid:
            raise SystemExit("--ws-url needs --server-pid (for the CPU figures)")
        ws_url, pid = args.ws_url, args.server_pid
    else:
        log_path = Path(tempfile.gettempdir()) / "sluice-dcbench.log"
        process, ws_url = start_server(args.binary, args.workers, log_path)
        pid = process.pid
    try:
        result = asyncio.run(bench(args, ws_url, pid))
    finally:
        if process is not None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
    print(f"players {result['players']}, {result['messages']} messages of {result['size']} bytes")
    print(f"delivered {result['delivered']} of {result['expected']} "
          f"({result['deliveredPerSecond']} msg/s to all players over {result['deliverySeconds']} s; "
          f"published {result['publishedPerSecond']} msg/s)")
    print(f"latency p50 {result['latencyP50Ms']} ms, p99 {result['latencyP99Ms']} ms")
    print(f"server: received {result['serverReceived']}, sent to players {result['serverSentToPlayers']}, "
          f"dropped {result['serverDropped']}")
    print(f"server CPU {result['serverCpuSeconds']} s: {result['serverCpuUsPerDelivered']} us per delivered "
          f"message ({result['serverCpuUsPerDeliveredLessIdle']} us less the idle rate of "
          f"{result['serverIdleCpuPerSecond']} CPU-s/s), {result['serverCpuUsPerPublished']} us per published")
    print(f"server CPU by thread: {result['serverCpuSecondsByThread']}")
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
