"""Scripted speakers for the active-speaker test: aiortc publishers of audio only, whose
tone the test switches on and off. aiortc sends each packet's RFC 6464 level, computed from
the samples: the tone reads about -12 dBov, the silence -127."""

import asyncio
import fractions
import math
import time
from typing import Optional

import numpy as np
from aiortc import RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from av import AudioFrame

from loopback import new_peer_connection
from sessions import open_session


class SwitchedToneTrack(MediaStreamTrack):
    """A 440 Hz tone while `on`, silence otherwise, 48 kHz mono in 20 ms frames."""

    kind = "audio"
    RATE, SAMPLES = 48000, 960

    def __init__(self):
        super().__init__()
        self.on = False
        self._pts = 0
        self._start: Optional[float] = None
        t = np.arange(self.SAMPLES * 50) / self.RATE
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
        samples = self._wave[offset:offset + self.SAMPLES] if self.on else self._silence
        frame = AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = self.RATE
        frame.pts = self._pts
        frame.time_base = fractions.Fraction(1, self.RATE)
        self._pts += self.SAMPLES
        return frame


class Speaker:
    """One publisher of `stream`: its session, its peer and its switchable tone."""

    def __init__(self, stream: str):
        self.stream = stream
        self.track = SwitchedToneTrack()
        self.pc = new_peer_connection()
        self.pc.addTransceiver(self.track, direction="sendonly")
        self.client = None
        self.handle = None

    async def publish(self, ws_url: str) -> None:
        self.client = await open_session(ws_url)
        await self.pc.setLocalDescription(await self.pc.createOffer())
        result = await self.client.publish(self.stream, self.pc.localDescription.sdp)
        self.handle = result["handle"]
        await self.pc.setRemoteDescription(RTCSessionDescription(result["sdp"], "answer"))
        await self.client.wait_status(self.handle, "PUBLISHING", 15)

    async def close(self) -> None:
        await self.pc.close()
        if self.client:
            await self.client.close()
