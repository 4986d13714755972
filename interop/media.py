"""aiortc peers for the interop tests: a publisher whose frames carry their own frame number,
and a player that decodes what it receives and reads the numbers back.

The number is drawn as big black and white blocks in the top band of the picture (16 bits in
the first row of blocks, their complement in the second row), big enough to survive VP8 at
any bitrate the tests use. A block is width/16 pixels square, so the code reads at any scale.
"""

import asyncio
import fractions
import math
import time
from dataclasses import dataclass
from typing import Optional

import numpy as np
from av import AudioFrame, VideoFrame
from aiortc import MediaStreamTrack, RTCRtpSender, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, VideoStreamTrack

from loopback import new_peer_connection

BITS = 16
WHITE, BLACK = 235, 16


def draw_frame_number(y_plane: np.ndarray, number: int) -> None:
    """Writes `number` (mod 2^16) into the top two block rows of a luma plane, in place."""
    block = y_plane.shape[1] // BITS
    value = number & 0xFFFF
    for bit in range(BITS):
        on = (value >> (BITS - 1 - bit)) & 1
        x = bit * block
        y_plane[0:block, x:x + block] = WHITE if on else BLACK
        y_plane[block:2 * block, x:x + block] = BLACK if on else WHITE


def read_frame_number(y_plane: np.ndarray) -> Optional[int]:
    """The number drawn by draw_frame_number, or None when the picture carries none."""
    height, width = y_plane.shape[:2]
    block = width // BITS
    if block < 4 or height < 2 * block:
        return None
    value = 0
    half = max(block // 4, 1)
    for bit in range(BITS):
        cx = bit * block + block // 2
        top = float(y_plane[block // 2 - half:block // 2 + half, cx - half:cx + half].mean())
        bottom = float(y_plane[block + block // 2 - half:block + block // 2 + half, cx - half:cx + half].mean())
        mid = (WHITE + BLACK) / 2
        if (top > mid) == (bottom > mid):
            return None  # the complement row disagrees: no number, or a damaged picture
        value = (value << 1) | (1 if top > mid else 0)
    return value


def luma(frame: VideoFrame) -> np.ndarray:
    if frame.format.name == "yuv420p":
        return frame.to_ndarray()[: frame.height]
    return frame.to_ndarray(format="gray")


class NumberedVideoTrack(VideoStreamTrack):
    """640x480 at 30 fps (aiortc's pacing); frame k shows number first_number + k."""

    def __init__(self, width: int = 640, height: int = 480, first_number: int = 0):
        super().__init__()
        self.width, self.height = width, height
        self.next_number = first_number
        self.sent: list[tuple[float, int]] = []  # (monotonic time handed to the encoder, number)
        # A fixed gradient background gives the encoder some texture to work on.
        gy, gx = np.mgrid[0:height, 0:width]
        self._background = ((gx * 3 + gy * 2) % 200 + 28).astype(np.uint8)
        self._chroma = np.full((height // 2, width), 128, dtype=np.uint8)

    async def recv(self) -> VideoFrame:
        pts, time_base = await self.next_timestamp()
        number = self.next_number
        self.next_number += 1
        y = self._background.copy()
        draw_frame_number(y, number)
        frame = VideoFrame.from_ndarray(np.concatenate([y, self._chroma]), format="yuv420p")
        frame.pts, frame.time_base = pts, time_base
        self.sent.append((time.monotonic(), number))
        return frame

    def resize(self, width: int, height: int) -> None:
        """The next frames come at this size (the encoder starts again on a key frame)."""
        self.width, self.height = width, height
        gy, gx = np.mgrid[0:height, 0:width]
        self._background = ((gx * 3 + gy * 2) % 200 + 28).astype(np.uint8)
        self._chroma = np.full((height // 2, width), 128, dtype=np.uint8)

    def last_sent(self) -> Optional[int]:
        return self.sent[-1][1] if self.sent else None


class ToneAudioTrack(MediaStreamTrack):
    """A 440 Hz tone, 48 kHz mono, in 20 ms frames; silence while `on` is false (a test's
    scripted speaker switches it)."""

    kind = "audio"
    RATE, SAMPLES = 48000, 960

    def __init__(self, on: bool = True):
        super().__init__()
        self.on = on
        self._pts = 0
        self._start: Optional[float] = None
        t = np.arange(self.SAMPLES * 50) / self.RATE  # one second, 440 whole periods
        self._wave = (np.sin(2 * math.pi * 440 * t) * 8000).astype(np.int16)
        self._silence = np.zeros(self.SAMPLES, dtype=np.int16)

    async def recv(self) -> AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        if self._start is None:
            self._start = time.time()
        else:
            await asyncio.sleep(self._start + self._pts / self.RATE - time.time())
        offset = self._pts % len(self._wave)
        samples = (self._wave[offset:offset + self.SAMPLES] if self.on else self._silence).reshape(1, -1)
        frame = AudioFrame.from_ndarray(samples, format="s16", layout="mono")
        frame.sample_rate = self.RATE
        frame.pts = self._pts
        frame.time_base = fractions.Fraction(1, self.RATE)
        self._pts += self.SAMPLES
        return frame


def prefer_vp8(transceiver) -> None:
    codecs = RTCRtpSender.getCapabilities("video").codecs
    transceiver.setCodecPreferences([c for c in codecs if c.mimeType in ("video/VP8", "video/rtx")])


class Publisher:
    """An aiortc sendonly peer: numbered VP8 video and an Opus tone."""

    def __init__(self, width: int = 640, height: int = 480, first_number: int = 0, audio: bool = True):
        self.pc = new_peer_connection()
        self.video = NumberedVideoTrack(width, height, first_number)
        prefer_vp8(self.pc.addTransceiver(self.video, direction="sendonly"))
        self.audio = ToneAudioTrack() if audio else None
        if self.audio:
            self.pc.addTransceiver(self.audio, direction="sendonly")

    async def offer(self) -> str:
        await self.pc.setLocalDescription(await self.pc.createOffer())
        return self.pc.localDescription.sdp

    async def accept(self, answer_sdp: str) -> None:
        await self.pc.setRemoteDescription(RTCSessionDescription(answer_sdp, "answer"))

    async def close(self) -> None:
        await self.pc.close()


@dataclass
class DecodedFrame:
    at: float  # time.monotonic() when the decoded frame came out of aiortc
    width: int
    height: int
    number: Optional[int]


class Player:
    """An aiortc recvonly peer (video and audio) that records every decoded frame."""

    def __init__(self, video: bool = True, audio: bool = True):
        self.pc = new_peer_connection()
        self.frames: list[DecodedFrame] = []
        self.audio_frames = 0
        self.errors: list[str] = []
        self._tasks: list[asyncio.Task] = []
        self._changed = asyncio.Event()
        if video:
            self.pc.addTransceiver("video", direction="recvonly")
        if audio:
            self.pc.addTransceiver("audio", direction="recvonly")
        self.pc.on("track", self._on_track)

    def _on_track(self, track) -> None:
        self._tasks.append(asyncio.ensure_future(self._consume(track)))

    async def _consume(self, track) -> None:
        try:
            while True:
                frame = await track.recv()
                if track.kind == "video":
                    self.frames.append(DecodedFrame(time.monotonic(), frame.width, frame.height,
                                                    read_frame_number(luma(frame))))
                else:
                    self.audio_frames += 1
                self._changed.set()
        except MediaStreamError:
            pass
        except Exception as e:  # recorded so the test can show it
            self.errors.append(repr(e))

    async def offer(self) -> str:
        await self.pc.setLocalDescription(await self.pc.createOffer())
        return self.pc.localDescription.sdp

    async def accept(self, answer_sdp: str) -> None:
        await self.pc.setRemoteDescription(RTCSessionDescription(answer_sdp, "answer"))

    def numbers(self) -> list[int]:
        return [f.number for f in self.frames if f.number is not None]

    async def wait_frames(self, count: int, timeout: float, predicate=lambda f: True) -> list[DecodedFrame]:
        """Waits until `count` decoded frames match; fails with what was decoded so far."""
        deadline = time.monotonic() + timeout
        while True:
            matching = [f for f in self.frames if predicate(f)]
            if len(matching) >= count:
                return matching
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"decoded {len(matching)} matching frames of {count} wanted within {timeout} s "
                    f"({len(self.frames)} frames in all, last {self.frames[-3:]}, errors {self.errors}, "
                    f"ice {self.pc.iceConnectionState}, connection {self.pc.connectionState})")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))
            except asyncio.TimeoutError:
                pass

    async def close(self) -> None:
        await self.pc.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
