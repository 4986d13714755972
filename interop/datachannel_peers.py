"""aiortc peers with data channels, for the data channel tests (test_datachannel*.py).

A publisher (numbered VP8, plus channels) and a player (recvonly video, plus channels); each
records what arrives on each channel with the local monotonic time, so a test can check
order, completeness and latency of what the server forwarded.
"""

import asyncio
import time
from dataclasses import dataclass, field
from typing import Optional

from aiortc import RTCSessionDescription

from media import Player, Publisher


@dataclass
class Received:
    at: float  # time.monotonic() when aiortc delivered it
    data: object  # str or bytes


@dataclass
class ChannelLog:
    channel: object
    received: list = field(default_factory=list)
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def wait_open(self, timeout: float = 10.0) -> None:
        if self.channel.readyState != "open":
            await asyncio.wait_for(self.opened.wait(), timeout)

    async def wait_count(self, count: int, timeout: float) -> list:
        deadline = time.monotonic() + timeout
        while len(self.received) < count:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{len(self.received)} of {count} messages arrived on "
                                     f"{self.channel.label!r} within {timeout} s")
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), min(left, 0.5))
            except asyncio.TimeoutError:
                pass
        return self.received


def open_channel(pc, label: str, **options) -> ChannelLog:
    """Creates channel `label` on `pc` (before the offer, so the offer has m=application)."""
    channel = pc.createDataChannel(label, **options)
    log = ChannelLog(channel)
    channel.on("open", log.opened.set)

    @channel.on("message")
    def _message(data):
        log.received.append(Received(time.monotonic(), data))
        log.changed.set()

    return log


class DataPublisher(Publisher):
    """`width`/`height`: the numbered video's size (a small one keeps aiortc's VP8 encoder
    from taking the CPU a data channel test or bench needs)."""

    def __init__(self, labels=("chat",), audio: bool = False, width: int = 640, height: int = 480, **options):
        super().__init__(width=width, height=height, audio=audio)
        self.channels = {label: open_channel(self.pc, label, **options) for label in labels}


class DataPlayer(Player):
    def __init__(self, labels=("chat",), **options):
        super().__init__(audio=False)
        self.channels = {label: open_channel(self.pc, label, **options) for label in labels}


def local_udp_port(pc) -> int:
    """The local UDP port of `pc`'s ICE pair (the nominated one; aioice gathers one host
    candidate per peer here, 127.0.0.1), so a test can drop this peer's packets with nftables."""
    ice = pc.sctp.transport.transport
    pair = getattr(ice._connection, "_nominated", {}).get(1)
    if pair is not None:
        return pair.local_addr[1]
    udp = [c for c in ice.iceGatherer.getLocalCandidates() if c.protocol.lower() == "udp"]
    assert len(udp) == 1, f"expected one local UDP candidate, found {udp}"
    return udp[0].port


async def publish_with_channels(client, stream: str, peer: DataPublisher) -> str:
    result = await client.publish(stream, await peer.offer())
    await peer.pc.setRemoteDescription(RTCSessionDescription(result["sdp"], "answer"))
    return result["handle"]


async def play_with_channels(client, stream: str, peer: DataPlayer) -> str:
    result = await client.play(stream, await peer.offer())
    await peer.pc.setRemoteDescription(RTCSessionDescription(result["sdp"], "answer"))
    return result["handle"]
