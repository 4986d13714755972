"""Headless Chromium as a real WebRTC peer, driven by Playwright.

Debian's /usr/bin/chromium is launched through `executable_path` (Playwright's own browser
download is never used). getUserMedia needs a secure context, which about:blank and data:
pages are not, so the page is http://127.0.0.1/sluice-test.html served by Playwright's request
interception: no socket is opened for it, and it loads nothing else. The protocol client below
is injected inline.
"""

import asyncio
import contextlib
import os
import time

from playwright.async_api import async_playwright

CHROMIUM = os.environ.get("SLUICE_CHROMIUM", "/usr/bin/chromium")

PAGE_URL = "http://127.0.0.1/sluice-test.html"

CHROMIUM_ARGS = [
    "--no-sandbox",  # root in a container: Chromium's sandbox cannot start
    "--use-fake-device-for-media-stream",  # a synthetic 640x480 camera and a beeping microphone
    "--use-fake-ui-for-media-stream",  # grant getUserMedia without a prompt
    "--allow-loopback-in-peer-connection",  # gather 127.0.0.1, the only address in the namespace
    # WebRtcHideLocalIpsWithMdns: plain host candidates, not .local names.
    # LocalNetworkAccessChecks: the intercepted page has no address of its own, so Chromium
    # counts it as public and would block its WebSocket to 127.0.0.1.
    "--disable-features=WebRtcHideLocalIpsWithMdns,LocalNetworkAccessChecks",
    "--disable-gpu",
    "--autoplay-policy=no-user-gesture-required",
]

PAGE_SCRIPT = r"""
window.sluice = (() => {
  let ws = null, nextId = 1, pc = null;
  const pending = new Map();
  const notes = [];
  // performance.now() of the steps of a play: request sent, answer back, first frame decoded.
  const timing = {};
  const api = {notes, timing};

  api.open = (url) => new Promise((resolve, reject) => {
    ws = new WebSocket(url);
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error('websocket error'));
    ws.onclose = (ev) => notes.push({method: '_close', params: {code: ev.code}});
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.id !== undefined && msg.id !== null && pending.has(msg.id)) {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error) p.reject(new Error('rpc error ' + JSON.stringify(msg.error)));
        else p.resolve(msg.result);
      } else if (msg.method) {
        notes.push({method: msg.method, params: msg.params || {}, at: performance.now()});
      }
    };
  });

  api.call = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, {resolve, reject});
    ws.send(JSON.stringify({jsonrpc: '2.0', id, method, params}));
  });

  // Resolves once `pc` gathered its candidates (3 s at most); red_page.py uses it too.
  const gathered = api.gathered = (pc) => new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve();
    const timer = setTimeout(resolve, 3000);
    pc.addEventListener('icegatheringstatechange', () => {
      if (pc.iceGatheringState === 'complete') { clearTimeout(timer); resolve(); }
    });
  });

  const show = (stream, muted) => {
    const video = document.createElement('video');
    video.autoplay = true; video.muted = muted; video.playsInline = true;
    video.width = 640; video.height = 480;
    video.srcObject = stream;
    document.body.appendChild(video);
  };

  // Offers sendonly with the fake camera and microphone; returns the offer SDP.
  api.preparePublish = async (width, height) => {
    const media = await navigator.mediaDevices.getUserMedia(
      {video: {width: {exact: width}, height: {exact: height}}, audio: true});
    pc = new RTCPeerConnection({iceServers: []});
    for (const track of media.getTracks()) {
      // Keep the camera's size on a busy machine: no CPU-driven downscaling.
      if (track.kind === 'video') track.contentHint = 'detail';
      const t = pc.addTransceiver(track, {direction: 'sendonly', streams: [media]});
      if (track.kind === 'video') {
        try {
          const params = t.sender.getParameters();
          params.degradationPreference = 'maintain-resolution';
          await t.sender.setParameters(params);
        } catch (e) { notes.push({method: '_warning', params: {text: String(e)}}); }
      }
    }
    show(media, true);
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc);
    const settings = media.getVideoTracks()[0].getSettings();
    return {sdp: pc.localDescription.sdp, width: settings.width, height: settings.height};
  };

  // Offers recvonly video and audio; returns the offer SDP.
  api.preparePlay = async () => {
    pc = new RTCPeerConnection({iceServers: []});
    pc.addTransceiver('video', {direction: 'recvonly'});
    pc.addTransceiver('audio', {direction: 'recvonly'});
    const remote = new MediaStream();
    pc.ontrack = (ev) => remote.addTrack(ev.track);
    show(remote, true);
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc);
    return {sdp: pc.localDescription.sdp};
  };

  api.accept = async (sdp) => { await pc.setRemoteDescription({type: 'answer', sdp}); };

  api.publish = async (url, stream, width, height) => {
    await api.open(url);
    await api.call('connect', {appKey: 'defaultApp'});
    const offer = await api.preparePublish(width, height);
    const result = await api.call('publish', {stream, sdp: offer.sdp});
    await api.accept(result.sdp);
    return {handle: result.handle, width: offer.width, height: offer.height};
  };

  api.play = async (url, stream) => {
    await api.open(url);
    await api.call('connect', {appKey: 'defaultApp'});
    const offer = await api.preparePlay();
    timing.playRequested = performance.now();
    const result = await api.call('play', {stream, sdp: offer.sdp});
    timing.answered = performance.now();
    await api.accept(result.sdp);
    watchFirstDecoded();
    return {handle: result.handle};
  };

  // Polls the inbound video every 10 ms until it has decoded a frame.
  const watchFirstDecoded = () => {
    const timer = setInterval(async () => {
      const report = await pc.getStats();
      report.forEach((s) => {
        if (s.type === 'inbound-rtp' && s.kind === 'video' && s.framesDecoded > 0 && !timing.firstDecoded) {
          timing.firstDecoded = performance.now();
          clearInterval(timer);
        }
      });
    }, 10);
  };

  // Milliseconds from the play request to its answer, PLAYING and the first decoded frame.
  api.playTiming = () => {
    const playing = notes.find((n) => n.method === 'streamStatus' && n.params.status === 'PLAYING');
    const since = (t) => (t === undefined ? null : Math.round((t - timing.playRequested) * 10) / 10);
    return {playToAnswerMs: since(timing.answered), playToPlayingMs: since(playing && playing.at),
            playToFirstDecodedMs: since(timing.firstDecoded)};
  };

  // The video rtp stats Chromium reports, inbound and outbound.
  api.videoStats = async () => {
    const out = {connectionState: pc ? pc.connectionState : null, inbound: null, outbound: null};
    if (!pc) return out;
    const report = await pc.getStats();
    report.forEach((s) => {
      if (s.kind !== 'video') return;
      if (s.type === 'inbound-rtp') {
        out.inbound = {framesDecoded: s.framesDecoded || 0, frameWidth: s.frameWidth || 0,
                       frameHeight: s.frameHeight || 0, packetsReceived: s.packetsReceived || 0,
                       packetsLost: s.packetsLost || 0, keyFramesDecoded: s.keyFramesDecoded || 0};
      } else if (s.type === 'outbound-rtp') {
        out.outbound = {framesEncoded: s.framesEncoded || 0, frameWidth: s.frameWidth || 0,
                        frameHeight: s.frameHeight || 0, packetsSent: s.packetsSent || 0,
                        qualityLimitationReason: s.qualityLimitationReason || ''};
      }
    });
    return out;
  };

  // The profile DTLS-SRTP negotiated ('SRTP_AEAD_AES_128_GCM' or 'SRTP_AES128_CM_HMAC_SHA1_80').
  api.srtpCipher = async () => {
    if (!pc) return null;
    let cipher = null;
    (await pc.getStats()).forEach((s) => { if (s.type === 'transport' && s.srtpCipher) cipher = s.srtpCipher; });
    return cipher;
  };

  api.statuses = () => notes.filter((n) => n.method === 'streamStatus').map((n) => n.params.status);
  return api;
})();
"""


