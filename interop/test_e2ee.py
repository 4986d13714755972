"""End-to-end encrypted streams (docs/protocol.md section 6, "End-to-end encryption"): a
Chromium publisher encrypts its encoded frames with an encoded transform (insertable streams)
before packetization, so the server forwards ciphertext. Chromium players that hold the key
decrypt and decode; one that does not decodes nothing, the proof that the payload was encrypted.

- `test_encrypted_vp8_simulcast[clear-bytes]`: `e2ee: true`, with VP8's first 10 bytes of a key
  frame and 3 of a delta frame in the clear (LiveKit's and Jitsi's choice) and no dependency
  descriptor: the server finds key frames and sizes in those bytes alone.
- `test_encrypted_vp8_simulcast[descriptor-found]`: every byte encrypted, the dependency
  descriptor negotiated, and the publish says nothing: the server finds the stream encrypted
  (its key frames lack VP8's start code) and takes key frames and sizes from the descriptor.
  The cipher flips the key-frame bit of every frame, so a server that read it would start
  players on delta frames (a build that did failed the up-switch).
- `test_encrypted_av1_svc`: AV1 `L3T3_KEY` with every OBU's payload encrypted (Chromium's AV1
  packetizer splits frames at OBU headers, so those stay clear) and the descriptor: the server
  takes key pictures, spatial layers and their sizes from the descriptor.

In each: a low and a high player decode at 320 and 1280, `update` switches the low one up and
down, of two players that join late a second apart the second starts from the key-frame cache
(instant join), and the publisher's stats say `e2ee`. A declared stream's admin API record
answers 409 `E2EE_STREAM`. `test_encrypted_streams_are_not_recorded`: `record: true` with
`e2ee`, and an app that records everything, get 1008.
"""

import asyncio
import json
import urllib.error
import urllib.request

import pytest

from chromium import chromium_page
from e2ee_page import E2EE_SCRIPT, switch_ms, three_players
from polling import poll

SIMULCAST = [{"rid": "q", "scaleResolutionDownBy": 4, "maxBitrate": 200000},
             {"rid": "h", "scaleResolutionDownBy": 2, "maxBitrate": 700000},
             {"rid": "f", "scaleResolutionDownBy": 1, "maxBitrate": 2000000}]
ALWAYS_APP = "always"
AV1 = "video/AV1"


@pytest.fixture
def server_config_overrides(tmp_path) -> dict:
    return {"apps": [{"key": "defaultApp"}, {"key": ALWAYS_APP, "recording": "always"}],
            "recording": {"folder": str(tmp_path / "recordings")}}


CASES = {
    # clear bytes, dependency descriptor, what the publish says
    "clear-bytes": ("livekit", False, True),
    "descriptor-found": ("none", True, None),
}


@pytest.mark.parametrize("case", list(CASES))
def test_encrypted_vp8_simulcast(server, figures, case):
    clear, dd, declared = CASES[case]
    publish = {"encodings": SIMULCAST, "clear": clear, "dd": dd}
    if declared is not None:
        publish["e2ee"] = declared
    asyncio.run(_encrypted_stream(server, figures, f"e2ee-{clear}", publish, {"clear": clear, "dd": dd},
                                  lambda out: out.get("f", {}).get("frameWidth") == 1280,
                                  lambda video: [layer["width"] for layer in video.get("layers", [])]))


def test_encrypted_av1_svc(server, figures):
    """AV1 `L3T3_KEY` through the dependency descriptor, every OBU's payload encrypted (its
    header and size stay clear: Chromium's AV1 packetizer splits frames at them)."""
    publish = {"mime": AV1, "encodings": [{"scalabilityMode": "L3T3_KEY", "maxBitrate": 2_500_000}], "clear": "obu",
               "dd": True, "e2ee": True}
    asyncio.run(_encrypted_stream(server, figures, "e2ee-av1", publish, {"mime": AV1, "clear": "obu", "dd": True},
                                  lambda out: out.get("-", {}).get("frameWidth") == 1280,
                                  lambda video: [layer["width"] for layer in video.get("spatialLayers", [])]))


async def _inbound(page, name):
    return await page.evaluate(f"window.e2ee.inbound('{name}')")


