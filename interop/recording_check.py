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
