"""Full quality from the first second: a single-layer Chromium publisher of the fake 1280x720
camera that declares `video.bitrate` gets `x-google-start-bitrate` in its answer
(`apps[].startBitrate`, on by default) and sends 1280 wide within 2 s of its first frame; a
player decodes 1280 within 2 s of its first frame.

The control is the same publish with `startBitrate.enabled: false`: libwebrtc starts at its own
300 kbit/s and climbs one resolution step every few seconds (measured here: 320 wide for the
first 4 s, then 480), so at the 2 s mark publisher and player are still below 1280. Both runs
record the widths over time (figures: [ms since that side's first frame, frameWidth]).
"""

import asyncio
import os

import pytest

from chromium import PAGE_SCRIPT, PAGE_URL, chromium_page, wait_page_status

STREAM = "start-bitrate"
DECLARED_KBPS = 2500
# Widths are sampled this often, for this long after each side's first frame.
SAMPLE_MS = 250
# SLUICE_START_BITRATE_SAMPLE_S=20 records the whole climb, in 50 s (the figure in docs/api.md,
# "Constraints and layers").
SAMPLE_FOR_MS = int(float(os.environ.get("SLUICE_START_BITRATE_SAMPLE_S", "4")) * 1000)
MARK_MS = 2000

# In the page: samples `frameWidth` of the outbound (publisher) or inbound (player) video every
# SAMPLE_MS, from the first frame on, as [ms since the first frame, width].
SAMPLER = r"""
([kind, every, total]) => new Promise((resolve) => {
  const pc = window.sluice.pc();
  const samples = [];
  let first = null;
  const tick = async () => {
    const report = await pc.getStats();
    let width = 0, frames = 0;
    report.forEach((s) => {
      if (s.kind !== 'video' || s.type !== kind) return;
      frames = (kind === 'outbound-rtp' ? s.framesEncoded : s.framesDecoded) || 0;
      width = s.frameWidth || 0;
    });
    const now = performance.now();
    if (first === null && frames > 0) first = now;
    if (first !== null) samples.push([Math.round(now - first), width]);
    if (first !== null && now - first >= total) return resolve(samples);
    setTimeout(tick, first === null ? 10 : every);
  };
  tick();
})
"""


@pytest.fixture(params=["on", "off"])
def start_bitrate(request) -> str:
    return request.param


@pytest.fixture
def server_config_overrides(start_bitrate) -> dict:
    return {"apps": [{"key": "defaultApp", "startBitrate": {"enabled": start_bitrate == "on"}}]}


async def _second_page(page):
    # chromium_page's page has a context of its own, which takes no second page: a new one.
    other = await page.context.browser.new_page(viewport={"width": 680, "height": 520})
    await other.route(PAGE_URL, lambda route: route.fulfill(
        status=200, content_type="text/html", body="<!doctype html><title>sluice test</title><body></body>"))
    await other.goto(PAGE_URL)
    await other.evaluate(PAGE_SCRIPT)
    return other


# A plain publisher, as an app makes one: the fake camera at 1280x720 and no content hint or
# degradation preference (chromium.py's publisher sets both to hold its size on a busy machine,
# which also hides the climb this test is about). The page's `window.sluice` does the signaling.
PUBLISHER = r"""
window.startBitrate = {
  prepare: async () => {
    const media = await navigator.mediaDevices.getUserMedia(
      {video: {width: {exact: 1280}, height: {exact: 720}}, audio: false});
    const pc = new RTCPeerConnection({iceServers: []});
    window.sluice.pc = () => pc;
    pc.addTransceiver(media.getVideoTracks()[0], {direction: 'sendonly', streams: [media]});
    await pc.setLocalDescription(await pc.createOffer());
    await new Promise((resolve) => {
      if (pc.iceGatheringState === 'complete') return resolve();
      const timer = setTimeout(resolve, 3000);
      pc.addEventListener('icegatheringstatechange', () => {
        if (pc.iceGatheringState === 'complete') { clearTimeout(timer); resolve(); }
      });
    });
    const settings = media.getVideoTracks()[0].getSettings();
    return {sdp: pc.localDescription.sdp, width: settings.width, height: settings.height};
  },
  accept: (sdp) => window.sluice.pc().setRemoteDescription({type: 'answer', sdp}),
};
"""


async def _expose_pc(page):
    # The player's `window.sluice` keeps its PeerConnection private; the sampler needs it.
    # preparePlay makes it, so wrap RTCPeerConnection to remember the last one made.
    await page.evaluate("""() => {
      const Original = window.RTCPeerConnection;
      let last = null;
      window.RTCPeerConnection = function (...args) { last = new Original(...args); return last; };
      window.RTCPeerConnection.prototype = Original.prototype;
      window.sluice.pc = () => last;
    }""")


