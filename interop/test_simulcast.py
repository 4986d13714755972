"""Simulcast: headless Chromium publishes its fake 1280x720 camera with three encodings
(scale 4/2/1), and Chromium players get the layer their constraints ask for."""

import asyncio

from chromium import chromium_page
from polling import poll
from simulcast_page import SIMULCAST_SCRIPT

WIDTHS = {"q": 320, "h": 640, "f": 1280}


async def _start_publisher(page, server, stream):
    await page.evaluate(SIMULCAST_SCRIPT)
    await page.evaluate("([url, stream]) => window.sim.publish(url, stream)", [server.ws_url, stream])
    # The browser raises its rate on the server's transport-wide feedback until it sends all
    # three layers at their full sizes.
    return await poll(page, "window.sim.outbound()",
                       lambda o: all(o.get(rid, {}).get("frameWidth") == w for rid, w in WIDTHS.items()),
                       30, "three encodings at 320/640/1280")


def test_simulcast_layers_follow_play_constraints(server, figures, artifacts):
    asyncio.run(_layers_follow_constraints(server, figures, artifacts))


async def _layers_follow_constraints(server, figures, artifacts):
    stream = "simulcast-constraints"
    cases = {
        "low": ({"video": {"quality": "low"}}, 320),
        "medium": ({"video": {"quality": "medium"}}, 640),
        "high": ({"video": {"quality": "high"}}, 1280),
        "box640": ({"video": {"width": 640, "height": 360}}, 640),
    }
    async with chromium_page() as page:
        outbound = await _start_publisher(page, server, stream)
        for name, (constraints, _) in cases.items():
            await page.evaluate("([url, stream, name, c]) => window.sim.play(url, stream, name, c)",
                                [server.ws_url, stream, name, constraints])
        seen = {}
        for name, (_, width) in cases.items():
            stats = await poll(page, f"window.sim.inbound('{name}')",
                                lambda s, w=width: s["frameWidth"] == w and s["framesDecoded"] >= 10,
                                30, f"player {name} decoding {width}-wide frames")
            seen[name] = stats
            events = await page.evaluate(f"window.sim.events('{name}')")
            changes = [e["params"]["data"] for e in events if e["params"]["type"] == "layerChanged"]
            assert changes and changes[-1]["width"] == width, f"{name}: layerChanged events {changes}"
        await page.screenshot(path=str(artifacts / "simulcast-players.png"))
        figures({"publisherOutbound": outbound, "players": seen})


def test_update_switches_layer_without_gap(server, figures):
    asyncio.run(_update_switches(server, figures))


