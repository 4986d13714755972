"""A/V sync marks: test sources that flash the picture white and beep a 1 kHz tone at the
same media instants, and the analysis that finds both in a file with Debian's ffmpeg and
ffprobe and pairs them.

Why the aiortc source is in sync by construction (so an offset measured is the server's):
aiortc stamps each RTP packet with its own random origin plus the frame's pts (video:
`convert_timebase(frame.pts, ...)` in codecs/vpx.py; audio: the Opus packet's pts less the
first packet's, codecs/opus.py), and its sender report pairs the wall clock when a packet
left with that packet's RTP timestamp (rtcrtpsender.py `_run_rtp`: `__ntp_timestamp =
current_ntp_time()` after `_send_rtp`). So on the publisher's NTP clock a frame is at "the
wall time its track paced it to go out" (plus the encode time before it left). Both tracks
here pace their frames off ONE start instant (`MarkClock.start`): frame n of video is due at
start + n/30 s, audio frame m at start + m*20 ms, and what each frame shows is a pure
function of that due time: video frames 15 + 30k .. 17 + 30k are white, audio samples
from 24000 + 48000k for 100 ms are the tone, both at exactly 0.5 + k s after start (sample-
and frame-exact). A white frame and its beep therefore carry the same NTP time in the
publisher's sender reports, up to the encode time of the one packet each first report
samples (a few ms for a flat 320x240 VP8 frame; Opus's 6.5 ms look-ahead delays the decoded
beep by that much). Anything beyond that is the recorder's timeline.
"""

import asyncio
import fractions
import json
import math
import re
import subprocess
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np
from av import AudioFrame, VideoFrame
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack, VideoStreamTrack

PERIOD_S = 1          # a flash and a beep every PERIOD_S seconds of media time,
PHASE_S = 0.5         # at PHASE_S + k * PERIOD_S: the first (0.5 s) comes before aiortc's first
                      # sender report (0.5-1.5 s after its start), so both of the recorder's
                      # anchors are tried: the packets' arrival, then the reports' NTP
FLASH_FRAMES = 3      # white frames per flash (100 ms at 30 fps); the onset is the first one
BEEP_S = 0.1
TONE_HZ = 1000
DARK, BRIGHT = 16, 235
FPS, VIDEO_RATE = 30, 90000
AUDIO_RATE, AUDIO_SAMPLES = 48000, 960


class MarkClock:
    """The one start instant both tracks pace from (set by whichever track asks first)."""

    def __init__(self):
        self.start: Optional[float] = None

    def begin(self) -> float:
        if self.start is None:
            self.start = time.time()
        return self.start