async def open_test_page(browser, console_log: list | None = None, tag: str = ""):
    """A page of `browser` at the intercepted secure-context URL, with PAGE_SCRIPT loaded;
    console lines go to `console_log`, prefixed with `tag`."""
    page = await browser.new_page(viewport={"width": 680, "height": 520})
    if console_log is not None:
        page.on("console", lambda m: console_log.append(f"{tag}{m.type}: {m.text}"))
        page.on("pageerror", lambda e: console_log.append(f"{tag}pageerror: {e}"))
    await page.route(PAGE_URL, lambda route: route.fulfill(
        status=200, content_type="text/html", body="<!doctype html><title>sluice test</title><body></body>"))
    await page.goto(PAGE_URL)
    await page.evaluate(PAGE_SCRIPT)
    return page


@contextlib.asynccontextmanager
async def chromium_page(console_log: list | None = None, executable: str = CHROMIUM):
    """A fresh headless Chromium with one page (a secure context) that has `window.sluice`.
    `executable`: another launcher, such as a wrapper that runs Chromium in a network namespace."""
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            yield await open_test_page(browser, console_log)
        finally:
            await browser.close()


async def wait_page_status(page, status: str, timeout: float = 10.0) -> float:
    """Waits until the page has seen a streamStatus `status`; returns local arrival time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if status in await page.evaluate("window.sluice.statuses()"):
            return time.monotonic()
        await asyncio.sleep(0.1)
    notes = await page.evaluate("window.sluice.notes")
    raise AssertionError(f"Chromium saw no streamStatus {status} within {timeout} s; notifications: {notes}")


async def poll_inbound(page, predicate, timeout: float, what: str) -> dict:
    """The page's inbound video stats once `predicate` holds for them."""
    deadline = time.monotonic() + timeout
    stats = None
    while time.monotonic() < deadline:
        stats = await page.evaluate("window.sluice.videoStats()")
        inbound = stats.get("inbound")
        if inbound and predicate(inbound):
            return inbound
        await asyncio.sleep(0.25)
    raise AssertionError(f"Chromium: no {what} within {timeout} s; last stats {stats}")
