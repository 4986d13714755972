"""Layers on a link (issue 9, docs/cluster.md "Layers on a link"): a relay link carries only the
simulcast layers the edge's players need now, and asks for more when one switches. Two nodes
(two media workers each, so the edge's player may sit on another worker than the link) and a
real Redis; Chromium publishes three layers (320/640/1280) on node 1.

- A Chromium player on node 2 with `quality: low` decodes 320-wide frames, and node 2's
  `/metrics` (`sluice_cluster_link_layer_packets_total`) shows only layer 0 arriving over the
  link while the origin receives all three.
- `update` to `quality: high`: the player decodes 1280-wide frames; now layer 2 flows over the
  link, and layer 0 stops (no player needs it).
- A second player with `quality: medium` joins on the edge's other worker (so one of the two is
  fed across workers, and its need reaches the link's worker): layers 1 and 2 flow; when it
  stops, layer 1 stops.

The control: with the origin forwarding every layer (the link before "Layers on a link"), the
counters of layers 1 and 2 grow while the player is on layer 0, and the first assertion fails.
"""

import asyncio
import re
import time

from chromium import chromium_page
from conftest_cluster import make_cluster, poll_until  # noqa: F401 (the fixture)
from polling import poll
from simulcast_page import SIMULCAST_SCRIPT

WIDTHS = {"q": 320, "h": 640, "f": 1280}
LAYER_PACKETS = re.compile(r'^sluice_cluster_link_layer_packets_total\{stream="([^"]*)",layer="(\d+)"\} (\d+)$', re.M)
# What the counters are compared over: the edge publishes them once a second.
WINDOW_S = 3.0


def layer_packets(node, stream) -> dict[int, int]:
    return {int(layer): int(value) for name, layer, value in LAYER_PACKETS.findall(node.metrics()) if name == stream}


async def flow(node, stream) -> dict[int, int]:
    """Packets per layer that arrived on node's link of `stream` over WINDOW_S."""
    before = layer_packets(node, stream)
    await asyncio.sleep(WINDOW_S)
    after = layer_packets(node, stream)
    return {layer: after.get(layer, 0) - before.get(layer, 0) for layer in sorted(after)}


def test_link_carries_only_the_layers_players_need(make_cluster, figures):
    asyncio.run(_layers(make_cluster(2, workers=2), figures))


async def _layers(cluster, figures):
    node1, node2 = cluster.nodes
    stream = "layered"
    async with chromium_page() as page:
        await page.evaluate(SIMULCAST_SCRIPT)
        await page.evaluate("([url, stream]) => window.sim.publish(url, stream)", [node1.ws_url, stream])
        await poll(page, "window.sim.outbound()",
                   lambda o: all(o.get(rid, {}).get("frameWidth") == w for rid, w in WIDTHS.items()),
                   30, "three encodings at 320/640/1280")
        await poll_until(lambda: any(s["name"] == stream and s.get("codecs") for s in node2.cluster_view()["streams"]), "node 2 sees the stream")

        await page.evaluate("([url, stream, name, c]) => window.sim.play(url, stream, name, c)",
                            [node2.ws_url, stream, "edge", {"video": {"quality": "low"}}])
        await poll(page, "window.sim.inbound('edge')", lambda s: s["frameWidth"] == 320 and s["framesDecoded"] >= 30,
                   30, "node-2 player decoding 320-wide frames")
        await poll_until(lambda: len(layer_packets(node2, stream)) == 3, "node 2's link counts three layers")
        low = await flow(node2, stream)
        # What the origin receives, for the control: every layer is published meanwhile.
        published = await page.evaluate("window.sim.outbound()")
        assert all(published[rid]["frameWidth"] == w for rid, w in WIDTHS.items()), published
        assert low[0] > 15, f"the low layer flows over the link: {low}"
        assert low[1] == 0 and low[2] == 0, f"only the low layer may flow over the link while the player is on it: {low}"

        # The switch: the link must first bring layer 2, then the player switches on its key frame.
        frames = (await page.evaluate("window.sim.inbound('edge')"))["framesDecoded"]
        asked = time.monotonic()
        await page.evaluate("window.sim.update('edge', {video: {quality: 'high'}})")
        await poll(page, "window.sim.inbound('edge')", lambda s: s["frameWidth"] == 1280, 20,
                   "node-2 player decoding 1280-wide frames after the update")
        switch_s = time.monotonic() - asked
        # The edge's own layer choice is told as on one node: layerChanged, from node 2.
        await poll(page, "window.sim.events('edge')",
                   lambda es: any(e["params"].get("type") == "layerChanged"
                                  and e["params"].get("data", {}).get("width") == 1280 for e in es), 10,
                   "node-2 player's layerChanged to the 1280-wide layer")
        after = await poll(page, "window.sim.inbound('edge')", lambda s: s["framesDecoded"] >= frames + 60, 20,
                           "node-2 player decoding on")
        assert after["frameWidth"] == 1280, after
        # The old layer drains within a second or so (the edge's counters lag a second).
        await asyncio.sleep(1.5)
        high = await flow(node2, stream)
        assert high[2] > 15, f"the high layer flows over the link after the switch: {high}"
        assert high[0] == 0 and high[1] == 0, f"no other layer may flow once no player needs it: {high}"

        # A second player, `quality: medium`, on the edge's other worker: the link carries the
        # union of both players' layers, whichever of them sits off the link's worker.
        await page.evaluate("([url, stream, name, c]) => window.sim.play(url, stream, name, c)",
                            [node2.ws_url, stream, "mid", {"video": {"quality": "medium"}}])
        await poll(page, "window.sim.inbound('mid')", lambda s: s["frameWidth"] == 640 and s["framesDecoded"] >= 30,
                   30, "node-2 player `mid` decoding 640-wide frames")
        status, view = node2.get(f"/api/v1/streams/{stream}")
        assert status == 200, (status, view)
        placed = sorted(p.get("worker") for p in view["players"])
        assert placed == [0, 1], f"node 2's players on both workers: {placed}"
        both = await flow(node2, stream)
        assert both[1] > 15 and both[2] > 15, f"the link carries both players' layers: {both}"
        assert both[0] == 0, f"no player needs layer 0: {both}"

        # `mid` leaves: its layer stops.
        await page.evaluate("window.sim.players['mid'].client.call('stop', {handle: window.sim.players['mid'].handle})")
        await asyncio.sleep(1.5)
        alone = await flow(node2, stream)
        assert alone[2] > 15 and alone[1] == 0 and alone[0] == 0, f"only the high layer once `mid` left: {alone}"
        figures({"lowPlayer": {"linkPacketsPerLayer": low, "windowS": WINDOW_S},
                 "highPlayer": {"linkPacketsPerLayer": high, "windowS": WINDOW_S},
                 "highAndMediumPlayers": {"linkPacketsPerLayer": both, "workers": placed, "windowS": WINDOW_S},
                 "highAfterMediumLeft": {"linkPacketsPerLayer": alone, "windowS": WINDOW_S},
                 "switchToHighS": round(switch_s, 2)})