class FlashVideoTrack(VideoStreamTrack):
    """320x240 at 30 fps: dark, white for FLASH_FRAMES frames from PHASE_S + k * PERIOD_S."""

    def __init__(self, clock: MarkClock, width: int = 320, height: int = 240):
        super().__init__()
        self.clock, self.width, self.height = clock, width, height
        self._n: Optional[int] = None
        self.first_n: Optional[int] = None  # the first frame's number on the shared timeline
        self._chroma = np.full((height // 2, width), 128, dtype=np.uint8)

    async def recv(self) -> VideoFrame:
        if self.readyState != "live":
            raise MediaStreamError
        start = self.clock.begin()
        if self._n is None:  # join the shared timeline at the next frame slot, no burst
            self._n = self.first_n = math.ceil((time.time() - start) * FPS)
        n = self._n
        self._n += 1
        await asyncio.sleep(start + n / FPS - time.time())
        bright = (n - round(PHASE_S * FPS)) % (PERIOD_S * FPS) < FLASH_FRAMES
        y = np.full((self.height, self.width), BRIGHT if bright else DARK, dtype=np.uint8)
        frame = VideoFrame.from_ndarray(np.concatenate([y, self._chroma]), format="yuv420p")
        frame.pts, frame.time_base = n * (VIDEO_RATE // FPS), fractions.Fraction(1, VIDEO_RATE)
        return frame


class BeepAudioTrack(MediaStreamTrack):
    """48 kHz mono in 20 ms frames: silence, a 1 kHz tone for BEEP_S from PHASE_S + k * PERIOD_S."""

    kind = "audio"

    def __init__(self, clock: MarkClock):
        super().__init__()
        self.clock = clock
        self._m: Optional[int] = None
        self.first_m: Optional[int] = None

    async def recv(self) -> AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        start = self.clock.begin()
        if self._m is None:
            self._m = self.first_m = math.ceil((time.time() - start) * AUDIO_RATE / AUDIO_SAMPLES)
        m = self._m
        self._m += 1
        await asyncio.sleep(start + m * AUDIO_SAMPLES / AUDIO_RATE - time.time())
        index = m * AUDIO_SAMPLES + np.arange(AUDIO_SAMPLES)  # sample numbers on the shared timeline
        phase = (index - round(PHASE_S * AUDIO_RATE)) % (PERIOD_S * AUDIO_RATE)
        on = phase < int(BEEP_S * AUDIO_RATE)
        samples = np.where(on, np.sin(2 * math.pi * TONE_HZ * phase / AUDIO_RATE) * 12000, 0).astype(np.int16)
        frame = AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = AUDIO_RATE
        frame.pts, frame.time_base = m * AUDIO_SAMPLES, fractions.Fraction(1, AUDIO_RATE)
        return frame


# ---- analysis of a file ------------------------------------------------------------------

def _run(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    out = subprocess.run(args, capture_output=True, timeout=timeout)
    assert out.returncode == 0, f"{args[0]} failed: {out.stderr.decode(errors='replace')[-2000:]}"
    return out


def frame_times(path: str, kind: str) -> list[tuple[float, int]]:
    """Decoded frames of the first `kind` ('v' or 'a') stream: (pts_time, nb_samples; 0 for video)."""
    out = _run(["ffprobe", "-v", "error", "-select_streams", f"{kind}:0", "-show_frames",
                "-show_entries", "frame=pts_time,best_effort_timestamp_time,nb_samples", "-of", "json", path])
    frames = json.loads(out.stdout).get("frames") or []
    result = []
    for f in frames:
        t = f.get("pts_time", f.get("best_effort_timestamp_time"))
        result.append((float(t), int(f.get("nb_samples") or 0)))
    return result


def packet_times(path: str, kind: str) -> list[float]:
    """pts_time of every packet of the first `kind` ('v' or 'a') stream, in file order."""
    out = _run(["ffprobe", "-v", "error", "-select_streams", f"{kind}:0", "-show_packets",
                "-show_entries", "packet=pts_time", "-of", "json", path])
    return [float(p["pts_time"]) for p in json.loads(out.stdout).get("packets") or [] if "pts_time" in p]


def video_lumas(path: str) -> list[tuple[float, float]]:
    """(pts_time, mean luma) of every decoded video frame, from ffmpeg's signalstats."""
    out = _run(["ffmpeg", "-nostdin", "-v", "error", "-copyts", "-i", path, "-map", "0:v:0",
                "-vf", "signalstats,metadata=mode=print:key=lavfi.signalstats.YAVG:file=-", "-f", "null", "-"])
    result, at = [], None
    for line in out.stdout.decode().splitlines():
        m = re.search(r"pts_time:(\S+)", line)
        if m:
            at = float(m.group(1))
            continue
        m = re.search(r"lavfi\.signalstats\.YAVG=(\S+)", line)
        if m and at is not None:
            result.append((at, float(m.group(1))))
            at = None
    return result


def flash_onsets(lumas: list[tuple[float, float]]) -> list[float]:
    """The time of the first bright frame of every run of bright frames after a dark one."""
    threshold = DARK + 0.25 * (BRIGHT - DARK)
    onsets, was_bright = [], True  # a file that opens bright has no onset there
    for at, y in lumas:
        bright = y > threshold
        if bright and not was_bright:
            onsets.append(at)
        was_bright = bright
    return onsets


def audio_samples(path: str) -> tuple[np.ndarray, np.ndarray]:
    """Every decoded audio sample (mono, 48 kHz, s16) and its time in the file (s): each
    frame's samples are placed from that frame's pts, so a gap in the file stays a gap."""
    frames = frame_times(path, "a")
    raw = _run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1",
                "-ar", str(AUDIO_RATE), "-f", "s16le", "-"]).stdout
    samples = np.frombuffer(raw, dtype=np.int16)
    times = np.empty(len(samples))
    pos = 0
    for at, count in frames:
        end = min(pos + count, len(samples))
        times[pos:end] = at + np.arange(end - pos) / AUDIO_RATE
        pos = end
    assert pos == len(samples), \
        f"ffprobe's audio frames hold {pos} samples, ffmpeg decoded {len(samples)} (not 48 kHz opus?)"
    return samples, times


def beep_onsets(samples: np.ndarray, times: np.ndarray, quiet_s: float = 0.4) -> list[float]:
    """The time of the first sample over a threshold after at least `quiet_s` under it (in
    the file: a file that opens in the middle of a beep has no onset there)."""
    threshold = 0.15 * 12000
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > threshold)
    onsets, last = [], None
    for i in loud:
        if (times[i] - times[0] if last is None else times[i] - times[last]) >= quiet_s:
            onsets.append(float(times[i]))
        last = i
    return onsets


@dataclass
class SyncReport:
    flashes: list[float]
    beeps: list[float]
    offsets_ms: list[float]  # beep - flash per pair (positive: the sound is late)

    def summary(self) -> dict:
        o = self.offsets_ms
        return {"count": len(o), "meanMs": round(float(np.mean(o)), 1) if o else None,
                "maxAbsMs": round(float(np.max(np.abs(o))), 1) if o else None,
                "offsetsMs": [round(x, 1) for x in o]}


def av_offsets(path: str, window_s: float = 0.4) -> SyncReport:
    """Finds every flash and beep in `path` and pairs each flash with the beep nearest it
    within `window_s` (the marks are PERIOD_S apart, so a pair cannot be mistaken)."""
    flashes = flash_onsets(video_lumas(path))
    samples, times = audio_samples(path)
    beeps = beep_onsets(samples, times)
    offsets = []
    for f in flashes:
        near = [b for b in beeps if abs(b - f) <= window_s]
        if near:
            offsets.append((min(near, key=lambda b: abs(b - f)) - f) * 1000)
    return SyncReport(flashes, beeps, offsets)


def make_marked_file(path: str, audio_shift_s: float, seconds: int = 5) -> None:
    """A WebM (VP8+Opus) made by ffmpeg alone from lavfi sources with the same marks, a flash
    and a beep at 0.5, 1.5, ... s, its audio input shifted by `audio_shift_s` (-itsoffset): the
    control's file."""
    gate = f"lt(mod(t+{PERIOD_S - PHASE_S},{PERIOD_S}),{BEEP_S})"
    video = (f"color=c=0x101010:s=320x240:r={FPS}:d={seconds},"
             f"drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='{gate}'")
    audio = f"aevalsrc='if({gate},0.37*sin(2*PI*{TONE_HZ}*t),0)':s={AUDIO_RATE}:d={seconds}"
    _run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", video,
          "-itsoffset", str(audio_shift_s), "-f", "lavfi", "-i", audio,
          "-map", "0:v", "-map", "1:a", "-c:v", "libvpx", "-b:v", "500k", "-deadline", "realtime",
          "-cpu-used", "8", "-c:a", "libopus", "-ar", str(AUDIO_RATE), "-ac", "1", path])
