"""Recording (docs/protocol.md section 6, **Recording**): a stream published with
`record: true` becomes a file that Debian's ffprobe, ffmpeg and mkvinfo read as a player would,
with the frames the publisher drew in it."""

import asyncio
import os
import time

import pytest

from chromium import chromium_page
from polling import poll
from recording_check import (decode_errors_at_file_times as decode_errors, frame_sizes, mkvinfo_problems, probe,
                             recording_started, video_numbers, wait_closed)
from rpc_assert import expect_rpc_error
from sessions import open_session
from media import Publisher
from simulcast_page import SIMULCAST_SCRIPT

SECONDS = 10


@pytest.fixture
def server_config_overrides(request, tmp_path) -> dict:
    if request.node.get_closest_marker("without_recording"):
        return {}
    recording = {"folder": str(tmp_path / "recordings")}
    layer = request.node.get_closest_marker("recording_layer")
    if layer:
        recording["layer"] = layer.args[0]
    return {"recording": recording}


def test_aiortc_vp8_opus_recording(server, tmp_path, figures):
    asyncio.run(_vp8_opus(server, tmp_path, figures))


async def _publish_recorded(server, stream: str):
    client = await open_session(server.ws_url)
    peer = Publisher()
    result = await client.publish(stream, await peer.offer(), record=True)
    await peer.accept(result["sdp"])
    return client, peer, result["handle"]


async def _vp8_opus(server, tmp_path, figures):
    stream = "recorded-vp8"
    client, peer, handle = await _publish_recorded(server, stream)
    try:
        started = await recording_started(client)
        path = started.params["data"]["path"]
        assert path.startswith(str(tmp_path / "recordings" / "defaultApp" / stream)) and path.endswith(".webm"), path
        assert os.path.exists(path + ".part"), f"the file is written as {path}.part until it is closed"
        await asyncio.sleep(SECONDS)
        stopped_at = time.monotonic()
        await client.stop(handle)
        wall_s = stopped_at - started.received_at
        await wait_closed(path)
    finally:
        await peer.close()
        await client.close()

    p = probe(path)
    video, audio = p.stream("video"), p.stream("audio")
    assert "webm" in p.format_name or "matroska" in p.format_name, p.format_name
    assert video and video["codec_name"] == "vp8", p.streams
    assert (video["width"], video["height"]) == (640, 480), video
    assert audio and audio["codec_name"] == "opus", p.streams
    assert abs(p.duration_s - wall_s) <= 0.05 * wall_s, f"duration {p.duration_s} s against {wall_s:.2f} s recorded"
    errors = decode_errors(path)
    assert errors == "", f"ffmpeg found errors decoding the file: {errors}"
    assert mkvinfo_problems(path) == "", mkvinfo_problems(path)

    numbers, _ = video_numbers(path)
    readable = [n for n in numbers if n is not None]
    assert len(readable) >= 0.98 * len(numbers), f"{len(numbers) - len(readable)} of {len(numbers)} frames unreadable"
    first, last = readable[0], readable[-1]
    sent = last - first + 1  # the publisher drew every number from first to last, once each
    assert abs(len(numbers) - sent) <= 0.02 * sent, f"{len(numbers)} frames in the file, {sent} sent in that span"
    assert readable == sorted(readable), "frames out of order in the file"
    figures({"wallS": round(wall_s, 2), "durationS": p.duration_s, "framesInFile": len(numbers),
             "framesSentInSpan": sent, "bytes": os.path.getsize(path), "audio": audio.get("codec_name"),
             "size": [video["width"], video["height"]]})


@pytest.mark.without_recording
def test_record_needs_a_recording_folder(server):
    asyncio.run(_refused(server))


async def _refused(server):
    """The control: without `recording.folder` a `record: true` publish is refused at once
    (1008) and makes no handle; the same publish without `record` is taken."""
    client = await open_session(server.ws_url)
    peer = Publisher()
    try:
        await expect_rpc_error(client.publish("unrecorded", await peer.offer(), record=True), 1008,
                               message="Limit reached: Recording is off (recording.folder is not set)")
        result = await client.publish("unrecorded", await peer.offer())
        assert result.get("handle"), result
    finally:
        await peer.close()
        await client.close()


WIDTHS = {"q": 320, "h": 640, "f": 1280}


def test_chromium_simulcast_records_the_top_layer(server, figures):
    asyncio.run(_simulcast(server, figures, (1280, 720)))


@pytest.mark.recording_layer("low")
def test_chromium_simulcast_records_the_configured_layer(server, figures):
    """`recording.layer: "low"`: the smallest layer by measured size, not the top."""
    asyncio.run(_simulcast(server, figures, (320, 180)))


async def _simulcast(server, figures, size):
    stream = "recorded-simulcast"
    notes = "window.sim.pub.client.notes.filter((n) => n.method === 'streamEvent').map((n) => n.params)"
    async with chromium_page() as page:
        await page.evaluate(SIMULCAST_SCRIPT)
        await page.evaluate("([url, stream]) => window.sim.publish(url, stream, {record: true})", [server.ws_url, stream])
        await poll(page, "window.sim.outbound()",
                   lambda o: all(o.get(rid, {}).get("frameWidth") == w for rid, w in WIDTHS.items()),
                   30, "three encodings at 320/640/1280")
        started = await poll(page, notes, lambda e: any(n["type"] == "recordingStarted" for n in e), 20,
                             "recordingStarted")
        path = next(n for n in started if n["type"] == "recordingStarted")["data"]["path"]
        await asyncio.sleep(5)
        await page.evaluate("window.sim.pub.client.call('stop', {handle: window.sim.pub.handle})")
    await wait_closed(path)
    p = probe(path)
    video = p.stream("video")
    assert video and video["codec_name"] == "vp8", p.streams
    # The layer's own largest frames: a browser's encoder may start a layer smaller (or drop
    # it for want of CPU) and the file follows it, but no other layer ever reaches its size.
    sizes = frame_sizes(path)
    largest = max(sizes, key=lambda s: s[0] * s[1])
    assert largest == size, f"the {size} layer is recorded: frames up to {largest}; track {video['width']}x{video['height']}"
    errors = decode_errors(path)
    assert errors == "", f"ffmpeg found errors decoding the file: {errors}"
    numbers, _ = video_numbers(path)
    assert len(numbers) >= 50, f"only {len(numbers)} frames in 5 s of recording"
    figures({"size": list(largest), "trackSize": [video["width"], video["height"]],
             "framesAtSize": sum(1 for f in sizes if f == size), "framesInFile": len(numbers), "durationS": p.duration_s,
             "bytes": os.path.getsize(path)})
