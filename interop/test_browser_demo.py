"""The browser demo (web/index.html) and SDK (web/sdk/sluice.js), served by the server itself
and driven through the page's own controls in headless Chromium with the fake camera."""

import asyncio
import contextlib
import json
import socket
import time

import pytest
from playwright.async_api import async_playwright

from chromium import CHROMIUM, CHROMIUM_ARGS

STREAM = "browser-demo"


async def _poll(page, script: str, timeout: float, what: str, arg=None):
    """Evaluates `script` until it returns something truthy; on timeout, fails with the page's log."""
    deadline = time.monotonic() + timeout
    value = None
    while time.monotonic() < deadline:
        value = await page.evaluate(script, arg)
        if value:
            return value
        await asyncio.sleep(0.2)
    log = await page.evaluate("window.demo.log.map((e) => e.kind + ' ' + e.text)")
    raise AssertionError(f"no {what} within {timeout} s (last {value!r}); demo log:\n  " + "\n  ".join(log[-40:]))


async def _frames_decoded(page) -> int:
    stats = await page.evaluate("window.demo.player ? window.demo.player.getPeerStats() : null")
    return ((stats or {}).get("video") or {}).get("framesDecoded", 0)


async def _wait_more_frames(page, count: int, timeout: float, what: str) -> int:
    start = await _frames_decoded(page)
    deadline = time.monotonic() + timeout
    now = start
    while time.monotonic() < deadline:
        now = await _frames_decoded(page)
        if now >= start + count:
            return now
        await asyncio.sleep(0.25)
    raise AssertionError(f"player decoded {now - start} frames {what} (wanted {count} within {timeout} s)")


STATUS_OF = """([key, status]) => {
  const stream = window.demo[key];
  return !!stream && window.demo.log.some((e) => e.kind === 'status' && e.data.handle === stream.handle
                                           && e.data.status === status);
}"""

EVENT_FOR_PLAYER = """(type) => {
  const player = window.demo.player;
  const hit = player && window.demo.log.find((e) => e.kind === 'event' && e.data.handle === player.handle
                                              && e.data.type === type);
  return hit ? hit.data : null;
}"""

REPLY_OF = """(method) => {
  const hit = window.demo.log.filter((e) => (e.kind === 'reply' || e.kind === 'error') && e.data.method === method);
  return hit.length ? hit.map((e) => ({kind: e.kind, result: e.data.result, params: e.data.params,
                                       code: e.data.code, reason: e.data.reason})) : null;
}"""


@contextlib.asynccontextmanager
async def demo_page(server, origin: str | None = None, extra_args: tuple = ()):
    """Chromium showing the demo page from the server, connected; prints its console at the end.
    `origin` ("https://name:port") replaces the server's own URL, for a name that `extra_args`
    maps to it (test_tls)."""
    console = []
    origin = origin or server.http_url
    ws_url = origin.replace("https://", "wss://", 1).replace("http://", "ws://", 1) + "/ws"
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                          args=CHROMIUM_ARGS + list(extra_args))
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 980})
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
            await page.goto(origin + "/")
            assert await page.title() == "Sluice demo"
            assert await page.input_value("#url") == ws_url, "the URL defaults to the page's own host"
            assert await page.input_value("#appKey") == "defaultApp"
            await page.click("#connectBtn")
            await _poll(page, "window.demo.log.some((e) => e.kind === 'session' && e.data.status === 'ESTABLISHED')",
                        10, "session ESTABLISHED")
            yield page
        finally:
            await browser.close()
            if console:
                print("chromium console:", *console[-30:], sep="\n  ")


async def _publish_and_play(page, simulcast: bool) -> float:
    """Publishes the fake camera and plays it back through the page's controls; returns the
    time from the Play click to the first decoded frame, in ms."""
    await page.fill("#pubName", STREAM)
    await page.select_option("#pubResolution", "640x480")
    await page.fill("#pubBitrate", "1200")
    if simulcast:
        await page.check("#pubSimulcast")
    await page.click("#publishBtn")
    await _poll(page, STATUS_OF, 15, "PUBLISHING", ["publisher", "PUBLISHING"])
    assert await page.input_value("#playName") == STREAM
    requested = time.monotonic()
    await page.click("#playBtn")
    await _poll(page, STATUS_OF, 15, "PLAYING", ["player", "PLAYING"])
    await _wait_more_frames(page, 1, 20, "after PLAYING")
    return round((time.monotonic() - requested) * 1000)


