"""TURN through Debian's coturn: Sluice hands out coturn's shared-secret credentials in
`connect`'s `iceServers`, and headless Chromium with `iceTransportPolicy: "relay"` publishes
and plays through the relay, using the browser SDK served by the server and nothing but the
`iceServers` it got from `connect`. The control: with a wrong secret in Sluice's config coturn
refuses the allocation (401) and the page's ICE gets nowhere."""

import asyncio
import statistics

import pytest

from conftest import _safe_name
from coturn import coturn
from polling import poll
from sdk_pages import sdk_pages

SECRET = "turn-secret-shared-by-sluice-and-coturn"
STREAM = "turn-camera"
PAGE = "/turn-test.html"

# Records every RTCPeerConnection the SDK makes: its configuration, the candidates it
# gathers, its candidate errors and its ICE states. It wraps the browser's own class and
# changes nothing of what it does.
RECORDER = r"""
(() => {
  const Native = window.RTCPeerConnection;
  const record = window.turnTest = {pcs: []};
  window.RTCPeerConnection = class extends Native {
    constructor(config) {
      super(config);
      const entry = {config: JSON.parse(JSON.stringify(config || {})), candidates: [], errors: [], states: [],
                     gathering: []};
      record.pcs.push(entry);
      this.addEventListener('icecandidate', (e) => {
        if (e.candidate && e.candidate.candidate) entry.candidates.push(e.candidate.type);
      });
      this.addEventListener('icecandidateerror', (e) => entry.errors.push({code: e.errorCode, text: e.errorText, url: e.url}));
      this.addEventListener('iceconnectionstatechange', () => entry.states.push(this.iceConnectionState));
      this.addEventListener('icegatheringstatechange', () => entry.gathering.push(this.iceGatheringState));
    }
  };
})();
"""

PUBLISH = """async ([url, name, policy]) => {
  const camera = await navigator.mediaDevices.getUserMedia({video: {width: 640, height: 480}, audio: true});
  const options = {appKey: 'defaultApp'};
  if (policy) options.iceTransportPolicy = policy;
  const session = await Sluice.connect(url, options);
  const stream = await session.publish(name, camera);
  Object.assign(window.turnTest, {session, stream});
  return {sessionId: session.sessionId, iceServers: session.iceServers, pc: window.turnTest.pcs.length - 1};
}"""

# A fresh session plays; resolves at its first decoded frame with the time since the play
# request (performance.now(), 10 ms polling), or with null after 20 s.
PLAY = """async ([url, name, policy, iceServers]) => {
  const options = {appKey: 'defaultApp'};
  if (policy) options.iceTransportPolicy = policy;
  if (iceServers) options.iceServers = iceServers;
  const session = await Sluice.connect(url, options);
  const requested = performance.now();
  const stream = await session.play(name, {});
  Object.assign(window.turnTest, {playSession: session, player: stream});
  const firstFrameMs = await new Promise((resolve) => {
    const give = setTimeout(() => { clearInterval(timer); resolve(null); }, 20000);
    const timer = setInterval(async () => {
      const stats = await stream.getPeerStats();
      if (stats.video && stats.video.framesDecoded > 0) {
        clearInterval(timer); clearTimeout(give); resolve(performance.now() - requested);
      }
    }, 10);
  });
  return {sessionId: session.sessionId, iceServers: session.iceServers, pc: window.turnTest.pcs.length - 1,
          firstFrameMs: firstFrameMs === null ? null : Math.round(firstFrameMs * 10) / 10};
}"""


@pytest.fixture
def sluice_turn_secret() -> str:
    """The secret Sluice signs with; the control parametrizes a wrong one."""
    return SECRET


@pytest.fixture
def turn(request, artifacts, tmp_path):
    with coturn(SECRET, artifacts / f"turnserver-{_safe_name(request.node.name)}.log", tmp_path) as server:
        yield server


@pytest.fixture
def server_config_overrides(turn, sluice_turn_secret) -> dict:
    rtc = {"turn": [{"urls": [turn.url], "secret": sluice_turn_secret, "ttlSeconds": 600}]}
    if sluice_turn_secret != SECRET:
        # The control also waits for the server to give up on the transport nobody reaches.
        rtc["iceConsentTimeoutSeconds"] = 4
    return {"rtc": rtc}


async def _peer(page, key: str) -> dict:
    return await page.evaluate(f"window.turnTest.{key}.getPeerStats()")


async def _frames(page, key: str) -> int:
    return ((await _peer(page, key)).get("video") or {}).get("framesDecoded", 0)


async def _play_once(page, server, policy, ice_servers):
    played = await page.evaluate(PLAY, [server.ws_url, STREAM, policy, ice_servers])
    assert played["firstFrameMs"] is not None, f"no frame decoded within 20 s: {played}"
    start = await _frames(page, "player")
    await poll(page, "window.turnTest.player.getPeerStats()",
               lambda s: ((s.get("video") or {}).get("framesDecoded", 0)) >= start + 30, 20, "30 more decoded frames")
    peer = await _peer(page, "player")
    pc = (await page.evaluate("window.turnTest.pcs"))[played["pc"]]
    await page.evaluate("window.turnTest.playSession.disconnect()")
    return played, peer, pc


def test_chromium_publishes_and_plays_through_coturn(server, turn, figures):
    asyncio.run(_through_coturn(server, turn, figures))


