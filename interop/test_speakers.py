"""The active speaker (`speakers`, `activeSpeakers`, `dominantSpeaker`): three aiortc
publishers in one prefix with scripted audio (a tone switched on and off). A follower hears
the floor move to each new speaker, in order, and never to a 300 ms burst; a muted speaker
drops out; a browser following through the JS SDK sees the same floors; it works with the
follower on another node than the publishers. The hand-over
latency (from the switch to the follower's notification) is measured over 20 hand-overs;
its p50 and p95 are the note's figures."""

import asyncio
import os
import statistics
import time

from conftest_cluster import make_cluster, poll_until  # noqa: F401 (the fixture)
from sdk_pages import sdk_pages
from sessions import open_session
from speaker_peers import Speaker

PREFIX = "spk-"
HAND_OVERS = 20
# Across nodes CI runs fewer (a cluster costs more to start); SLUICE_CROSS_NODE_HAND_OVERS=20
# gives the figure over as many as on one node.
CROSS_NODE_HAND_OVERS = int(os.environ.get("SLUICE_CROSS_NODE_HAND_OVERS", "6"))

# A browser follower through the JS SDK: every dominantSpeaker it saw, in order.
SDK_FOLLOW = """async ([url, prefix]) => {
  const session = await Sluice.connect(url, {appKey: 'defaultApp'});
  window.floors = [];
  window.speakersSeen = new Set();
  session.on('dominantSpeaker', (name) => window.floors.push(name));
  session.on('activeSpeakers', (list) => list.forEach((s) => window.speakersSeen.add(s.name)));
  await session.followSpeakers({prefix});
  window.follower = session;
}"""


async def _dominant(follower, name, after: float, timeout: float = 5.0):
    """The follower's next dominantSpeaker; it must name `name`. Its latency from `after`."""
    note = await follower.wait_notification(lambda n: n.method == "dominantSpeaker", timeout,
                                            f"dominantSpeaker {name}")
    assert note.params.get("name") == name, (note.params, name)
    return note.received_at - after


def _percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


async def _hand_overs(speakers, follower, count):
    """Alternates the first two speakers `count` times: each switch stops one tone and starts
    the other at once; the next switch comes after the floor moved and the new holder held
    it for its 500 ms. Returns the latencies (s)."""
    a, b = speakers[0], speakers[1]
    a.track.on = True
    await _dominant(follower, a.stream, time.monotonic(), timeout=10)
    await asyncio.sleep(0.8)
    latencies = []
    current, other = a, b
    for _ in range(count):
        current.track.on, other.track.on = False, True
        switched = time.monotonic()
        latencies.append(await _dominant(follower, other.stream, switched))
        await asyncio.sleep(0.8)
        current, other = other, current
    return latencies, current


async def _scenario(publish_url, follow_url, figures, label, count, page=None):
    speakers = [Speaker(PREFIX + n) for n in ("a", "b", "c")]
    outsider = Speaker("other-x")
    follower = None
    try:
        for s in speakers + [outsider]:
            await s.publish(publish_url)
        follower = await open_session(follow_url)
        assert await follower.call("speakers", {"prefix": PREFIX}) == {}
        if page:
            await page.evaluate(SDK_FOLLOW, [follow_url, PREFIX])
        outsider.track.on = True  # loud, but not in the set: never named

        latencies, holder = await _hand_overs(speakers, follower, count)

        # A 300 ms burst from the third speaker while the holder speaks: no change of floor,
        # though it shows among the active speakers.
        burst = speakers[2]
        burst.track.on = True
        await asyncio.sleep(0.3)
        burst.track.on = False
        await asyncio.sleep(1.5)
        floors = [n.params.get("name") for n in follower.notifications
                  if n.method == "dominantSpeaker" and not n.consumed]
        assert floors == [], f"the floor moved on a burst: {floors}"

        # The holder mutes itself: it drops out at once (the floor goes to nobody), and the
        # active list empties.
        await holder.client.call("mute", {"handle": holder.handle, "kind": "audio"})
        await _dominant(follower, None, time.monotonic())
        note = await follower.wait_notification(
            lambda n: n.method == "activeSpeakers" and n.params.get("speakers") == [], 5, "an empty activeSpeakers")
        assert note is not None

        named = {s["name"] for n in follower.notifications if n.method == "activeSpeakers"
                 for s in n.params.get("speakers", [])}
        assert "other-x" not in named, named
        assert burst.stream in named, f"the burst never showed as speaking: {named}"
        levels = [s["level"] for n in follower.notifications if n.method == "activeSpeakers"
                  for s in n.params.get("speakers", [])]
        assert levels and all(-50 <= level <= 0 for level in levels), levels

        if page:
            # The SDK's follower saw the same floors in the same order.
            floors = [n.params.get("name") for n in follower.notifications if n.method == "dominantSpeaker"]
            await asyncio.sleep(0.5)
            seen = await page.evaluate("window.floors")
            assert seen == floors, (seen, floors)
            assert await page.evaluate("window.follower.dominantSpeaker") is None

        ms = [round(x * 1000) for x in latencies]
        figures({f"{label}HandOvers": len(ms), f"{label}HandOverP50Ms": _percentile(ms, 0.5),
                 f"{label}HandOverP95Ms": _percentile(ms, 0.95), f"{label}HandOverMaxMs": max(ms),
                 f"{label}HandOverMeanMs": round(statistics.mean(ms))})
    finally:
        if follower:
            await follower.close()
        for s in speakers + [outsider]:
            await s.close()


def test_dominant_speaker_follows_hand_overs(server, figures):
    async def run():
        console = []
        async with sdk_pages(server, 1, console) as (page,):
            await _scenario(server.ws_url, server.ws_url, figures, "oneNode", HAND_OVERS, page)
    asyncio.run(run())


def test_a_follower_on_another_node(make_cluster, figures):
    cluster = make_cluster(2)
    origin, edge = cluster.nodes
    asyncio.run(_scenario(origin.ws_url, edge.ws_url, figures, "acrossNodes", CROSS_NODE_HAND_OVERS))
