"""1:1 calls with aiortc users: a user's session, the media a side sends and plays once a call
is accepted, and the waits on callStatus. The call's streams are the server's (`publish` and
`play` of CONNECTING and of accept's result); each side publishes one and plays the other."""

import json
import socket
import struct
import urllib.request
from dataclasses import dataclass
from typing import Optional

from media import Player, Publisher
from sessions import close_all
from sluice_client import SluiceClient

APP = "callApp"


async def user_session(server, name: str, app: str = APP) -> SluiceClient:
    """A session of `name` in an app that trusts `connect`'s user."""
    client = await SluiceClient.open(server.ws_url)
    result = await client.connect(app, user=name)
    assert result.get("identity") == name, f"connect as {name}: {result}"
    return client


async def wait_call_status(client: SluiceClient, call_id: str, status: str, timeout: float = 10.0):
    return await client.wait_notification(
        lambda n: n.method == "callStatus" and n.params.get("callId") == call_id and n.params.get("status") == status,
        timeout, f"callStatus {status} of {call_id}")


async def wait_incoming(client: SluiceClient, caller: str, timeout: float = 10.0):
    return await client.wait_notification(
        lambda n: n.method == "incomingCall" and n.params.get("from") == caller, timeout, f"incomingCall from {caller}")


@dataclass
class CallMedia:
    """What one side sends (its call stream) and plays (the other side's)."""
    publisher: Publisher
    publish_handle: str
    player: Player
    play_handle: str

    async def close(self) -> None:
        await self.publisher.close()
        await self.player.close()


async def join_media(client: SluiceClient, names: dict, width: int = 320, height: int = 240,
                     first_number: int = 0) -> CallMedia:
    """Publishes numbered VP8 and Opus to `names["publish"]` and plays `names["play"]` with
    `wait`, as a call's client does once it is told the names."""
    publisher = Publisher(width=width, height=height, first_number=first_number)
    player = Player()
    try:
        published = await client.publish(names["publish"], await publisher.offer())
        await publisher.accept(published["sdp"])
        played = await client.play(names["play"], await player.offer(), wait=True)
        await player.accept(played["sdp"])
    except BaseException:
        await publisher.close()
        await player.close()
        raise
    return CallMedia(publisher, published["handle"], player, played["handle"])


def kill_socket(client: SluiceClient) -> None:
    """Ends the WebSocket's TCP connection with a reset: no close frame, no FIN, as a phone
    that loses its network."""
    transport = client.ws.transport
    sock = transport.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


def admin_calls(server, query: str = "") -> dict:
    """GET /api/v1/calls with the admin token of the test config."""
    token = json.loads(server.config_path.read_text())["admin"]["token"]
    request = urllib.request.Request(f"{server.http_url}/api/v1/calls{query}")
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.status == 200
        return json.loads(response.read().decode())


def record_of(server, call_id: str, user: Optional[str] = None) -> dict:
    page = admin_calls(server, f"?user={user}&limit=1000" if user else "?limit=1000")
    found = [c for c in page["calls"] if c["callId"] == call_id]
    assert found, f"call {call_id} is not in the call log: {page}"
    return found[0]


async def close_call(media, clients) -> None:
    """Closes the peers of `media` (None entries skipped), then the sessions: a test's finally."""
    for side in media:
        if side is not None:
            await side.close()
    await close_clients(*clients)


async def close_clients(*clients) -> None:
    for client in clients:
        if client is not None:
            try:
                await client.close()
            except Exception:
                pass


__all__ = ["APP", "user_session", "wait_call_status", "wait_incoming", "CallMedia", "join_media",
           "kill_socket", "admin_calls", "record_of", "close_call", "close_clients", "close_all"]
