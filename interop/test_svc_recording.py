"""Recording an SVC stream (docs/protocol.md section 6, **Recording**): Chromium publishes one
`L3T3_KEY` encoding with `record: true`, and the file holds the spatial layer that
`recording.layer` names, as a player of that layer gets it (its frames, the marker on its end),
decodable by ffmpeg at that layer's size: AV1 through the dependency descriptor, VP9 through
its payload descriptor."""

import asyncio
import os

import pytest

from chromium import chromium_page
from polling import poll
from recording_check import decode_errors, frame_sizes, probe, wait_closed
from test_svc import _publish, _publisher_ramped


@pytest.fixture
def server_config_overrides(request, tmp_path) -> dict:
    recording = {"folder": str(tmp_path / "recordings")}
    layer = request.node.get_closest_marker("recording_layer")
    if layer:
        recording["layer"] = layer.args[0]
    return {"recording": recording}


CASES = {"av1": ("video/AV1", True, "av1"), "vp9-pd": ("video/VP9", False, "vp9")}


@pytest.mark.recording_layer("low")
@pytest.mark.parametrize("codec", ["av1", "vp9-pd"])
def test_svc_recording_holds_the_configured_spatial_layer(server, figures, codec):
    asyncio.run(_record(server, figures, codec, (320, 180)))


@pytest.mark.parametrize("codec", ["av1", "vp9-pd"])
def test_svc_recording_holds_the_top_spatial_layer(server, figures, codec):
    """The default, `top`: every layer a top player gets, each picture one frame in the file
    (VP9: a superframe of the key picture's layers)."""
    asyncio.run(_record(server, figures, codec, (1280, 720)))


async def _record(server, figures, codec, size):
    mime, with_dd, codec_name = CASES[codec]
    stream = f"svc-recorded-{codec}"
    notes = "window.svc.pub.client.notes.filter((n) => n.method === 'streamEvent').map((n) => n.params)"
    async with chromium_page() as page:
        await _publish(page, server, stream, mime, "L3T3_KEY", with_dd=with_dd, record=True)
        started = await poll(page, notes, lambda e: any(n["type"] == "recordingStarted" for n in e), 20,
                             "recordingStarted")
        path = next(n for n in started if n["type"] == "recordingStarted")["data"]["path"]
        await _publisher_ramped(page)
        await asyncio.sleep(4)
        published = await page.evaluate("window.svc.publisherStats()")
        await page.evaluate("window.svc.pub.client.call('stop', {handle: window.svc.pub.handle})")
    await wait_closed(path)
    p = probe(path)
    video = p.stream("video")
    assert video and video["codec_name"] == codec_name, p.streams
    sizes = frame_sizes(path)
    spatial = (published.get("video") or {}).get("spatialLayers") or []
    at_size = sum(1 for s in sizes if s == size)
    figures({"codec": codec, "trackSize": [video["width"], video["height"]], "framesInFile": len(sizes),
             "framesAtSize": at_size, "sizes": sorted({f"{w}x{h}" for w, h in sizes}), "bytes": os.path.getsize(path),
             "publisherSpatialLayers": [[l["width"], l["height"]] for l in spatial]})
    assert [l["width"] for l in spatial] == [320, 640, 1280], f"the publisher sent no three spatial layers: {spatial}"
    assert sizes, "no frame decoded from the file"
    largest = max(sizes, key=lambda s: s[0] * s[1])
    assert largest == size, f"the {size} layer is recorded: frames up to {largest}"
    # ffmpeg shows a VP9 key picture's lower layers as frames of their own (its superframe
    # holds them, as a top player gets them): a few; every other frame is the layer's.
    assert at_size >= 0.9 * len(sizes), f"only {at_size} of {len(sizes)} frames at {size}"
    errors = decode_errors(path)
    assert errors == "", f"ffmpeg found errors decoding the file: {errors}"
    assert len(sizes) >= 40, f"only {len(sizes)} frames decoded from the recording"
