#!/usr/bin/env python3
"""Join churn around one publisher, with the server's RSS sampled: does memory come back?

One aiortc publisher; aiortc players join and leave around it, about `--live` at a time, for
`--minutes`. Each player decodes a few frames, stays a moment and leaves in one of three ways,
in turn:
  stop        a `stop` request, then a clean disconnect
  disconnect  the session closes (its WebSocket closes cleanly)
  drop        the player's media goes silent (its ICE sockets closed without a word), so the
              server finds it by the consent timeout; then its WebSocket is cut without a close

The server's RSS (/proc/<pid>/status VmRSS) is sampled every `--sample` seconds; the figure is
the growth per join from `--warmup` minutes on (a least-squares slope of RSS over joins), in KiB,
given also for RssAnon (heap, stacks, pools) and RssFile (pages of the binary and libraries).
Run it in a namespace with only `lo` (docs/testing.md, "Memory under churn"):

  unshare -n sh -c 'ip link set lo up && .venv/bin/python scripts/bench/churn.py --minutes 30'

`--binary` takes another server (a build with debug info; `--wrap "heaptrack -o /tmp/h"` runs
it under a tool). The report goes to artifacts/churn/report.json (`--out` for another folder).
"""

import argparse
import asyncio
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "interop"))

from conftest import _free_tcp_port, _free_udp_range, write_test_config  # noqa: E402
from loopback import patch_aioice  # noqa: E402
from sessions import close_all, open_session, play, publish  # noqa: E402

patch_aioice()
WAYS = ("stop", "disconnect", "drop")


def memory_kib(pid: int) -> dict:
    """VmRSS and its parts: RssAnon is the heap, stacks and pools; RssFile is pages of the
    binary and libraries, which grow as rarer code first runs and are not held per join."""
    fields = {"VmRSS:": "rssKiB", "RssAnon:": "anonKiB", "RssFile:": "fileKiB"}
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key = line.split(":", 1)[0] + ":"
        if key in fields:
            found[fields[key]] = int(line.split()[1])
    if "rssKiB" not in found:
        raise RuntimeError("no VmRSS")
    return found


def read_tables(http_port: int, config_path: Path):
    """GET /api/v1/tables with the config's admin token; None when the server has no such route."""
    import urllib.error
    import urllib.request
    token = json.loads(config_path.read_text()).get("admin", {}).get("token", "")
    request = urllib.request.Request(f"http://127.0.0.1:{http_port}/api/v1/tables",
                                     headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())["tables"]
    except (urllib.error.HTTPError, OSError, KeyError, ValueError):
        return None


def slope(points: list[tuple[int, int]]) -> float:
    """Least-squares KiB per join over (joins, rss) samples."""
    if len(points) < 2:
        return float("nan")
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    if sxx == 0:
        return float("nan")
    return sum((p[0] - mx) * (p[1] - my) for p in points) / sxx


async def silence_media(peer) -> None:
    """Closes the player's ICE sockets without sending anything: to the server the peer is gone."""
    for transceiver in peer.pc.getTransceivers():
        ice = transceiver.receiver.transport.transport
        connection = getattr(ice, "_connection", None)
        if connection is not None:
            await connection.close()


class Churn:
    def __init__(self, ws_url: str, stream: str, pid: int):
        self.ws_url = ws_url
        self.stream = stream
        self.pid = pid
        self.joins = 0
        self.decoded = 0
        self.failures: list[str] = []
        self.by_way = {w: 0 for w in WAYS}
        self.turn = 0

    async def one_player(self) -> None:
        way = WAYS[self.turn % len(WAYS)]
        self.turn += 1
        session = None
        try:
            session = await play(self.ws_url, self.stream)
            self.joins += 1
            await session.peer.wait_frames(3, timeout=15)
            self.decoded += 1
            await asyncio.sleep(random.uniform(0.5, 2.5))
            if way == "stop":
                await session.client.stop(session.handle)
                await session.close()
            elif way == "disconnect":
                await session.close()
            else:
                await silence_media(session.peer)
                await session.client.wait_notification(
                    lambda n: n.method == "streamStatus" and n.params.get("handle") == session.handle
                    and n.params.get("status") in ("FAILED", "STOPPED", "UNPUBLISHED"), timeout=30,
                    what="the consent timeout's status")
                session.client.ws.transport.abort()
                await session.close()
            self.by_way[way] += 1
        except Exception as e:  # counted and shown; the churn goes on
            self.failures.append(f"{way}: {e!r}"[:300])
            await close_all(session)

    async def keep(self, live: int, until: float) -> None:
        async def lane():
            while time.monotonic() < until:
                await self.one_player()
        await asyncio.gather(*(lane() for _ in range(live)))