async def _candidates_in_offers(page) -> dict:
    return await page.evaluate("""() => ({
      publish: (window.demo.publisher.offerSdp.match(/^a=candidate/mg) || []).length,
      play: (window.demo.player.offerSdp.match(/^a=candidate/mg) || []).length})""")


def test_browser_demo_publish_play_update_mute(server, artifacts, figures):
    asyncio.run(_drive_demo(server, artifacts, figures))


async def _drive_demo(server, artifacts, figures):
    async with demo_page(server) as page:
        first_frame_ms = await _publish_and_play(page, simulcast=False)
        await _wait_more_frames(page, 30, 20, "in steady play")

        # Quality through the UI: a `change` on the select sends `update`, which answers {}.
        await page.select_option("#playQuality", "low")
        updates = await _poll(page, REPLY_OF, 10, "reply to update", "update")
        assert updates[-1]["kind"] == "reply", updates
        assert updates[-1]["result"] == {}, updates
        assert updates[-1]["params"]["constraints"]["video"]["quality"] == "low", updates
        await page.fill("#playWidth", "320")
        await page.press("#playWidth", "Enter")
        updates = await _poll(page, f"(m) => {{ const r = ({REPLY_OF})(m); return r && r.length >= 2 ? r : null; }}",
                              10, "reply to the second update", "update")
        assert [u["kind"] for u in updates] == ["reply", "reply"], updates
        assert updates[-1]["params"]["constraints"]["video"] == {"quality": "low", "width": 320}, updates
        assert updates[-1]["result"] == {}, updates
        await _wait_more_frames(page, 30, 20, "after the quality changes")

        # The publisher's video mute reaches the player as a streamEvent.
        await page.click("#pubMuteVideo")
        muted = await _poll(page, EVENT_FOR_PLAYER, 10, "videoMuted on the player", "videoMuted")
        assert muted.get("by") == "publisher", muted
        assert await page.text_content("#pubMuteVideo") == "Unmute video"
        await page.click("#pubMuteVideo")
        unmuted = await _poll(page, EVENT_FOR_PLAYER, 10, "videoUnmuted on the player", "videoUnmuted")
        assert unmuted.get("by") == "publisher", unmuted
        assert await page.text_content("#pubMuteVideo") == "Mute video"
        mutes = await page.evaluate(REPLY_OF, "mute")
        unmutes = await page.evaluate(REPLY_OF, "unmute")
        assert [m["result"] for m in mutes] == [{}] and [m["result"] for m in unmutes] == [{}], (mutes, unmutes)
        await _wait_more_frames(page, 30, 20, "after unmute")

        # The speaking pills: the page follows its own names, and Chromium's beeping fake
        # microphone shows as speaking on both panels (the publish and the play of one name).
        speaking = await _poll(page, "window.demo.speaking && window.demo.speaking.publisher"
                                     " && window.demo.speaking.player ? window.demo.speaking : null",
                               15, "the speaking pills")
        assert -50 <= speaking["publisher"]["level"] <= 0, speaking

        # The stats panel shows the server's figures and the browser's.
        await _poll(page, "window.demo.stats.play && window.demo.stats.play.server.video", 5, "server play stats")
        stats = await page.evaluate("window.demo.stats")
        assert await page.text_content("#playHandle") == stats["play"]["handle"]
        assert "decoded" in await page.text_content("#playStats")
        errors = await page.evaluate("window.demo.log.filter((e) => e.kind === 'error').map((e) => e.text)")
        assert not errors, errors
        await page.screenshot(path=str(artifacts / "browser-demo.png"))
        figures({"playToFirstDecodedMsUpperBound": first_frame_ms,
                 "candidatesInOffers": await _candidates_in_offers(page),
                 "playServerStats": stats["play"]["server"].get("video"),
                 "playPeerStats": stats["play"]["peer"].get("video")})

        await page.click("#connectBtn")
        await _poll(page, "window.demo.session === null && window.demo.log.some((e) => e.kind === 'session'"
                          " && e.text.startsWith('socket closed'))", 10, "the session's end")
        assert await page.text_content("#connectBtn") == "Connect"


