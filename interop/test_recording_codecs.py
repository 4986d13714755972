"""Recording each codec Chromium sends (issue 10; docs/recording.md, "Containers"): headless
Chromium publishes its fake 640x480 camera and microphone with `record: true`, its video
transceiver limited by setCodecPreferences to one codec; the file must be that codec in its
container (VP9 and AV1 in WebM, H264 in MP4, each with Opus), at the sent size, decode with
no ffmpeg error, and hold about the frames Chromium encoded while it was recorded."""

import asyncio
import os
import subprocess

import pytest

from chromium import chromium_page
from polling import poll
from media import Publisher
from recording_check import (decode_errors, decode_errors_at_file_times, frame_sizes, probe, recording_started, video_numbers,
                             wait_closed)
from sessions import open_session

WIDTH, HEIGHT = 640, 480
SECONDS = 5


@pytest.fixture
def server_config_overrides(tmp_path) -> dict:
    return {"recording": {"folder": str(tmp_path / "recordings")}}


# Publishes with only `mime` (and RTX) offered for video; the page's `window.rec`.
PUBLISH_SCRIPT = r"""
async ([url, stream, mime, fmtp, width, height]) => {
  const rec = window.rec = {};
  await window.sluice.open(url);
  await window.sluice.call('connect', {appKey: 'defaultApp'});
  const media = await navigator.mediaDevices.getUserMedia(
    {video: {width: {exact: width}, height: {exact: height}, frameRate: 30}, audio: true});
  const pc = rec.pc = new RTCPeerConnection({iceServers: []});
  for (const track of media.getTracks()) {
    if (track.kind === 'video') track.contentHint = 'detail';
    const t = pc.addTransceiver(track, {direction: 'sendonly', streams: [media]});
    if (track.kind !== 'video') continue;
    const codecs = RTCRtpSender.getCapabilities('video').codecs.filter((c) =>
      (c.mimeType === mime && (c.sdpFmtpLine || '').includes(fmtp)) || c.mimeType === 'video/rtx');
    t.setCodecPreferences(codecs);
    const params = t.sender.getParameters();
    params.degradationPreference = 'maintain-resolution';
    await t.sender.setParameters(params);
  }
  await pc.setLocalDescription(await pc.createOffer());
  const result = await window.sluice.call('publish', {stream, sdp: pc.localDescription.sdp, record: true});
  await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
  rec.handle = result.handle;
  return result.handle;
}
"""

# What the video sender encodes: frames, size and the codec of its stats.
OUTBOUND = r"""
async () => {
  const report = await window.rec.pc.getStats();
  let out = {framesEncoded: 0, frameWidth: 0, frameHeight: 0, mimeType: '', encoder: ''};
  report.forEach((s) => {
    if (s.type === 'outbound-rtp' && s.kind === 'video') {
      const codec = s.codecId ? report.get(s.codecId) : null;
      out = {framesEncoded: s.framesEncoded || 0, frameWidth: s.frameWidth || 0, frameHeight: s.frameHeight || 0,
             mimeType: codec ? codec.mimeType : '', encoder: s.encoderImplementation || ''};
    }
  });
  return out;
}
"""

NOTES = "window.sluice.notes.filter((n) => n.method === 'streamEvent').map((n) => n.params)"

CASES = {
    # mime, fmtp that must be in the capability's line, ffprobe codec name, container words, extension
    "vp9": ("video/VP9", "profile-id=0", "vp9", ("webm", "matroska"), ".webm"),
    "av1": ("video/AV1", "", "av1", ("webm", "matroska"), ".webm"),
    "h264": ("video/H264", "packetization-mode=1", "h264", ("mp4", "mov"), ".mp4"),
}


def _count_frames(path: str) -> int:
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                          "stream=nb_read_frames", "-of", "csv=p=0", path], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.strip().split(",")[0])


@pytest.mark.parametrize("codec", list(CASES))
def test_chromium_codec_is_recorded(server, codec, figures):
    asyncio.run(_record(server, codec, figures))