def _width_at(samples, ms: int) -> int:
    """The width of the last sample at or before `ms` after the first frame."""
    before = [w for t, w in samples if t <= ms]
    return before[-1] if before else 0


def _steps(samples):
    """[ms, width] where the width changed: the climb in short."""
    steps = []
    for t, w in samples:
        if not steps or steps[-1][1] != w:
            steps.append([t, w])
    return steps


def _first_ms_at(samples, width: int):
    return next((t for t, w in samples if w >= width), None)


def test_start_bitrate_full_width_from_first_second(server, figures, start_bitrate):
    asyncio.run(_run(server, figures, start_bitrate == "on"))


async def _run(server, figures, enabled: bool):
    async with chromium_page() as publisher:
        await publisher.evaluate(PUBLISHER)
        await publisher.evaluate("(url) => window.sluice.open(url)", server.ws_url)
        await publisher.evaluate("() => window.sluice.call('connect', {appKey: 'defaultApp'})")
        offer = await publisher.evaluate("() => window.startBitrate.prepare()")
        assert (offer["width"], offer["height"]) == (1280, 720), offer
        result = await publisher.evaluate(
            """([stream, sdp, kbps]) => window.sluice.call('publish',
                 {stream, sdp, constraints: {audio: false, video: {width: 1280, height: 720, bitrate: kbps}}})""",
            [STREAM, offer["sdp"], DECLARED_KBPS])
        fmtp = [line for line in result["sdp"].splitlines() if "x-google-start-bitrate" in line]
        if enabled:
            assert fmtp and fmtp[0].endswith(f"x-google-start-bitrate={DECLARED_KBPS}"), result["sdp"]
        else:
            assert not fmtp, fmtp
        # Start sampling before the answer is applied, so the first frame is not missed.
        sent = asyncio.ensure_future(publisher.evaluate(SAMPLER, ["outbound-rtp", SAMPLE_MS, SAMPLE_FOR_MS]))
        await publisher.evaluate("(sdp) => window.startBitrate.accept(sdp)", result["sdp"])
        await wait_page_status(publisher, "PUBLISHING", 15)

        player = await _second_page(publisher)
        await _expose_pc(player)
        await player.evaluate("(url) => window.sluice.open(url)", server.ws_url)
        await player.evaluate("() => window.sluice.call('connect', {appKey: 'defaultApp'})")
        play_offer = await player.evaluate("() => window.sluice.preparePlay()")
        play = await player.evaluate("([stream, sdp]) => window.sluice.call('play', {stream, sdp})",
                                     [STREAM, play_offer["sdp"]])
        assert "x-google-start-bitrate" not in play["sdp"], "play answers carry no start bitrate"
        decoded = asyncio.ensure_future(player.evaluate(SAMPLER, ["inbound-rtp", SAMPLE_MS, SAMPLE_FOR_MS]))
        await player.evaluate("(sdp) => window.sluice.accept(sdp)", play["sdp"])

        sent_widths = await asyncio.wait_for(sent, 30 + SAMPLE_FOR_MS / 1000)
        decoded_widths = await asyncio.wait_for(decoded, 30 + SAMPLE_FOR_MS / 1000)

    figures({"startBitrate": "on" if enabled else "off", "declaredKbps": DECLARED_KBPS,
             "publisherSentWidthAt2s": _width_at(sent_widths, MARK_MS),
             "playerDecodedWidthAt2s": _width_at(decoded_widths, MARK_MS),
             "publisherFirst1280Ms": _first_ms_at(sent_widths, 1280),
             "playerFirst1280Ms": _first_ms_at(decoded_widths, 1280),
             "publisherWidthSteps": _steps(sent_widths), "playerWidthSteps": _steps(decoded_widths),
             "publisherSentWidths": sent_widths, "playerDecodedWidths": decoded_widths})
    if enabled:
        assert _width_at(sent_widths, MARK_MS) == 1280, f"publisher widths [ms, width]: {sent_widths}"
        assert _width_at(decoded_widths, MARK_MS) == 1280, f"player widths [ms, width]: {decoded_widths}"
    else:
        # The control: without the attribute libwebrtc's start bitrate holds it below 1280.
        assert 0 < _width_at(sent_widths, MARK_MS) < 1280, f"publisher widths [ms, width]: {sent_widths}"
        assert 0 < _width_at(decoded_widths, MARK_MS) < 1280, f"player widths [ms, width]: {decoded_widths}"
