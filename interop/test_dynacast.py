"""Dynacast with the browser SDK in Chromium (docs/protocol.md section 6, "Dynacast"): a
3-layer simulcast publisher whose only player watches at 320 wide is told, with
`layersWanted`, that the upper two layers have no taker, and the SDK stops them (their bytes
stop growing). A second player that wants 1280 brings the top layer back and decodes it. A recording,
and a player on an edge node, count as takers of the layer they take. The control: with `dynacast: false` all three keep
flowing; its upload for the same one low player, against the first test's, is what dynacast
saves."""

import asyncio
import contextlib
import time

import pytest

from conftest_cluster import make_cluster, poll_until  # noqa: F401 (the fixture)
from polling import poll
from sdk_pages import sdk_pages

STREAM = "dynacast-camera"

PUBLISH = """async ([url, name, record]) => {
  const camera = await navigator.mediaDevices.getUserMedia(
    {video: {width: {exact: 1280}, height: {exact: 720}, frameRate: 30}, audio: false});
  const session = await Sluice.connect(url, {appKey: 'defaultApp'});
  const stream = await session.publish(name, camera, {simulcast: true, record});
  window.dyn = {session, stream, events: []};
  stream.on('streamEvent', (e) => window.dyn.events.push(e));
  return stream.handle;
}"""

# Each rid's bytes sent so far and its frame width.
ENCODINGS = """async () => {
  const stats = await window.dyn.stream.getPeerStats();
  const out = {};
  for (const e of (stats.video && stats.video.encodings) || []) out[e.rid] = {bytes: e.bytes, width: e.frameWidth};
  return out;
}"""

PLAY = """async ([url, name, key, video]) => {
  const session = await Sluice.connect(url, {appKey: 'defaultApp'});
  const requested = performance.now();
  const stream = await session.play(name, video ? {constraints: {video}} : {});
  window.players = window.players || {};
  window.players[key] = {session, stream, requested};
  return stream.handle;
}"""

def _player(key: str) -> str:
    """A JS expression: the player's decoded width and frames, and the time since its play
    request (null before it plays)."""
    return ("(async () => { const p = window.players && window.players['%s']; if (!p) return null;"
            " const v = (await p.stream.getPeerStats()).video || {};"
            " return {width: v.frameWidth || 0, frames: v.framesDecoded || 0, ms: performance.now() - p.requested}; })()"
            % key)


async def _growth(publisher, seconds: float) -> tuple[dict, float]:
    """Bytes each rid sent over `seconds`, and the publisher's whole video upload (kbit/s)."""
    before = await publisher.evaluate(ENCODINGS)
    await asyncio.sleep(seconds)
    after = await publisher.evaluate(ENCODINGS)
    grown = {rid: after[rid]["bytes"] - before.get(rid, {}).get("bytes", 0) for rid in after}
    return grown, round(sum(grown.values()) * 8 / 1000 / seconds, 1)


async def _publish(publisher, server, rids: str, record: bool = False):
    """Publishes, and waits for each of `rids` to send frames."""
    await publisher.evaluate(PUBLISH, [server.ws_url, STREAM, record])
    await poll(publisher, ENCODINGS, lambda e: all(e.get(r, {}).get("width", 0) > 0 for r in rids), 30,
               f"encodings {rids} sending")


@contextlib.asynccontextmanager
async def _low_audience(server, rids: str, record: bool = False):
    """A publisher page (`_publish`) and a player page whose player decodes 320 wide."""
    async with sdk_pages(server, 2, []) as (publisher, player):
        await _publish(publisher, server, rids, record)
        await player.evaluate(PLAY, [server.ws_url, STREAM, "low", {"width": 320, "height": 180}])
        await poll(player, _player("low"), lambda s: bool(s) and s["width"] == 320, 30,
                   "the low player decoding 320 wide")
        yield publisher, player


def test_unwatched_layers_stop_and_come_back(server, figures):
    asyncio.run(_unwatched(server, figures))


