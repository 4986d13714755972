"""Scripted speakers for the active-speaker test: aiortc publishers of audio only, whose
tone (media.ToneAudioTrack) the test switches on and off. aiortc sends each packet's RFC 6464
level, computed from the samples: the tone reads about -12 dBov, the silence -127."""

from aiortc import RTCSessionDescription

from loopback import new_peer_connection
from media import ToneAudioTrack
from sessions import open_session


class Speaker:
    """One publisher of `stream`: its session, its peer and its switchable tone."""

    def __init__(self, stream: str):
        self.stream = stream
        self.track = ToneAudioTrack(on=False)
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