async def _record(server, codec, figures):
    mime, fmtp, ffname, formats, extension = CASES[codec]
    stream = f"recorded-{codec}"
    async with chromium_page() as page:
        capabilities = await page.evaluate(
            "([mime, fmtp]) => RTCRtpSender.getCapabilities('video').codecs"
            ".filter((c) => c.mimeType === mime && (c.sdpFmtpLine || '').includes(fmtp)).length", [mime, fmtp])
        if not capabilities:
            pytest.skip(f"this Chromium cannot send {mime} ({fmtp}): RTCRtpSender.getCapabilities has no such codec")
        await page.evaluate(PUBLISH_SCRIPT, [server.ws_url, stream, mime, fmtp, WIDTH, HEIGHT])
        sending = await poll(page, OUTBOUND, lambda o: o["framesEncoded"] > 0 and o["frameWidth"] == WIDTH, 30,
                             f"{mime} frames encoded at {WIDTH} wide")
        assert sending["mimeType"].lower() == mime.lower(), f"Chromium sends {sending}, not {mime}"
        events = await poll(page, NOTES, lambda e: any(n["type"] == "recordingStarted" for n in e), 20,
                            "recordingStarted")
        at_start = await page.evaluate(OUTBOUND)
        path = next(n for n in events if n["type"] == "recordingStarted")["data"]["path"]
        assert path.endswith(extension), path
        await asyncio.sleep(SECONDS)
        at_stop = await page.evaluate(OUTBOUND)
        await page.evaluate("window.sluice.call('stop', {handle: window.rec.handle})")
        failed = [n for n in await page.evaluate(NOTES) if n["type"] == "recordingFailed"]
        assert not failed, failed
    await wait_closed(path)

    p = probe(path)
    video, audio = p.stream("video"), p.stream("audio")
    assert any(word in p.format_name for word in formats), p.format_name
    assert video and video["codec_name"] == ffname, p.streams
    assert (video["width"], video["height"]) == (at_stop["frameWidth"], at_stop["frameHeight"]) == (WIDTH, HEIGHT), \
        (video, at_stop)
    assert audio and audio["codec_name"] == "opus", p.streams
    errors = decode_errors_at_file_times(path)
    assert errors == "", f"ffmpeg found errors decoding the {codec} file: {errors}"
    # The plain `-f null` decode, shown: it can also log the null muxer's complaint about two
    # frames in one 1/fps tick of Chromium's jittery capture clock (recording_check).
    plain = decode_errors(path)
    frames = _count_frames(path)
    sizes = set(frame_sizes(path))
    assert sizes == {(WIDTH, HEIGHT)}, f"decoded sizes {sizes}"
    encoded = at_stop["framesEncoded"] - at_start["framesEncoded"]
    # The file spans from the first key frame to the stop: about what was encoded meanwhile
    # (a key frame asked for at the start and the last frames in flight at the stop differ).
    assert 0.8 * encoded <= frames <= 1.1 * encoded + 10, f"{frames} frames in the file, {encoded} encoded"
    assert p.duration_s > 0.8 * SECONDS, f"the file lasts {p.duration_s} s"
    figures({"codec": codec, "encoder": at_stop["encoder"], "container": p.format_name, "size": [video["width"], video["height"]],
             "framesInFile": frames, "framesEncodedWhileRecorded": encoded, "durationS": p.duration_s,
             "bytes": os.path.getsize(path), "audio": audio["codec_name"],
             "plainNullDecodeSays": plain[-200:]})


# --- a resize in the middle (docs/recording.md, "Resize") -----------------------------------

def test_vp8_resize_stays_in_one_webm(server, figures):
    """aiortc's numbered VP8 track drops from 640x480 to 320x240 mid-recording (its encoder
    starts again on a key frame at the new size): the one WebM holds both sizes in order, the
    frames decode at each with no ffmpeg error, and no frame number is lost at the switch
    beyond what the new key frame costs."""
    asyncio.run(_resize(server, figures))


async def _resize(server, figures):
    stream = "recorded-resize"
    client = await open_session(server.ws_url)
    peer = Publisher()
    try:
        result = await client.publish(stream, await peer.offer(), record=True)
        await peer.accept(result["sdp"])
        started = await recording_started(client)
        path = started.params["data"]["path"]
        await asyncio.sleep(2.5)
        peer.video.resize(320, 240)
        resized_from = peer.video.next_number
        await asyncio.sleep(2.5)
        await client.stop(result["handle"])
        await wait_closed(path)
    finally:
        await peer.close()
        await client.close()

    p = probe(path)
    video = p.stream("video")
    assert video and video["codec_name"] == "vp8", p.streams
    # The track entry keeps the first size; the frames carry their own.
    assert (video["width"], video["height"]) == (640, 480), video
    errors = decode_errors_at_file_times(path)
    assert errors == "", f"ffmpeg found errors decoding the resized file: {errors}"
    sizes = frame_sizes(path)
    # The control: both sizes are in the file, the first size first, and only one switch.
    first_small = sizes.index((320, 240)) if (320, 240) in sizes else -1
    assert first_small > 0, f"no 320x240 frame after the 640x480 ones: {sorted(set(sizes))}"
    assert set(sizes[:first_small]) == {(640, 480)} and set(sizes[first_small:]) == {(320, 240)}, \
        f"sizes do not switch once: {[(s, sizes.count(s)) for s in set(sizes)]}"
    numbers, _ = video_numbers(path)
    readable = [n for n in numbers if n is not None]
    assert len(readable) >= 0.98 * len(numbers), f"{len(numbers) - len(readable)} of {len(numbers)} unreadable"
    assert readable == sorted(readable), "frames out of order"
    small_numbers = [n for n, s in zip(numbers, sizes) if s == (320, 240) and n is not None]
    assert small_numbers and small_numbers[0] >= resized_from, (small_numbers[:3], resized_from)
    figures({"framesAt640x480": first_small, "framesAt320x240": len(sizes) - first_small,
             "firstSmallNumber": small_numbers[0], "resizedFromNumber": resized_from,
             "framesLostAtSwitch": small_numbers[0] - resized_from})


