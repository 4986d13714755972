"""A publisher's media stops while its ICE and DTLS stay up (issue 9, "Failed by RTP activity").

aiortc's senders get replaceTrack(None): their RTP loop then idles, while aiortc keeps sending
RTCP sender reports and aioice its consent checks, so the transport stays up and only the
media is gone. With rtc.rtpTimeoutSeconds at 2 the publisher must fail with "Failed by RTP
activity", and its `wait: true` player must get UNPUBLISHED "Stopped by publisher stop" and keep
its handle. The control is a second publisher on the same server that keeps sending over the
same window: it stays PUBLISHING and its player keeps decoding."""

import asyncio
import time

import pytest

from conftest_cluster import make_cluster, poll_until  # noqa: F401 (the fixture)
from sessions import close_all, play, publish

RTP_TIMEOUT_SECONDS = 2


@pytest.fixture
def server_config_overrides():
    # The consent timeout stays at its 10 s, so an ICE timeout cannot be what ends the stream.
    return {"rtc": {"rtpTimeoutSeconds": RTP_TIMEOUT_SECONDS, "iceConsentTimeoutSeconds": 10}}


def test_publisher_whose_media_stops_fails_by_rtp_activity(server):
    asyncio.run(_media_stops(server))


async def _media_stops(server):
    stalled = steady = waiting = watcher = None
    try:
        stalled = await publish(server.ws_url, "rtp-stall")
        steady = await publish(server.ws_url, "rtp-steady")
        for pub in (stalled, steady):
            await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        waiting = await play(server.ws_url, "rtp-stall", wait=True)
        watcher = await play(server.ws_url, "rtp-steady")
        for player in (waiting, watcher):
            await player.client.wait_status(player.handle, "PLAYING", 15)
            await player.peer.wait_frames(5, 10)

        # The media stops; the connection does not.
        states = []
        stalled.peer.pc.on("connectionstatechange", lambda: states.append(stalled.peer.pc.connectionState))
        for sender in stalled.peer.pc.getSenders():
            sender.replaceTrack(None)
        stopped_at = time.monotonic()
        frames_at_stop = len(watcher.peer.frames)

        failed = await stalled.client.wait_status(stalled.handle, "FAILED", RTP_TIMEOUT_SECONDS + 8)
        assert failed.params.get("info") == "Failed by RTP activity", failed.params
        waited = time.monotonic() - stopped_at
        # ICE and DTLS were up all along: the publisher's side never saw its connection fail
        # (the server's DTLS close_notify after the FAILED may close it, which races the
        # status: "closed" is that, "failed" would be a transport that went down).
        assert "failed" not in states and stalled.peer.pc.connectionState in ("connected", "closed"), \
            (states, stalled.peer.pc.connectionState)

        # The waiting player is told, and keeps its handle (protocol.md: as for any publisher end).
        gone = await waiting.client.wait_status(waiting.handle, "UNPUBLISHED", 5)
        assert gone.params.get("info") == "Stopped by publisher stop", gone.params
        stats = await waiting.client.get_stats(waiting.handle)
        assert stats.get("handle") == waiting.handle, stats

        # Control: the publisher that kept sending, over the same window and a second more.
        await asyncio.sleep(1)
        assert "FAILED" not in steady.client.statuses(steady.handle), steady.client.notifications
        assert steady.client.statuses(steady.handle)[-1] == "PUBLISHING", steady.client.statuses(steady.handle)
        assert watcher.client.statuses(watcher.handle)[-1] == "PLAYING", watcher.client.statuses(watcher.handle)
        decoded = len(watcher.peer.frames) - frames_at_stop
        assert decoded >= 15 * RTP_TIMEOUT_SECONDS, f"the steady stream's player decoded {decoded} frames"
        print(f"FAILED 'Failed by RTP activity' {waited:.1f} s after the media stopped; "
              f"the steady stream's player decoded {decoded} frames meanwhile")
    finally:
        await close_all(stalled, steady, waiting, watcher)


def test_origin_stream_whose_media_stops_ends_on_the_edge(make_cluster):
    asyncio.run(_media_stops_on_origin(make_cluster(2, overrides={"rtc": {
        "rtpTimeoutSeconds": RTP_TIMEOUT_SECONDS, "iceConsentTimeoutSeconds": 10}})))


async def _media_stops_on_origin(cluster):
    """The same seen from an edge: the origin (node 1) fails its publisher, and the players on
    node 2, fed over a relay link, are told as its own would be. The control: node 2's player
    of a second stream on node 1 that keeps sending stays PLAYING."""
    node1, node2 = cluster.nodes
    stalled = steady = waiting = watcher = None
    try:
        stalled = await publish(node1.ws_url, "edge-stall")
        steady = await publish(node1.ws_url, "edge-steady")
        for pub in (stalled, steady):
            await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        for name in ("edge-stall", "edge-steady"):
            await poll_until(lambda n=name: any(s["name"] == n and s.get("codecs") for s in node2.cluster_view()["streams"]),
                             f"node 2 sees {name}")
        waiting = await play(node2.ws_url, "edge-stall", wait=True)
        watcher = await play(node2.ws_url, "edge-steady")
        for player in (waiting, watcher):
            await player.client.wait_status(player.handle, "PLAYING", 15)
            await player.peer.wait_frames(5, 15)

        for sender in stalled.peer.pc.getSenders():
            sender.replaceTrack(None)
        failed = await stalled.client.wait_status(stalled.handle, "FAILED", RTP_TIMEOUT_SECONDS + 8)
        assert failed.params.get("info") == "Failed by RTP activity", failed.params
        gone = await waiting.client.wait_status(waiting.handle, "UNPUBLISHED", 10)
        assert gone.params.get("info") == "Stopped by publisher stop", gone.params
        frames = len(watcher.peer.frames)
        await watcher.peer.wait_frames(frames + 30, 15)
        assert watcher.client.statuses(watcher.handle)[-1] == "PLAYING", watcher.client.statuses(watcher.handle)
    finally:
        await close_all(stalled, steady, waiting, watcher)
