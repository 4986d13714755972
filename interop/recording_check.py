"""What the recording tests read from a file: Debian's ffprobe and ffmpeg (and mkvinfo for
WebM) check it as a player would, and PyAV decodes it to read the frame numbers the test
sources drew (media.draw_frame_number)."""

import json
import subprocess
from dataclasses import dataclass, field
from typing import Optional

import av

from media import read_frame_number


@dataclass
class Probe:
    format_name: str
    duration_s: float
    streams: list[dict] = field(default_factory=list)

    def stream(self, kind: str) -> Optional[dict]:
        return next((s for s in self.streams if s.get("codec_type") == kind), None)


def probe(path: str) -> Probe:
    out = subprocess.run(["ffprobe", "-v", "error", "-show_format", "-show_streams", "-of", "json", path],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, f"ffprobe refused {path}: {out.stderr.strip()}"
    data = json.loads(out.stdout)
    fmt = data.get("format") or {}
    return Probe(fmt.get("format_name", ""), float(fmt.get("duration") or 0), data.get("streams") or [])


def decode_errors(path: str) -> str:
    """What `ffmpeg -v error` says while decoding every frame ('' when nothing is wrong)."""
    out = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "null", "-"],
                         capture_output=True, text=True, timeout=120)
    return (out.stderr.strip() + (f" (exit {out.returncode})" if out.returncode else "")).strip()


def mkvinfo_problems(path: str) -> str:
    out = subprocess.run(["mkvinfo", path], capture_output=True, text=True, timeout=60)
    bad = [line for line in out.stdout.splitlines() + out.stderr.splitlines()
           if "error" in line.lower() or "warning" in line.lower()]
    return "\n".join(bad) + (f" (exit {out.returncode})" if out.returncode else "")


def video_numbers(path: str) -> tuple[list[Optional[int]], list[float]]:
    """Every decoded video frame's drawn number (None when unreadable) and its time (s)."""
    numbers, times = [], []
    with av.open(path) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            numbers.append(read_frame_number(frame.to_ndarray(format="gray")))
            times.append(float(frame.pts * stream.time_base) if frame.pts is not None else -1.0)
    return numbers, times


def frame_sizes(path: str) -> list[tuple[int, int]]:
    """(width, height) of every decoded video frame, in order, as `ffprobe -show_frames` gives
    them (the size each frame decodes at, which is what a resize changes)."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=width,height",
                          "-of", "csv=p=0", path], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"ffprobe -show_frames refused {path}: {out.stderr.strip()}"
    sizes = []
    for line in out.stdout.splitlines():
        parts = [p for p in line.strip().split(",") if p]
        if len(parts) >= 2:
            sizes.append((int(parts[0]), int(parts[1])))
    return sizes


def video_numbers_tolerant(path: str) -> tuple[list[Optional[int]], str]:
    """Like video_numbers for a file that may be cut off (a `.part` left by kill -9): the
    frames decoded before the cut, and what PyAV said when it stopped ('' when it read to the
    end without complaint)."""
    numbers, stopped = [], ""
    try:
        with av.open(path) as container:
            stream = container.streams.video[0]
            for frame in container.decode(stream):
                numbers.append(read_frame_number(frame.to_ndarray(format="gray")))
    except av.error.FFmpegError as e:
        stopped = repr(e)
    return numbers, stopped


async def recording_started(client, timeout: float = 15.0):
    """The publisher's `recordingStarted` streamEvent (its `data.path` names the file)."""
    return await client.wait_notification(
        lambda n: n.method == "streamEvent" and n.params.get("type") == "recordingStarted", timeout, "recordingStarted")


async def wait_closed(path: str, timeout: float = 15.0) -> None:
    """Waits until the recorder renamed `path.part` to `path` (the file is closed). After the
    publisher's own `stop` no `recordingStopped` reaches it (its handle is gone), so the file
    on disk is what tells."""
    import asyncio
    import os
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path) and not os.path.exists(path + ".part"):
            return
        await asyncio.sleep(0.1)
    folder = os.path.dirname(path)
    raise AssertionError(f"{path} was not closed within {timeout} s; folder: "
                         f"{os.listdir(folder) if os.path.isdir(folder) else 'missing'}")


def decode_errors_at_file_times(path: str) -> str:
    """What `ffmpeg -v error` says decoding every video frame at its own time in the file
    ('' when nothing is wrong). A plain `-f null` output takes its time base from the guessed
    frame rate (r_frame_rate), and two frames less than one such tick apart land in one tick:
    the null muxer then logs "non monotonically increasing dts" although both decoded. Seen
    here (a) with Chromium's fake camera on a busy machine (20 ms after a 78 ms gap, 1/20 s
    ticks) and (b) with aiortc's regular 33/34 ms frames under loss, where the gaps of skipped
    frames made ffmpeg guess 359/12 fps (ticks of 33.4 ms). At 1/1000 s every frame the
    recorder wrote (strictly increasing ms) keeps its own time; decoder errors are reported
    as before."""
    out = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-enc_time_base:v", "1:1000",
                          "-f", "null", "-"], capture_output=True, text=True, timeout=120)
    return (out.stderr.strip() + (f" (exit {out.returncode})" if out.returncode else "")).strip()