async def _through_coturn(server, turn, figures):
    console = []
    async with sdk_pages(server, 2, console, RECORDER, PAGE) as (publisher, player):
        published = await publisher.evaluate(PUBLISH, [server.ws_url, STREAM, "relay"])
        # connect's iceServers: coturn's URL with a credential for this session.
        [ice] = published["iceServers"]
        assert ice["urls"] == [turn.url], ice
        expiry, user = ice["username"].split(":", 1)
        assert user == published["sessionId"], ice
        pub_pc = (await publisher.evaluate("window.turnTest.pcs"))[published["pc"]]
        assert pub_pc["config"]["iceTransportPolicy"] == "relay", pub_pc["config"]
        assert pub_pc["config"]["iceServers"] == published["iceServers"], pub_pc["config"]
        await poll(publisher, "window.turnTest.stream.status", lambda s: s == "PUBLISHING", 20, "PUBLISHING")
        pub_peer = await poll(publisher, "window.turnTest.stream.getPeerStats()",
                              lambda s: (s.get("candidatePair") or {}).get("localType") is not None, 10,
                              "a selected candidate pair on the publisher")
        assert pub_peer["candidatePair"]["localType"] == "relay", pub_peer

        # Players one after another over the relay and over plain UDP (no ICE servers at
        # all), in ABBA order after one warm-up play that is not counted: the first player
        # of a stream waits for its first key frame differently.
        runs = {"relay": [], "udp": [], "warm-up": []}
        for policy in ["warm-up", "udp", "relay", "relay", "udp", "udp", "relay"]:
            played, peer, pc = await _play_once(
                player, server, "relay" if policy == "relay" else None,
                [] if policy != "relay" else None)
            pair = peer["candidatePair"]
            if policy == "relay":
                assert pc["config"]["iceTransportPolicy"] == "relay", pc["config"]
                assert pc["config"]["iceServers"] == played["iceServers"] != [], pc["config"]
                assert pc["candidates"] and set(pc["candidates"]) == {"relay"}, pc
                assert pair["localType"] == "relay", peer
            else:
                assert pc["config"]["iceServers"] == [], pc["config"]
                assert pair["localType"] == "host", peer
            assert peer["video"]["framesDecoded"] >= 30, peer
            runs[policy].append({"firstFrameMs": played["firstFrameMs"], "sessionId": played["sessionId"],
                                 "framesDecoded": peer["video"]["framesDecoded"], "pair": pair})

    # coturn allocated for the publisher and both relayed players under their session ids.
    log = turn.log()
    for session in [published["sessionId"]] + [r["sessionId"] for r in runs["relay"]]:
        assert f":{session}>: incoming packet ALLOCATE processed, success" in log, \
            f"coturn log {turn.log_path} shows no allocation for session {session}"
    turn_ms = [r["firstFrameMs"] for r in runs["relay"]]
    udp_ms = [r["firstFrameMs"] for r in runs["udp"]]
    figures({"playToFirstDecodedMsTURN": turn_ms, "playToFirstDecodedMsUDP": udp_ms,
             "warmUpPlayMs": runs["warm-up"][0]["firstFrameMs"],
             "medianTURNMs": statistics.median(turn_ms), "medianUDPMs": statistics.median(udp_ms),
             "publisherPair": pub_peer["candidatePair"], "relayPlayerPair": runs["relay"][0]["pair"],
             "udpPlayerPair": runs["udp"][0]["pair"]})


@pytest.mark.parametrize("sluice_turn_secret", ["not-the-coturn-secret"])
def test_wrong_turn_secret_is_refused_by_coturn(server, turn, sluice_turn_secret):
    asyncio.run(_wrong_secret(server, turn))


async def _wrong_secret(server, turn):
    console = []
    async with sdk_pages(server, 1, console, RECORDER, PAGE) as (publisher,):
        published = await publisher.evaluate(PUBLISH, [server.ws_url, STREAM, "relay"])
        [ice] = published["iceServers"]
        assert ice["urls"] == [turn.url], ice
        # The page hears coturn's 401 for the allocation and gathers no candidate at all, so
        # its ICE has nothing to check (Chromium then stays "new" rather than "failed"); the
        # server, which never hears a check, fails the handle by ICE timeout.
        pc = await poll(publisher, f"window.turnTest.pcs[{published['pc']}]",
                        lambda pc: any(e["code"] == 401 for e in pc["errors"]) and "complete" in pc["gathering"],
                        15, "a 401 candidate error and gathering complete")
        assert pc["candidates"] == [], pc
        ended = await poll(publisher, "[window.turnTest.stream.status, window.turnTest.stream.info]",
                           lambda s: s[0] == "FAILED", 15, "the publish handle FAILED")
        assert ended == ["FAILED", "Failed by ICE timeout"], ended
        pc = (await publisher.evaluate("window.turnTest.pcs"))[published["pc"]]
        assert not {"checking", "connected", "completed"} & set(pc["states"]), pc
        peer = await _peer(publisher, "stream")
        assert peer["candidatePair"] is None, peer
        assert ((peer.get("video") or {}).get("packets") or 0) == 0, peer
    log = turn.log()
    session = published["sessionId"]
    assert f":{session}>: incoming packet message processed, error 401" in log, \
        f"coturn log {turn.log_path} shows no 401 for session {session}"
    assert "ALLOCATE processed, success" not in log, f"coturn allocated anyway; log {turn.log_path}"