def test_browser_demo_simulcast_publish(server, artifacts, figures):
    asyncio.run(_drive_simulcast(server, artifacts, figures))


async def _drive_simulcast(server, artifacts, figures):
    async with demo_page(server) as page:
        first_frame_ms = await _publish_and_play(page, simulcast=True)
        offer = await page.evaluate("window.demo.publisher.offerSdp")
        assert "a=simulcast:send q;h;f" in offer, offer
        for rid in "qhf":
            assert f"a=rid:{rid} send" in offer, offer
        encodings = await page.evaluate("""() => window.demo.publisher.peerConnection.getSenders()
            .filter((s) => s.track && s.track.kind === 'video')[0].getParameters().encodings
            .map((e) => ({rid: e.rid, scale: e.scaleResolutionDownBy, maxBitrate: e.maxBitrate}))""")
        assert [(e["rid"], e["scale"]) for e in encodings] == [("q", 4), ("h", 2), ("f", 1)], encodings
        assert sum(e["maxBitrate"] for e in encodings) == 1_200_000, encodings
        await _wait_more_frames(page, 10, 20, "from the simulcast publisher")

        await page.select_option("#playQuality", "low")
        updates = await _poll(page, REPLY_OF, 10, "reply to update", "update")
        assert [(u["kind"], u["result"]) for u in updates] == [("reply", {})], updates
        # The server may not switch layers yet, and Chromium drops layers it cannot encode in
        # time: what arrives is recorded, not asserted.
        await asyncio.sleep(2)
        stats = await page.evaluate("window.demo.stats")
        answer = await page.evaluate("window.demo.publisher.answerSdp")
        await page.screenshot(path=str(artifacts / "browser-demo-simulcast.png"))
        figures({"playToFirstDecodedMsUpperBound": first_frame_ms,
                 "answerSimulcast": [line for line in answer.splitlines()
                                     if line.startswith(("a=simulcast", "a=rid"))],
                 "publisherEncodings": ((stats.get("publish") or {}).get("peer") or {}).get("video"),
                 "playPeerStats": ((stats.get("play") or {}).get("peer") or {}).get("video")})
        errors = await page.evaluate("window.demo.log.filter((e) => e.kind === 'error').map((e) => e.text)")
        assert not errors, errors


