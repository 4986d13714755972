"""ICE-TCP (RFC 6544 passive candidates, RFC 4571 framing): Chromium behind a network that drops
every UDP packet publishes and plays through the server's TCP port.

The UDP-less Chromiums run in a namespace of their own (udp_blocked_namespace.py); a UDP player
in the test's namespace plays the same stream, for the time-to-first-frame figure. The control:
with `rtc.tcpPort: 0` the same blocked publisher never connects, while a UDP one does.
"""

import asyncio
import statistics
import time

import pytest

from chromium import CHROMIUM, chromium_page, wait_page_status
from polling import poll
from udp_blocked_namespace import SERVER_ADDR, chromium_in_namespace, dropped_udp_packets, udp_blocked_namespace

CAMERA_WIDTH, CAMERA_HEIGHT = 640, 480

# Keeps every RTCPeerConnection the page makes, and reads the selected candidate pair the way
# webrtc-stats defines it: the transport's selectedCandidatePairId, else the nominated
# succeeded pair.
PAIR_SCRIPT = r"""
(() => {
  const Original = window.RTCPeerConnection;
  window.__pcs = [];
  window.RTCPeerConnection = function (...args) {
    const pc = new Original(...args);
    window.__pcs.push(pc);
    return pc;
  };
  window.RTCPeerConnection.prototype = Original.prototype;
  window.iceState = () => {
    const pc = window.__pcs[window.__pcs.length - 1];
    return pc ? {ice: pc.iceConnectionState, connection: pc.connectionState} : null;
  };
  window.answerCandidates = () => {
    const pc = window.__pcs[window.__pcs.length - 1];
    const sdp = pc && pc.remoteDescription ? pc.remoteDescription.sdp : '';
    return sdp.split('\r\n').filter((l) => l.startsWith('a=candidate:'));
  };
  window.selectedPair = async () => {
    const pc = window.__pcs[window.__pcs.length - 1];
    if (!pc) return null;
    const report = await pc.getStats();
    let pair = null;
    report.forEach((s) => {
      if (s.type === 'transport' && s.selectedCandidatePairId) pair = report.get(s.selectedCandidatePairId);
    });
    if (!pair) report.forEach((s) => {
      if (s.type === 'candidate-pair' && s.nominated && s.state === 'succeeded') pair = s;
    });
    if (!pair) return null;
    const side = (id) => {
      const c = report.get(id);
      return c ? {protocol: c.protocol, candidateType: c.candidateType, tcpType: c.tcpType || null,
                  address: c.address, port: c.port} : null;
    };
    return {state: pair.state, nominated: !!pair.nominated, local: side(pair.localCandidateId),
            remote: side(pair.remoteCandidateId), bytesSent: pair.bytesSent, bytesReceived: pair.bytesReceived};
  };
})();
"""


def rtc_tcp_port(port: int):
    """Marks a test whose server runs with this `rtc.tcpPort` (the default follows `rtc.port`)."""
    def mark(function):
        function.rtc_tcp_port = port
        return function
    return mark


@pytest.fixture
def no_udp_namespace():
    with udp_blocked_namespace():
        yield


@pytest.fixture
def server_config_overrides(request, no_udp_namespace):
    rtc = {"bindAddress": SERVER_ADDR, "announcedAddresses": [SERVER_ADDR]}
    port = getattr(request.function, "rtc_tcp_port", None)
    if port is not None:
        rtc["tcpPort"] = port
    return {"server": {"host": SERVER_ADDR}, "rtc": rtc}


async def _prepare(page) -> None:
    await page.evaluate(PAIR_SCRIPT)


async def _selected_pair(page, protocol: str, timeout: float = 15) -> dict:
    return await poll(page, "window.selectedPair()",
                      lambda p: p is not None and (p.get("local") or {}).get("protocol") == protocol,
                      timeout, f"a selected candidate pair with a {protocol} local candidate")