async def _unwatched(server, figures):
    # With no player at all, only the lowest layer is wanted after the grace time.
    async with _low_audience(server, "q") as (publisher, player):
        # Dynacast's grace is 3 s: the upper layers' taker (none) is gone by then.
        wanted = await poll(publisher, "window.dyn.stream.layersWanted", lambda r: r == ["q"], 15,
                            "layersWanted [q] at the publisher")
        await asyncio.sleep(1)  # setParameters takes effect at the next frame
        grown, low_kbps = await _growth(publisher, 2)
        assert grown.get("h", 0) == 0 and grown.get("f", 0) == 0, f"the paused layers still send: {grown}"
        assert grown.get("q", 0) > 0, f"the wanted layer stopped: {grown}"

        # A player that wants the top layer: it comes back, and that player decodes 1280.
        await player.evaluate(PLAY, [server.ws_url, STREAM, "high", None])
        started = time.monotonic()
        high = await poll(player, _player("high"), lambda s: bool(s) and s["width"] == 1280, 30,
                          "the high player decoding 1280 wide")
        resumed = await publisher.evaluate("window.dyn.stream.layersWanted")
        assert "f" in resumed, f"the top layer was not asked for again: {resumed}"
        events = await publisher.evaluate("window.dyn.events.filter((e) => e.type === 'layersWanted')")
        assert all(e["by"] == "server" and len(e["data"]["rids"]) == len(e["data"]["layers"]) for e in events), events
        # The upload without dynacast, for the same audience, is the control's figure.
        figures({"uploadOneLowPlayerKbps": low_kbps,
                 "layersWanted": [e["data"]["rids"] for e in events], "firstWanted": wanted,
                 "playToTopLayerDecodedMs": round(high["ms"]), "pollSecondsToTopLayer": round(time.monotonic() - started, 1)})


@pytest.fixture
def server_config_overrides(request, tmp_path):
    """The test's parameter: dynacast off, or a recording folder."""
    param = getattr(request, "param", None)
    if param == "dynacast off":
        return {"apps": [{"key": "defaultApp", "dynacast": False}]}
    if param == "recording":
        return {"recording": {"folder": str(tmp_path / "recordings")}}
    return {}


@pytest.mark.parametrize("server_config_overrides", ["recording"], indirect=True)
def test_a_recording_is_a_taker(server, figures):
    asyncio.run(_recorded(server, figures))


async def _recorded(server, figures):
    """The recording takes the top layer (recording.layer's default): with one player at 320,
    the top layer keeps flowing for it and only the middle one is paused."""
    async with _low_audience(server, "q", record=True) as (publisher, _):
        wanted = await poll(publisher, "window.dyn.stream.layersWanted", lambda r: r == ["q", "f"], 20,
                            "layersWanted [q, f] at the publisher")
        await asyncio.sleep(1)
        grown, kbps = await _growth(publisher, 2)
        assert grown.get("h", 0) == 0, f"the middle layer, with no taker, still sends: {grown}"
        assert grown.get("q", 0) > 0 and grown.get("f", 0) > 0, f"a layer with a taker stopped: {grown}"
        figures({"wanted": wanted, "uploadLowPlayerAndRecordingKbps": kbps})


def test_an_edge_player_is_a_taker(make_cluster, figures):
    asyncio.run(_edge(make_cluster(2), figures))


async def _edge(cluster, figures):
    """A player on an edge node that wants the top layer keeps it flowing from the publisher on
    the origin (its link's wanted layers count); the middle layer, which nobody takes, pauses."""
    origin, edge = cluster.nodes
    console = []
    async with sdk_pages(origin, 1, console) as (publisher,), sdk_pages(edge, 1, console) as (player,):
        await _publish(publisher, origin, "q")
        await poll_until(lambda: any(s["name"] == STREAM for s in edge.cluster_view()["streams"]),
                         "the edge sees the stream")
        await player.evaluate(PLAY, [edge.ws_url, STREAM, "edge", None])
        played = await poll(player, _player("edge"), lambda s: bool(s) and s["width"] == 1280, 30,
                            "the edge player decoding 1280 wide")
        wanted = await poll(publisher, "window.dyn.stream.layersWanted", lambda r: r == ["q", "f"], 20,
                            "layersWanted [q, f] at the publisher")
        await asyncio.sleep(1)
        grown, kbps = await _growth(publisher, 2)
        assert grown.get("h", 0) == 0, f"the middle layer, with no taker, still sends: {grown}"
        assert grown.get("f", 0) > 0, f"the edge player's layer stopped: {grown}"
        figures({"wanted": wanted, "edgePlayToTopLayerMs": round(played["ms"]), "uploadEdgePlayerKbps": kbps})


@pytest.mark.parametrize("server_config_overrides", ["dynacast off"], indirect=True)
def test_without_dynacast_every_layer_flows(server, figures):
    asyncio.run(_control(server, figures))


async def _control(server, figures):
    async with _low_audience(server, "qhf") as (publisher, _):
        await asyncio.sleep(5)  # past the grace time
        grown, kbps = await _growth(publisher, 2)
        assert all(grown.get(r, 0) > 0 for r in "qhf"), f"a layer stopped without dynacast: {grown}"
        assert await publisher.evaluate("window.dyn.stream.layersWanted") is None
        figures({"uploadWithoutDynacastKbps": kbps})