SCALE_DOWN = r"""
async () => {
  const sender = window.rec.pc.getSenders().find((s) => s.track && s.track.kind === 'video');
  const params = sender.getParameters();
  params.encodings[0].scaleResolutionDownBy = 2;
  await sender.setParameters(params);
}
"""


def test_h264_resize_starts_a_new_mp4(server, figures):
    """Chromium's H264 drops from 640x480 to 320x240 mid-recording (scaleResolutionDownBy 2):
    the MP4 is closed at the first key frame of the new size (recordingStopped) and the rest
    goes to `<name>-2.mp4` (recordingStarted), which starts at 0; each file holds one size."""
    asyncio.run(_h264_resize(server, figures))


async def _h264_resize(server, figures):
    stream = "recorded-h264-resize"
    async with chromium_page() as page:
        capabilities = await page.evaluate(
            "RTCRtpSender.getCapabilities('video').codecs.filter((c) => c.mimeType === 'video/H264').length")
        if not capabilities:
            pytest.skip("this Chromium cannot send H264: RTCRtpSender.getCapabilities has none")
        await page.evaluate(PUBLISH_SCRIPT, [server.ws_url, stream, "video/H264", "packetization-mode=1", WIDTH, HEIGHT])
        await poll(page, OUTBOUND, lambda o: o["frameWidth"] == WIDTH and o["mimeType"] == "video/H264", 30,
                   "H264 at 640 wide")
        events = await poll(page, NOTES, lambda e: any(n["type"] == "recordingStarted" for n in e), 20,
                            "recordingStarted")
        first = next(n for n in events if n["type"] == "recordingStarted")["data"]["path"]
        await asyncio.sleep(2.5)
        await page.evaluate(SCALE_DOWN)
        await poll(page, OUTBOUND, lambda o: o["frameWidth"] == WIDTH // 2, 15, "H264 at 320 wide")
        events = await poll(page, NOTES, lambda e: sum(n["type"] == "recordingStarted" for n in e) >= 2, 15,
                            "a second recordingStarted after the resize")
        await asyncio.sleep(2.5)
        await page.evaluate("window.sluice.call('stop', {handle: window.rec.handle})")
        events = await page.evaluate(NOTES)
    recording = [(n["type"], n["data"].get("path")) for n in events if n["type"].startswith("recording")]
    second = [path for kind, path in recording if kind == "recordingStarted"][1]
    assert recording[:3] == [("recordingStarted", first), ("recordingStopped", first), ("recordingStarted", second)], \
        recording
    assert second == first[:-len(".mp4")] + "-2.mp4", (first, second)
    await wait_closed(second)
    results = {}
    for path, size in ((first, (WIDTH, HEIGHT)), (second, (WIDTH // 2, HEIGHT // 2))):
        p = probe(path)
        video = p.stream("video")
        assert video and video["codec_name"] == "h264" and (video["width"], video["height"]) == size, (path, video)
        assert p.stream("audio") and p.stream("audio")["codec_name"] == "opus", p.streams
        errors = decode_errors_at_file_times(path)
        assert errors == "", f"ffmpeg found errors decoding {path}: {errors}"
        sizes = frame_sizes(path)
        assert sizes and set(sizes) == {size}, f"{path} decodes at {sorted(set(sizes))}"
        assert float(video.get("start_time") or 0) < 0.1, f"{path} starts at {video.get('start_time')} s"
        results[os.path.basename(path)] = {"size": list(size), "frames": len(sizes), "durationS": p.duration_s}
    figures({"segments": results})