def _raw_get(port: int, target: str) -> tuple[int, dict, bytes]:
    """One GET with the request target sent byte for byte (urllib would normalize `..`)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, headers, body


def test_static_files_over_http(server):
    port = int(server.http_url.rsplit(":", 1)[1])
    status, headers, body = _raw_get(port, "/")
    assert status == 200 and headers["content-type"].startswith("text/html"), (status, headers)
    assert headers.get("cache-control") == "no-cache"
    assert b"<title>Sluice demo</title>" in body

    for path, kind in [("/sdk/sluice.js", "text/javascript"), ("/sdk/sluice.mjs", "text/javascript"),
                       ("/demo.css", "text/css"), ("/demo.js", "text/javascript"),
                       ("/calls.js", "text/javascript")]:
        status, headers, body = _raw_get(port, path)
        assert status == 200 and headers["content-type"].startswith(kind), (path, status, headers)
        assert int(headers["content-length"]) == len(body) > 0

    status, headers, body = _raw_get(port, "/no-such-file.js")
    assert status == 404 and json.loads(body) == {"error": {"code": 404, "message": "Not found", "reason": "NOT_FOUND"}}

    # Nothing outside web/ (the server runs from the repository root, where README.md is).
    for target in ["/../README.md", "/sdk/../../README.md", "/%2e%2e/README.md", "/..%2fREADME.md",
                   "/%2e%2e%2fREADME.md", "/sdk/%2e%2e/%2e%2e/README.md", "/.%2e/README.md"]:
        status, _, body = _raw_get(port, target)
        assert status != 200 and b"Sluice is a WebRTC SFU" not in body, (target, status, body[:200])

    # The other routes keep their prefixes.
    status, headers, body = _raw_get(port, "/health")
    assert status == 200 and json.loads(body)["status"] == "ok"


SDK_ERRORS = """async () => {
  const module = await import('/sdk/sluice.mjs');
  const out = {sameObject: module.default === window.Sluice && module.connect === window.Sluice.connect};
  const failure = async (promise) => {
    try { await promise; return null; } catch (e) {
      return {name: e.name, code: e.code, reason: e.reason, message: e.message, isError: e instanceof Error};
    }
  };
  out.badKey = await failure(module.connect(null, {appKey: 'no-such-app'}));
  const session = await module.connect(null, {appKey: 'defaultApp'});
  const closed = new Promise((resolve) => session.on('close', resolve));
  out.ping = await session.ping();
  out.missing = await failure(session.play('nobody-publishes-this', {}));
  out.unknownHandle = await failure(session.getStats('no-such-handle'));
  out.badName = await failure(session.play('bad name!', {}));
  const waiting = await session.play('comes-later', {wait: true});
  out.waiting = {handle: typeof waiting.handle, role: waiting.role, tracks: waiting.mediaStream.getTracks().length};
  out.stop = await session.stop(waiting);
  out.streamsAfterStop = session.streams.size;
  await session.disconnect();
  out.close = await closed;
  out.afterClose = await failure(session.ping());
  return out;
}"""


def test_sdk_errors_and_module_import(server):
    asyncio.run(_sdk_errors(server))


async def _sdk_errors(server):
    async with demo_page(server) as page:
        out = await page.evaluate(SDK_ERRORS)
    assert out["sameObject"], out
    assert out["badKey"] == {"name": "SluiceError", "code": 1001, "reason": "UNKNOWN_APP_KEY",
                             "message": "Unknown app key", "isError": True}, out
    assert out["ping"] == {}
    assert (out["missing"]["code"], out["missing"]["reason"]) == (1004, "STREAM_NOT_FOUND"), out
    assert (out["unknownHandle"]["code"], out["unknownHandle"]["reason"]) == (1007, "UNKNOWN_HANDLE"), out
    assert out["badName"]["code"] == -32602, out
    # The answer has made both receiving tracks already; media comes when a publisher does.
    assert out["waiting"] == {"handle": "string", "role": "play", "tracks": 2}, out
    assert out["stop"] == {} and out["streamsAfterStop"] == 0, out
    assert out["close"]["code"] == 1000, out
    assert (out["afterClose"]["code"], out["afterClose"]["reason"]) == (-1, "CONNECTION_CLOSED"), out


SDK_DATA = """async () => {
  const session = await window.Sluice.connect(null, {appKey: 'defaultApp'});
  // The server's dataChannelOpened, per handle: a browser calls its own channel open before
  // the server has read the DCEP open, and a message sent to a channel the server does not
  // know yet goes nowhere.
  const serverOpened = new Set();
  let onServerOpened = () => {};
  session.on('streamEvent', (e) => {
    if (e.type === 'dataChannelOpened') { serverOpened.add(e.handle); onServerOpened(); }
  });
  const knownToServer = (stream) => new Promise((resolve) => {
    const check = () => { if (serverOpened.has(stream.handle)) resolve(); };
    const previous = onServerOpened;
    onServerOpened = () => { previous(); check(); };
    check();
  });
  const camera = await navigator.mediaDevices.getUserMedia({video: true, audio: false});
  const opened = (channel) => new Promise((resolve) => {
    if (channel.readyState === 'open') resolve(); else channel.addEventListener('open', resolve);
  });
  const next = (channel) => new Promise((resolve) => channel.addEventListener('message', (e) => resolve(e.data), {once: true}));
  const pub = await session.publish('sdk-data', camera, {dataChannels: ['chat']});
  const player = await session.play('sdk-data', {dataChannels: [{label: 'chat', ordered: false, maxRetransmits: 2}]});
  const out = {pubLabels: [...pub.dataChannels.keys()], playerOrdered: player.dataChannels.get('chat').ordered};
  await Promise.all([opened(pub.dataChannels.get('chat')), opened(player.dataChannels.get('chat')),
                     knownToServer(pub), knownToServer(player)]);
  const toPlayer = next(player.dataChannels.get('chat'));
  pub.dataChannels.get('chat').send('to the players');
  out.playerGot = await toPlayer;
  const toPublisher = next(pub.dataChannels.get('chat'));
  player.dataChannels.get('chat').send('to the publisher');
  out.publisherGot = await toPublisher;
  // The server's counters come from the SCTP thread's board, written after its pass over
  // the message; the publisher can have the message before the board has the count (seen
  // once in CI). Ask again, up to 3 s, until the counts are there; the test checks them.
  let stats = await player.getStats();
  for (let i = 0; i < 30 && !(stats.dataChannels[0] && stats.dataChannels[0].messagesSent >= 1
                               && stats.dataChannels[0].messagesReceived >= 1); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    stats = await player.getStats();
  }
  out.playerStats = stats.dataChannels;
  await session.disconnect();
  return out;
}"""


def test_sdk_data_channels(server):
    asyncio.run(_sdk_data(server))


async def _sdk_data(server):
    async with demo_page(server) as page:
        out = await asyncio.wait_for(page.evaluate(SDK_DATA), 30)
    assert out["pubLabels"] == ["chat"] and out["playerOrdered"] is False, out
    assert out["playerGot"] == "to the players" and out["publisherGot"] == "to the publisher", out
    [channel] = out["playerStats"]
    assert channel["label"] == "chat" and channel["ordered"] is False and channel["maxRetransmits"] == 2, channel
    assert channel["messagesSent"] == 1 and channel["messagesReceived"] == 1, channel


PRECALL_DONE = """() => {
  const run = window.demo.precall;
  return run && run.endedAt !== null ? {
    handle: run.handle, startedAt: run.startedAt, endedAt: run.endedAt, error: run.error, report: run.report,
    progress: run.progress,
    state: document.getElementById('precall-status').dataset.state,
    statusText: document.getElementById('precall-status').textContent,
    shownReport: document.getElementById('precall-report').dataset.report || null,
    reportHidden: document.getElementById('precall-report').hidden,
    events: window.demo.log.filter((e) => e.kind === 'event' && e.data.handle === run.handle)
      .map((e) => ({at: e.at, type: e.data.type, stream: e.data.stream === undefined ? null : e.data.stream})),
  } : null;
}"""

# Every RTCPeerConnection the page makes from now on, with the tracks of its senders, so that a
# test can see that precall closed its own and stopped the media it made.
WATCH_PEER_CONNECTIONS = """() => {
  const Original = window.RTCPeerConnection;
  const made = window.madePeerConnections = [];
  window.RTCPeerConnection = class extends Original {
    constructor(config) { super(config); made.push(this); }
  };
}"""

PEER_CONNECTIONS = """() => window.madePeerConnections.map((pc) => ({
  signaling: pc.signalingState, connection: pc.connectionState,
  tracks: pc.getSenders().filter((s) => s.track).map((s) => s.track.kind + ' ' + s.track.readyState)}))"""

# A precall aborted at its first progress: the SDK sends `stop` and rejects; no report follows.
PRECALL_ABORTED = """async () => {
  const session = window.demo.session;
  const controller = new AbortController();
  const events = [];
  const off = session.on('streamEvent', (e) => { if (e.type.startsWith('precall')) events.push(e.type); });
  let handle = null;
  const outcome = await session.precall({signal: controller.signal, onProgress: (figures, event) => {
    handle = event.handle;
    controller.abort();
  }}).then((report) => ({report}), (e) => ({name: e.name, code: e.code, reason: e.reason}));
  await new Promise((resolve) => setTimeout(resolve, 1500));
  off();
  let stop;
  try { stop = {result: await session.stop(handle)}; } catch (e) { stop = {code: e.code, reason: e.reason}; }
  return {outcome, handle, events, stop};
}"""

STOP_AFTER_PRECALL = """async (handle) => {
  try { return {result: await window.demo.session.stop(handle)}; }
  catch (e) { return {code: e.code, reason: e.reason}; }
}"""


def test_sdk_precall(server, artifacts, figures):
    """The demo's "Test my network" button runs session.precall() (the SDK's synthetic video,
    sendrecv, and a tone) on unshaped loopback: progress while it runs, then a report that
    shows a clean fast path; then a precall aborted midway. Both leave no PeerConnection open."""
    asyncio.run(_sdk_precall(server, artifacts, figures))


async def _sdk_precall(server, artifacts, figures):
    async with demo_page(server) as page:
        await page.evaluate(WATCH_PEER_CONNECTIONS)
        assert await page.text_content("#precall-button") == "Test my network"
        await page.click("#precall-button")
        assert await page.evaluate("document.getElementById('precall-status').dataset.state") == "running"
        run = await _poll(page, PRECALL_DONE, 30, "the end of the pre-call test")
        await page.screenshot(path=str(artifacts / "browser-demo-precall.png"))
        stop = await page.evaluate(STOP_AFTER_PRECALL, run["handle"])
        errors = await page.evaluate("window.demo.log.filter((e) => e.kind === 'error').map((e) => e.text)")
        after_report = await page.evaluate(PEER_CONNECTIONS)
        aborted = await asyncio.wait_for(page.evaluate(PRECALL_ABORTED), 30)
        after_abort = await page.evaluate(PEER_CONNECTIONS)

    report = run["report"]
    figures({"precallMs": run["endedAt"] - run["startedAt"], "report": report,
             "progress": [p["figures"] for p in run["progress"]], "stopAfter": stop,
             "aborted": aborted})
    assert run["error"] is None and report, run
    assert not errors, errors
    assert run["state"] == "done" and run["statusText"] == f"done: {report['quality']['level']}", run
    assert not run["reportHidden"] and json.loads(run["shownReport"]) == report, run

    # Progress came (once a second, by the handle, with no stream), all of it before the report.
    assert run["progress"], run
    assert all(p["at"] <= run["endedAt"] for p in run["progress"]), run
    types = [e["type"] for e in run["events"]]
    assert types.count("precallReport") == 1 and "precallProgress" in types, types
    assert types.index("precallProgress") < types.index("precallReport"), types
    assert all(e["stream"] is None for e in run["events"]), run["events"]

    # Unshaped loopback: fast both ways, no loss, no delay.
    assert report["uplinkKbps"] > 300 and report["downlinkKbps"] > 300, report
    assert report["rttMs"] is not None and report["rttMs"] < 50, report
    assert report["lossUp"] is not None and report["lossUp"] < 0.02, report
    assert report["lossDown"] is not None and report["lossDown"] < 0.02, report
    assert report["quality"]["level"] == "excellent", report
    publish = report["recommended"]["publish"]
    assert all(isinstance(publish.get(k), int) and publish[k] > 0 for k in ("width", "height", "fps", "bitrate")), publish
    assert publish["bitrate"] <= report["uplinkKbps"], report
    assert report["recommended"]["play"]["quality"] in ("high", "medium", "low"), report

    # The bound the issue names: the whole test, from the call to the report, within 10 s.
    assert run["endedAt"] - run["startedAt"] <= 10_000, run["endedAt"] - run["startedAt"]

    # The handle ended by itself with the report.
    assert (stop.get("code"), stop.get("reason")) == (1007, "UNKNOWN_HANDLE"), stop

    # The SDK closed its PeerConnection and stopped the synthetic media it made (video and tone).
    [pc] = after_report
    assert pc["signaling"] == "closed" and pc["connection"] == "closed", pc
    assert sorted(pc["tracks"]) == ["audio ended", "video ended"], pc

    # Aborted at the first progress: rejected with ABORTED, the SDK's `stop` ended the test on
    # the server (no report came, and a second stop finds no handle), and it cleaned up.
    assert aborted["outcome"] == {"name": "SluiceError", "code": -1, "reason": "ABORTED"}, aborted
    assert aborted["handle"] and aborted["handle"] != run["handle"], aborted
    assert aborted["events"] and set(aborted["events"]) == {"precallProgress"}, aborted
    assert (aborted["stop"].get("code"), aborted["stop"].get("reason")) == (1007, "UNKNOWN_HANDLE"), aborted
    assert len(after_abort) == 2, after_abort
    assert after_abort[1]["signaling"] == "closed" and after_abort[1]["connection"] == "closed", after_abort
    assert sorted(after_abort[1]["tracks"]) == ["audio ended", "video ended"], after_abort