async def _update_switches(server, figures):
    """Ten switches by `update` between low, medium and high: each lands on the wanted width,
    with no packet lost, no NACK and no key frame asked for by the player (one unbroken stream)."""
    stream = "simulcast-update"
    async with chromium_page() as page:
        await _start_publisher(page, server, stream)
        await page.evaluate("([url, stream]) => window.sim.play(url, stream, 'p', {video: {quality: 'low'}})",
                            [server.ws_url, stream])
        before = await poll(page, "window.sim.inbound('p')",
                             lambda s: s["frameWidth"] == 320 and s["framesDecoded"] >= 20, 30, "low layer")
        switch_ms = []
        sequence = [("high", 1280), ("low", 320), ("medium", 640), ("high", 1280), ("medium", 640),
                    ("low", 320), ("high", 1280), ("low", 320), ("medium", 640), ("high", 1280)]
        for quality, width in sequence:
            requested = await page.evaluate("window.sim.now()")
            await page.evaluate(f"window.sim.update('p', {{video: {{quality: '{quality}'}}}})")
            after = await poll(page, "window.sim.inbound('p')",
                                lambda s, w=width: s["frameWidth"] == w, 15, f"switch to {width}")
            events = await page.evaluate("window.sim.events('p')")
            change = [e for e in events if e["params"]["type"] == "layerChanged"
                      and e["params"]["data"]["width"] == width and e["at"] >= requested]
            assert change, f"no layerChanged to {width}: {[e['params'] for e in events]}"
            assert change[-1]["params"]["data"]["reason"] == "constraints", change[-1]
            # From the update to the event that announces the switch (the key frame's arrival).
            switch_ms.append(round(change[-1]["at"] - requested, 1))
            # Frames keep coming after the switch.
            await poll(page, "window.sim.inbound('p')",
                        lambda s, n=after["framesDecoded"]: s["framesDecoded"] >= n + 15, 15, "frames after switch")
        final = await page.evaluate("window.sim.inbound('p')")
        reasons = [e["params"]["data"]["reason"] for e in await page.evaluate("window.sim.events('p')")
                   if e["params"]["type"] == "layerChanged"]
        ordered = sorted(switch_ms)
        figures({"updateToLayerChangedMs": switch_ms, "layerChangedReasons": reasons, "p50Ms": ordered[len(ordered) // 2],
                 "p95Ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))],
                 "before": before, "final": final})
        assert final["packetsLost"] == 0, f"the player saw a sequence gap: {final}"
        assert final["nackCount"] == 0, f"the player NACKed: {final}"
        # The decoder never lost its reference: a switch that broke the stream (a gap, a frame
        # out of place) makes Chromium ask for a key frame. Its freezeCount is kept as a figure
        # only: it is measured on the wall clock, and a stall of the publisher on a busy
        # machine counts there too.
        assert final["pliCount"] == 0, f"the player asked for a key frame: {final}"
        assert final["framesDecoded"] > before["framesDecoded"]


def test_fps_cap_drops_temporal_layers(server, figures):
    asyncio.run(_fps_cap(server, figures))


async def _fps_cap(server, figures):
    """`fps: 10` on a layer with three VP8 temporal layers: the player gets TL0 (and TL1 when
    the publisher runs below 30 fps) only, as one unbroken stream (no loss, no NACK, no key frame
    asked for; freezeCount is a wall-clock figure, recorded only)."""
    stream = "simulcast-fps"
    async with chromium_page() as page:
        await _start_publisher(page, server, stream)
        for name, video in (("full", {"quality": "high"}), ("half", {"quality": "high", "fps": 10})):
            await page.evaluate("([url, stream, name, c]) => window.sim.play(url, stream, name, c)",
                                [server.ws_url, stream, name, {"video": video}])
            await poll(page, f"window.sim.inbound('{name}')",
                       lambda s: s["frameWidth"] == 1280 and s["framesDecoded"] >= 10, 30, f"{name} at 1280")
        # The server's stats are a snapshot taken once a second: with instant join both players
        # can be at 1280 before the first one that saw the publisher's packets.
        published = await page.evaluate("window.sim.publisherStats()")
        for _ in range(50):
            if any(l["temporalLayers"] >= 2 for l in published["video"]["layers"]):
                break
            await asyncio.sleep(0.1)
            published = await page.evaluate("window.sim.publisherStats()")
        top = max(published["video"]["layers"], key=lambda l: l["width"])
        assert top["temporalLayers"] >= 2, f"the publisher sends no VP8 temporal layers: {published['video']}"
        start = {n: await page.evaluate(f"window.sim.inbound('{n}')") for n in ("full", "half")}
        await asyncio.sleep(4)
        end = {n: await page.evaluate(f"window.sim.inbound('{n}')") for n in ("full", "half")}
        rate = {n: (end[n]["framesDecoded"] - start[n]["framesDecoded"]) / ((end[n]["at"] - start[n]["at"]) / 1000)
                for n in ("full", "half")}
        figures({"decodedFps": {n: round(r, 1) for n, r in rate.items()}, "topLayer": top, "half": end["half"]})
        assert rate["half"] <= rate["full"] * 0.7, f"the capped player decoded {rate}"
        assert rate["half"] >= rate["full"] * 0.15, f"the capped player lost its base layers: {rate}"
        for key in ("packetsLost", "nackCount", "pliCount"):
            assert end["half"][key] == 0, f"capped player {key}: {end['half']}"