async def _inbound(page, predicate, timeout: float, what: str) -> dict:
    stats = await poll(page, "window.sluice.videoStats()",
                       lambda s: s.get("inbound") is not None and predicate(s["inbound"]), timeout, what)
    return stats["inbound"]


async def _server_transport(page, handle: str, protocol: str) -> dict:
    """The server's view of the handle's path (getStats `transport`), once it is `protocol`."""
    stats = await poll(page, f"window.sluice.call('getStats', {{handle: '{handle}'}})",
                       lambda s: (s.get("transport") or {}).get("protocol") == protocol, 10,
                       f"getStats transport.protocol {protocol}", interval=0.25)
    return stats["transport"]


async def _play(page, server, stream: str) -> dict:
    """Plays `stream`; returns the timing and the inbound stats once 30 frames of the
    camera's size are decoded."""
    played = await page.evaluate("([url, stream]) => window.sluice.play(url, stream)", [server.ws_url, stream])
    await wait_page_status(page, "PLAYING", 20)
    await _inbound(page, lambda s: s["framesDecoded"] > 0, 20, "a decoded frame")
    inbound = await _inbound(page, lambda s: s["framesDecoded"] >= 30 and (s["frameWidth"], s["frameHeight"])
                             == (CAMERA_WIDTH, CAMERA_HEIGHT), 30, "30 decoded frames at the camera's size")
    timing = await page.evaluate("window.sluice.playTiming()")
    return {"timing": timing, "inbound": inbound, "handle": played["handle"]}


def _metric(server, name: str) -> float:
    status, text = server.get("/metrics")
    assert status == 200, f"/metrics answered {status}"
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name + "{") or line.startswith(name + " "))


def test_chromium_publishes_and_plays_over_ice_tcp(server, figures, tmp_path):
    asyncio.run(_over_ice_tcp(server, figures, tmp_path))


# Players over TCP (behind the block) and over UDP (the test's namespace), alternated so that
# neither kind always joins first: the time-to-first-frame figure compares them in one run.
PLAYER_ORDER = ["tcp", "udp", "udp", "tcp"]


async def _over_ice_tcp(server, figures, tmp_path):
    stream = "ice-tcp-camera"
    blocked = chromium_in_namespace(tmp_path)
    console = []
    try:
        async with chromium_page(console, executable=blocked) as publisher:
            await _prepare(publisher)
            started = time.monotonic()
            published = await publisher.evaluate(
                "([url, stream, w, h]) => window.sluice.publish(url, stream, w, h)",
                [server.ws_url, stream, CAMERA_WIDTH, CAMERA_HEIGHT])
            assert (published["width"], published["height"]) == (CAMERA_WIDTH, CAMERA_HEIGHT), published
            candidates = await publisher.evaluate("window.answerCandidates()")
            assert any(" tcp " in c and "tcptype passive" in c and f" {SERVER_ADDR} " in c for c in candidates), candidates
            await wait_page_status(publisher, "PUBLISHING", 20)
            publish_to_publishing_ms = round((time.monotonic() - started) * 1000)
            publisher_pair = await _selected_pair(publisher, "tcp")
            assert publisher_pair["remote"]["protocol"] == "tcp", publisher_pair
            assert publisher_pair["remote"]["tcpType"] == "passive", publisher_pair
            await _server_transport(publisher, published["handle"], "tcp")

            timings = {"tcp": [], "udp": []}
            pairs = {}
            for i, kind in enumerate(PLAYER_ORDER):
                async with chromium_page(console, executable=blocked if kind == "tcp" else CHROMIUM) as page:
                    await _prepare(page)
                    played = await _play(page, server, stream)
                    pairs[kind] = await _selected_pair(page, kind)
                    timings[kind].append(played["timing"])
                    server_side = await _server_transport(page, played["handle"], kind)
                    if i == len(PLAYER_ORDER) - 1:
                        # The last player (TCP) keeps decoding after the others came and went.
                        seen = played["inbound"]["framesDecoded"]
                        later = await _inbound(page, lambda s: s["framesDecoded"] >= seen + 30, 20,
                                               "30 more frames over TCP")
                        assert (later["frameWidth"], later["frameHeight"]) == (CAMERA_WIDTH, CAMERA_HEIGHT), later
                        received = _metric(server, "sluice_worker_tcp_frames_received_total")
                        sent = _metric(server, "sluice_worker_tcp_frames_sent_total")
                        open_connections = _metric(server, "sluice_worker_tcp_connections")
                        dropped_by_queue = _metric(server, "sluice_worker_tcp_send_dropped_packets_total")
                        assert server_side.get("sendDroppedPackets") == 0, server_side
            assert pairs["tcp"]["remote"]["tcpType"] == "passive", pairs
            dropped = dropped_udp_packets()
            assert dropped > 0, "Chromium sent no UDP at all: the block was not tested"
            assert received > 0 and sent > 0, (received, sent)
            assert open_connections >= 2, open_connections
            first = {kind: [t["playToFirstDecodedMs"] for t in timings[kind]] for kind in timings}
            figures({
                "playToFirstDecodedMs": first,
                "playToFirstDecodedMsMedian": {kind: statistics.median(v) for kind, v in first.items()},
                "playerTimings": timings, "playerOrder": PLAYER_ORDER,
                "publishToPublishingMsOverTCP": publish_to_publishing_ms,
                "lastTCPPlayerInbound": later, "publisherPair": publisher_pair, "playerPairs": pairs,
                "udpPacketsDroppedByTheBlock": dropped, "tcpFramesReceived": received, "tcpFramesSent": sent,
                "tcpSendQueueDrops": dropped_by_queue,
            })
    finally:
        if console:
            print("chromium console:", *console[-30:], sep="\n  ")