async def _play(page, server, stream, name, quality, options):
    await page.evaluate("([url, s, n, c, o]) => window.e2ee.play(url, s, n, c, o)",
                        [server.ws_url, stream, name, {"video": {"quality": quality}}, options])


async def _encrypted_stream(server, figures, stream, publish, play, encoding, layer_widths):
    """Publishes `publish` (page options) as `stream`, waits until `encoding` holds on the
    publisher's outbound stats, and plays it with `play` options; `layer_widths` reads the
    layers' widths from the publisher's `getStats` video."""
    async with chromium_page() as page:
        await page.evaluate(E2EE_SCRIPT)
        if "mime" in publish and not await page.evaluate(f"window.e2ee.canSend('{publish['mime']}', 'L3T3_KEY')"):
            pytest.skip(f"this Chromium cannot send {publish['mime']} L3T3_KEY")
        await page.evaluate("([url, s, o]) => window.e2ee.publish(url, s, o)", [server.ws_url, stream, publish])
        answer = await page.evaluate("window.e2ee.pub.answer")
        assert ("dependency-descriptor" in answer) == publish["dd"], f"the publish answer's descriptor: {answer}"
        await poll(page, "window.e2ee.outbound()", encoding, 30, "the publisher encoding 1280 wide")
        low, high, plain = await three_players(page, server.ws_url, stream, play)
        switches = {"up": await switch_ms(page, "low", "high", 1280), "down": await switch_ms(page, "low", "low", 320)}
        after = await _inbound(page, "low")
        await asyncio.sleep(1)
        assert (await _inbound(page, "low"))["framesDecoded"] > after["framesDecoded"], "the low player stalled after its switches"
        # Instant join: of two late joiners a second apart, the second starts from the
        # key-frame cache (the first's, if nothing fresher was cached for it).
        for name in ("late1", "late2"):
            await _play(page, server, stream, name, "high", {**play, "decrypt": True})
            await poll(page, f"window.e2ee.inbound('{name}')", lambda s: s["frameWidth"] == 1280 and s["framesDecoded"] >= 10,
                       30, f"the late player {name} decoding 1280 wide")
            await asyncio.sleep(1)
        late = await page.evaluate("window.e2ee.stats('late2')")
        published = await page.evaluate("window.e2ee.publisherStats()")
        video = published.get("video", {})
        figures({"switchMs": switches, "low": low, "high": high, "plain": plain,
                 "lateCacheStarts": late.get("video", {}).get("cacheStarts"),
                 "publisher": {k: video.get(k) for k in ("e2ee", "keyFrames", "layers", "spatialLayers")}})
        assert late.get("video", {}).get("cacheStarts", 0) >= 1, f"the second late player did not start from the cache: {late}"
        assert video.get("e2ee") is True, f"the publisher's stats do not say e2ee: {video}"
        # Without the clear bytes the sizes can only have come from the descriptor's structure.
        assert layer_widths(video) == [320, 640, 1280], video
        if publish.get("e2ee"):
            status, body = await asyncio.to_thread(_admin, server, "POST", f"/api/v1/streams/{stream}/record")
            assert status == 409 and body.get("error", {}).get("reason") == "E2EE_STREAM", (status, body)


def _admin(server, method, path):
    """(status, JSON body) of an admin API request with the admin token."""
    token = json.loads(server.config_path.read_text())["admin"]["token"]
    request = urllib.request.Request(server.http_url + path, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def test_encrypted_streams_are_not_recorded(server):
    asyncio.run(_not_recorded(server))


async def _not_recorded(server):
    async with chromium_page() as page:
        await page.evaluate(E2EE_SCRIPT)
        asked = await page.evaluate("([url]) => window.e2ee.tryPublish(url, 'e2ee-rec', {e2ee: true, record: true})",
                                    [server.ws_url])
        assert '"code":1008' in asked and "cannot be recorded" in asked, asked
        always = await page.evaluate(
            "([url]) => window.e2ee.tryPublish(url, 'e2ee-always', {e2ee: true}, 'always')", [server.ws_url])
        assert '"code":1008' in always and "cannot be recorded" in always, always
        # The same publish in the clear is taken: the refusal is the encryption's.
        assert await page.evaluate("([url]) => window.e2ee.tryPublish(url, 'e2ee-clear', {record: true})",
                                   [server.ws_url]) == "published"
