"""One stream on every media worker (issue 9). With `rtc.workers: 2` the publisher's stream
lives on its home worker, and players go to the least-loaded worker: those on the other worker
are fed by the home handing each packet once across (docs/design.md "One stream on every
worker"). Chromium publishes three simulcast layers; Chromium players on both workers decode the
layer they asked for, switch by `update`, follow the publisher's mute, and have their losses
repaired by NACK from the one retransmission buffer."""

import asyncio

from chromium import chromium_page
from polling import poll
from simulcast_page import SIMULCAST_SCRIPT
from test_admin_api import admin_token, http
from test_loss import LOSS_PERCENT, _downstream, _drop, _stop_dropping
from test_simulcast import _start_publisher

QUALITY_WIDTH = {"low": 320, "medium": 640, "high": 1280}


async def _placement(server, stream):
    """(publisher's worker, {player handle: worker}) from the admin API."""
    status, _, view = await http(server, "GET", f"/api/v1/streams/{stream}", admin_token(server))
    assert status == 200, f"GET /api/v1/streams/{stream}: {status} {view}"
    return view["publisher"]["worker"], {p["handle"]: p["worker"] for p in view["players"]}


async def _relay_counters(server):
    """{(worker, event): packets} of sluice_worker_relay_packets_total."""
    status, _, text = await http(server, "GET", "/metrics")
    assert status == 200, f"/metrics: {status}"
    counters = {}
    for line in text.splitlines():
        if line.startswith("sluice_worker_relay_packets_total{"):
            labels, value = line[line.index("{") + 1:line.index("}")], line.split()[-1]
            parts = dict(item.split("=", 1) for item in labels.split(","))
            counters[(int(parts["worker"].strip('"')), parts["event"].strip('"'))] = int(float(value))
    return counters


async def _play_three(page, server, stream, qualities):
    handles = {}
    for name, quality in qualities.items():
        handles[name] = await page.evaluate(
            "([url, stream, name, c]) => window.sim.play(url, stream, name, c)",
            [server.ws_url, stream, name, {"video": {"quality": quality}}])
    return handles


def test_players_on_both_workers_get_their_layers(server, figures):
    assert len(server.media_ports) >= 2, "this test needs rtc.workers >= 2 (SLUICE_TEST_WORKERS)"
    asyncio.run(_both_workers(server, figures))


async def _both_workers(server, figures):
    stream = "workers-layers"
    async with chromium_page() as page:
        await _start_publisher(page, server, stream)
        qualities = {"a": "low", "b": "medium", "c": "high"}
        handles = await _play_three(page, server, stream, qualities)
        for name, quality in qualities.items():
            await poll(page, f"window.sim.inbound('{name}')",
                       lambda s, w=QUALITY_WIDTH[quality]: s["frameWidth"] == w and s["framesDecoded"] >= 10,
                       30, f"player {name} decoding {QUALITY_WIDTH[quality]}-wide frames")

        # Placement: players on both workers, so some are fed across from the home worker.
        home, workers = await _placement(server, stream)
        placed = {name: workers[handle] for name, handle in handles.items()}
        assert set(placed.values()) == {0, 1}, f"players all on one worker: {placed}"
        relayed = [name for name, worker in placed.items() if worker != home]
        assert relayed, f"no player off the home worker {home}: {placed}"
        counters = await _relay_counters(server)
        other = 1 - home
        assert counters.get((home, "handed"), 0) > 0 and counters.get((other, "delivered"), 0) > 0, counters

        # `update` switches on both workers: each player moves to another layer.
        moves = {"a": "high", "b": "low", "c": "medium"}
        for name, quality in moves.items():
            await page.evaluate(f"window.sim.update('{name}', {{video: {{quality: '{quality}'}}}})")
        for name, quality in moves.items():
            await poll(page, f"window.sim.inbound('{name}')",
                       lambda s, w=QUALITY_WIDTH[quality]: s["frameWidth"] == w, 15,
                       f"player {name} (worker {placed[name]}) switching to {QUALITY_WIDTH[quality]}")

        # The publisher's video mute reaches the players on both workers, and so does the unmute.
        await page.evaluate("window.sim.pub.client.call('mute', {handle: window.sim.pub.handle, kind: 'video'})")
        await asyncio.sleep(1.0)
        before = {name: (await page.evaluate(f"window.sim.inbound('{name}')"))["framesDecoded"] for name in handles}
        await asyncio.sleep(1.5)
        after = {name: (await page.evaluate(f"window.sim.inbound('{name}')"))["framesDecoded"] for name in handles}
        grew = {name: after[name] - before[name] for name in handles}
        assert all(g == 0 for g in grew.values()), f"frames decoded while muted, by player: {grew} ({placed})"
        await page.evaluate("window.sim.pub.client.call('unmute', {handle: window.sim.pub.handle, kind: 'video'})")
        for name in handles:
            await poll(page, f"window.sim.inbound('{name}')",
                       lambda s, n=after[name]: s["framesDecoded"] >= n + 10, 15,
                       f"player {name} (worker {placed[name]}) decoding again after unmute")
        figures({"home": home, "placement": placed, "relayCounters": {f"{w}/{e}": v for (w, e), v in counters.items()}})


def test_loss_is_repaired_on_both_workers(server, figures):
    assert len(server.media_ports) >= 2, "this test needs rtc.workers >= 2 (SLUICE_TEST_WORKERS)"
    asyncio.run(_loss_both_workers(server, figures))


async def _loss_both_workers(server, figures):
    """5% loss toward the players: each one NACKs, and the retransmissions (over RTX) come from
    its own worker, whichever worker the stream's retransmission buffer lives on."""
    stream = "workers-loss"
    async with chromium_page() as page:
        await _start_publisher(page, server, stream)
        handles = await _play_three(page, server, stream, {"a": "medium", "b": "medium", "c": "medium"})
        for name in handles:
            await poll(page, f"window.sim.inbound('{name}')", lambda s: s["framesDecoded"] >= 10, 30,
                       f"player {name} first frames")
        home, workers = await _placement(server, stream)
        placed = {name: workers[handle] for name, handle in handles.items()}
        assert set(placed.values()) == {0, 1}, f"players all on one worker: {placed}"
        start = {name: await page.evaluate(f"window.sim.inbound('{name}')") for name in handles}
        _drop(_downstream(server))
        try:
            await asyncio.sleep(8)
        finally:
            _stop_dropping()
        end = {name: await page.evaluate(f"window.sim.inbound('{name}')") for name in handles}
        run = {name: {key: end[name][key] - start[name][key]
                      for key in ("framesDecoded", "packetsLost", "nackCount", "retransmittedPacketsReceived",
                                  "pliCount", "keyFramesDecoded", "freezeCount")}
               for name in handles}
        for name in handles:
            run[name]["frameWidth"] = [start[name]["frameWidth"], end[name]["frameWidth"]]
        figures({"loss": f"{LOSS_PERCENT}% downstream", "home": home, "placement": placed, "players": run})
        for name, figures_of in run.items():
            where = f"player {name} on worker {placed[name]} (home {home})"
            assert figures_of["nackCount"] > 0, f"{where} never NACKed: was any loss applied? {figures_of}"
            assert figures_of["retransmittedPacketsReceived"] > 0, f"{where} got no retransmission: {figures_of}"
            # About 8 s at 20-30 fps: repaired loss keeps nearly every frame decodable.
            assert figures_of["framesDecoded"] >= 120, f"{where} decoded only {figures_of['framesDecoded']}"