@rtc_tcp_port(0)
def test_without_ice_tcp_a_udp_blocked_publisher_never_connects(server, figures, tmp_path):
    asyncio.run(_without_ice_tcp(server, figures, tmp_path))


async def _without_ice_tcp(server, figures, tmp_path):
    console = []
    try:
        async with chromium_page(console, executable=chromium_in_namespace(tmp_path)) as blocked:
            await _prepare(blocked)
            await blocked.evaluate("([url, stream, w, h]) => window.sluice.publish(url, stream, w, h)",
                                   [server.ws_url, "no-tcp-blocked", CAMERA_WIDTH, CAMERA_HEIGHT])
            candidates = await blocked.evaluate("window.answerCandidates()")
            assert candidates and not any(" tcp " in c for c in candidates), candidates

            # The server still works over UDP: a publisher that has UDP connects meanwhile.
            async with chromium_page(console) as with_udp:
                await _prepare(with_udp)
                await with_udp.evaluate("([url, stream, w, h]) => window.sluice.publish(url, stream, w, h)",
                                        [server.ws_url, "no-tcp-udp", CAMERA_WIDTH, CAMERA_HEIGHT])
                await wait_page_status(with_udp, "PUBLISHING", 20)
                await _selected_pair(with_udp, "udp")

                # Much longer than the TCP publisher above needs to reach PUBLISHING.
                deadline = time.monotonic() + 12
                while time.monotonic() < deadline:
                    statuses = await blocked.evaluate("window.sluice.statuses()")
                    assert "PUBLISHING" not in statuses, f"connected without TCP and UDP: {statuses}"
                    await asyncio.sleep(0.5)
            state = await blocked.evaluate("window.iceState()")
            pair = await blocked.evaluate("window.selectedPair()")
            stats = await blocked.evaluate("window.sluice.videoStats()")
            assert state["ice"] not in ("connected", "completed"), state
            assert pair is None or pair.get("state") != "succeeded", pair
            assert dropped_udp_packets() > 0
            figures({"blockedIceState": state, "blockedStatuses": await blocked.evaluate("window.sluice.statuses()"),
                     "blockedOutbound": stats.get("outbound")})
    finally:
        if console:
            print("chromium console:", *console[-30:], sep="\n  ")
