"""Publish and play through the server with aiortc peers: the steps every test repeats."""

import time
from dataclasses import dataclass
from typing import Optional

from media import Player, Publisher
from sluice_client import SluiceClient


@dataclass
class PublishSession:
    client: SluiceClient
    peer: Publisher
    handle: str

    async def close(self) -> None:
        await self.peer.close()
        await self.client.close()


@dataclass
class PlaySession:
    client: SluiceClient
    peer: Player
    handle: str
    requested_at: float  # time.monotonic() when the play request was sent
    answered_at: float   # time.monotonic() when its answer was back

    async def close(self) -> None:
        await self.peer.close()
        await self.client.close()


async def open_session(ws_url: str) -> SluiceClient:
    client = await SluiceClient.open(ws_url)
    result = await client.connect("defaultApp")
    assert isinstance(result.get("sessionId"), str) and result["sessionId"], f"connect result {result}"
    return client


async def publish(ws_url: str, stream: str, first_number: int = 0, audio: bool = True,
                  client: Optional[SluiceClient] = None) -> PublishSession:
    """Connects (unless given a client), publishes numbered VP8 (and Opus), applies the answer."""
    client = client or await open_session(ws_url)
    peer = Publisher(first_number=first_number, audio=audio)
    try:
        result = await client.publish(stream, await peer.offer())
        assert isinstance(result.get("handle"), str) and result["handle"], f"publish result {result}"
        assert "a=" in result.get("sdp", ""), f"publish answer is no SDP: {result}"
        await peer.accept(result["sdp"])
    except BaseException:
        await peer.close()
        await client.close()
        raise
    return PublishSession(client, peer, result["handle"])


async def play(ws_url: str, stream: str, wait: bool = False,
               client: Optional[SluiceClient] = None) -> PlaySession:
    """Connects (unless given a client), plays with a recvonly aiortc peer, applies the answer."""
    client = client or await open_session(ws_url)
    peer = Player()
    try:
        offer = await peer.offer()
        requested_at = time.monotonic()
        result = await client.play(stream, offer, wait=wait)
        answered_at = time.monotonic()
        assert isinstance(result.get("handle"), str) and result["handle"], f"play result {result}"
        await peer.accept(result["sdp"])
    except BaseException:
        await peer.close()
        await client.close()
        raise
    return PlaySession(client, peer, result["handle"], requested_at, answered_at)


async def close_all(*sessions) -> None:
    for s in sessions:
        if s is not None:
            try:
                await s.close()
            except Exception:
                pass