async def run(args) -> dict:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    http_port, media_port = _free_tcp_port(), _free_udp_range(args.workers)
    config_path = out / "sluice.json"
    write_test_config(config_path, http_port, media_port, args.workers,
                      {"rtc": {"iceConsentTimeoutSeconds": args.consent}, "log": {"level": "info"}})
    command = shlex.split(args.wrap) + [args.binary, "--config", str(config_path)]
    log = open(out / "server.log", "wb")
    server = subprocess.Popen(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    ws_url = f"ws://127.0.0.1:{http_port}/ws"
    samples = []
    tables = None
    pid = server.pid
    try:
        if args.wrap:
            # The tool's child is the server: the newest process whose command line names it.
            await asyncio.sleep(2)
            found = subprocess.run(["pgrep", "-n", "-f", f"{args.binary} --config {config_path}"],
                                   capture_output=True, text=True).stdout.split()
            pid = int(found[0]) if found else pid
        for _ in range(300):
            try:
                client = await open_session(ws_url)
                await client.close()
                break
            except Exception:
                await asyncio.sleep(0.2)
        publisher = await publish(ws_url, "churn")
        churn = Churn(ws_url, "churn", pid)
        started = time.monotonic()
        until = started + args.minutes * 60
        task = asyncio.ensure_future(churn.keep(args.live, until))
        while not task.done():
            samples.append({"t": round(time.monotonic() - started, 1), "joins": churn.joins, **memory_kib(pid)})
            print(f"churn: {samples[-1]['t']:7.1f} s  {churn.joins:5d} joins  rss {samples[-1]['rssKiB']} KiB  "
                  f"(anon {samples[-1].get('anonKiB')})  failures {len(churn.failures)}", flush=True)
            await asyncio.wait([task], timeout=args.sample)
        await task
        await asyncio.sleep(args.consent + 2)
        samples.append({"t": round(time.monotonic() - started, 1), "joins": churn.joins, **memory_kib(pid)})
        await publisher.close()
        tables = await asyncio.to_thread(read_tables, http_port, config_path)
    finally:
        if args.kill:
            # Under heaptrack: what is still allocated at the kill is what the churn left.
            os.kill(pid, signal.SIGKILL)
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    warm = [s for s in samples if s["t"] >= args.warmup * 60]
    report = {
        "minutes": args.minutes, "joins": churn.joins, "decoded": churn.decoded, "byWay": churn.by_way,
        "failures": len(churn.failures), "firstFailures": churn.failures[:10],
        "rssStartKiB": samples[0]["rssKiB"], "rssEndKiB": samples[-1]["rssKiB"],
        "kibPerJoinAfterWarmup": round(slope([(s["joins"], s["rssKiB"]) for s in warm]), 4),
        "anonKibPerJoinAfterWarmup": round(slope([(s["joins"], s["anonKiB"]) for s in warm if "anonKiB" in s]), 4),
        "fileKibPerJoinAfterWarmup": round(slope([(s["joins"], s["fileKiB"]) for s in warm if "fileKiB" in s]), 4),
        "warmupMinutes": args.warmup,
        # Every table kept per session, handle and stream, with nothing connected any more
        # (GET /api/v1/tables; None from a server without it).
        "tablesAtEnd": tables, "samples": samples,
    }
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--warmup", type=float, default=10, help="minutes left out of the slope")
    parser.add_argument("--live", type=int, default=6, help="players at a time")
    parser.add_argument("--sample", type=float, default=30, help="seconds between RSS samples")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--consent", type=int, default=3, help="rtc.iceConsentTimeoutSeconds")
    parser.add_argument("--binary", default=str(REPO / ".build" / "release" / "sluice"))
    parser.add_argument("--out", default=str(REPO / "artifacts" / "churn"), help="folder for the report and logs")
    parser.add_argument("--kill", action="store_true", help="end the server with SIGKILL, not SIGTERM")
    parser.add_argument("--wrap", default="", help="a command the server runs under, e.g. heaptrack")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    summary = {k: v for k, v in report.items() if k != "samples"}
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
