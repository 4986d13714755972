"""A call's device in a process of its own, so a test can freeze it (SIGSTOP) as a phone that
loses its network: its socket stays open, and its media stops without a goodbye.

    python interop/call_device.py WS_URL APP USER CALLER

Connects as USER, accepts the first call from CALLER, publishes and plays the call's streams,
prints "DECODING" once it decodes the caller's video, then waits to be stopped."""

import asyncio
import sys

from call_peers import join_media, wait_incoming
from loopback import patch_aioice
from sluice_client import SluiceClient


async def main(url: str, app: str, user: str, caller: str) -> None:
    client = await SluiceClient.open(url)
    await client.connect(app, user=user)
    print("CONNECTED", flush=True)
    ring = await wait_incoming(client, caller, 30)
    accepted = await client.call("accept", {"callId": ring.params["callId"]})
    media = await join_media(client, accepted)
    await media.player.wait_frames(5, 30)
    print("DECODING", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    patch_aioice()
    asyncio.run(main(*sys.argv[1:5]))
