"""The admin REST API (docs/protocol.md section 2) against real aiortc peers: stream views with live
figures, server-side mute that outranks the publisher, terminate, session kick, /metrics."""

import asyncio
import json
import time
import urllib.error
import urllib.request

from rpc_assert import expect_rpc_error
from sessions import close_all, open_session, play, publish

# What a player may still decode after a mute: frames already in flight or in aiortc's jitter
# buffer when the server stopped forwarding.
SETTLE_SECONDS = 1.5
QUIET_SECONDS = 2.0
MAX_FRAMES_WHILE_MUTED = 2


def admin_token(server) -> str:
    return json.loads(server.config_path.read_text())["admin"]["token"]


def _lower(headers) -> dict:
    return {name.lower(): value for name, value in headers.items()}


def _http(server, method: str, path: str, token=None, body=None, content_type="application/json"):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.http_url + path, data=data, method=method)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    if data is not None and content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            status, headers, raw = response.status, _lower(response.headers), response.read().decode()
    except urllib.error.HTTPError as e:
        status, headers, raw = e.code, _lower(e.headers), e.read().decode(errors="replace")
    try:
        return status, headers, json.loads(raw)
    except ValueError:
        return status, headers, raw


async def http(server, method, path, token=None, body=None, content_type="application/json"):
    """Off the event loop, so aiortc keeps running while the request is answered."""
    return await asyncio.to_thread(_http, server, method, path, token, body, content_type)


def _video_packets(handle: dict) -> int:
    return ((handle or {}).get("video") or {}).get("packets", 0)


async def wait_stream_figures(server, token, stream, timeout=10.0) -> dict:
    """The stream's view once both the publisher's and the player's video packets are counted."""
    deadline = time.monotonic() + timeout
    while True:
        status, _, body = await http(server, "GET", f"/api/v1/streams/{stream}", token)
        assert status == 200, f"GET stream answered {status} {body!r}"
        players = body.get("players") or []
        if _video_packets(body.get("publisher")) > 0 and players and _video_packets(players[0]) > 0:
            return body
        if time.monotonic() > deadline:
            raise AssertionError(f"no video packets counted within {timeout} s: {body!r}")
        await asyncio.sleep(0.5)


def is_event(handle, type_, by):
    return lambda n: (n.method == "streamEvent" and n.params.get("handle") == handle
                      and n.params.get("type") == type_ and n.params.get("by") == by)


def test_admin_mute_terminate_and_metrics(server, figures):
    asyncio.run(_admin_mute_terminate_and_metrics(server, figures))


async def _admin_mute_terminate_and_metrics(server, figures):
    stream = "admin-cam"
    token = admin_token(server)
    pub = player = None
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        player = await play(server.ws_url, stream)
        await player.client.wait_status(player.handle, "PLAYING", 15)
        await player.peer.wait_frames(5, 15)

        # The stream view: publisher, player, live figures, nothing muted.
        view = await wait_stream_figures(server, token, stream)
        assert view["name"] == stream and view["appKey"] == "defaultApp", view
        assert view["publisher"]["handle"] == pub.handle and view["publisher"]["role"] == "publish", view
        assert [p["handle"] for p in view["players"]] == [player.handle], view
        assert view["muted"]["video"] == {"muted": False, "byPublisher": False, "byServer": False}, view
        status, _, listing = await http(server, "GET", "/api/v1/streams", token)
        assert status == 200 and [s["name"] for s in listing["streams"]] == [stream], listing

        # Wrong or missing token.
        for bad in ("wrong-token", None):
            status, headers, body = await http(server, "GET", "/api/v1/streams", bad)
            assert status == 401, (status, body)
            assert headers.get("www-authenticate", "").startswith("Bearer"), headers
            assert body["error"]["code"] == 401 and body["error"]["reason"] == "UNAUTHORIZED", body

        # Server-side mute of video: both ends hear it from the server, the player's picture stops.
        status, _, body = await http(server, "POST", f"/api/v1/streams/{stream}/mute", token, {"kind": "video"})
        assert (status, body) == (200, {}), (status, body)
        await pub.client.wait_notification(is_event(pub.handle, "videoMuted", "server"), 5, "videoMuted to the publisher")
        await player.client.wait_notification(is_event(player.handle, "videoMuted", "server"), 5,
                                              "videoMuted to the player")
        _, _, view = await http(server, "GET", f"/api/v1/streams/{stream}", token)
        assert view["muted"]["video"] == {"muted": True, "byPublisher": False, "byServer": True}, view
        assert view["muted"]["audio"]["muted"] is False, view
        await asyncio.sleep(SETTLE_SECONDS)
        frames_muted = len(player.peer.frames)
        audio_muted = player.peer.audio_frames
        await asyncio.sleep(QUIET_SECONDS)
        grown = len(player.peer.frames) - frames_muted
        assert grown <= MAX_FRAMES_WHILE_MUTED, f"{grown} video frames decoded while muted by the server"
        assert player.peer.audio_frames > audio_muted, "audio stopped too, but only video was muted"

        # The publisher's own unmute does not lift a moderator's mute.
        await expect_rpc_error(pub.client.call("unmute", {"handle": pub.handle, "kind": "video"}), 1002)

        # Lifted by the server: both are told, and the picture comes back.
        unmuted_at = time.monotonic()
        status, _, body = await http(server, "POST", f"/api/v1/streams/{stream}/unmute", token, {"kind": "video"})
        assert (status, body) == (200, {}), (status, body)
        await pub.client.wait_notification(is_event(pub.handle, "videoUnmuted", "server"), 5,
                                           "videoUnmuted to the publisher")
        await player.client.wait_notification(is_event(player.handle, "videoUnmuted", "server"), 5,
                                              "videoUnmuted to the player")
        resumed = await player.peer.wait_frames(5, 10, lambda f: f.at > unmuted_at and f.number is not None)
        figures({"unmute_to_first_frame_ms": round((resumed[0].at - unmuted_at) * 1000, 1),
                 "frames_while_muted": grown})

        # Metrics, no token needed.
        status, headers, text = await http(server, "GET", "/metrics")
        assert status == 200 and isinstance(text, str), (status, text)
        assert headers.get("content-type", "").startswith("text/plain; version=0.0.4")
        lines = text.splitlines()
        assert "sluice_streams 1" in lines, text
        assert "sluice_up 1" in lines, text
        packets = [line for line in lines if line.startswith("sluice_stream_packets_total{")
                   and f'stream="{stream}"' in line and 'role="publish"' in line and 'kind="video"' in line]
        assert packets and int(packets[0].rsplit(" ", 1)[1]) > 0, packets

        # Terminate: the publisher and the player learn why.
        status, _, body = await http(server, "DELETE", f"/api/v1/streams/{stream}", token)
        assert (status, body) == (200, {}), (status, body)
        ended = await pub.client.wait_status(pub.handle, "UNPUBLISHED", 5)
        assert ended.params.get("info") == "Stopped by rest /terminate", ended.params
        gone = await player.client.wait_status(player.handle, "UNPUBLISHED", 5)
        assert gone.params.get("info") == "Stopped by publisher stop", gone.params
        status, _, body = await http(server, "GET", f"/api/v1/streams/{stream}", token)
        assert status == 404 and body["error"]["reason"] == "STREAM_NOT_FOUND", (status, body)
        # The sessions stay usable.
        await pub.client.ping()
        await player.client.ping()
    finally:
        await close_all(pub, player)


def test_admin_sessions_list_and_kick(server):
    asyncio.run(_admin_sessions_list_and_kick(server))


async def _admin_sessions_list_and_kick(server):
    token = admin_token(server)
    first = second = None
    try:
        first = await open_session(server.ws_url)
        second = await open_session(server.ws_url)
        status, _, body = await http(server, "GET", "/api/v1/sessions", token)
        assert status == 200, (status, body)
        assert [s["appKey"] for s in body["sessions"]] == ["defaultApp", "defaultApp"], body
        assert all(s["handles"] == [] for s in body["sessions"]), body
        kicked_id = body["sessions"][0]["id"]

        status, _, body = await http(server, "DELETE", f"/api/v1/sessions/{kicked_id}", token)
        assert (status, body) == (200, {}), (status, body)
        # The oldest session is the first one opened.
        await first.wait_notification(
            lambda n: n.method == "session" and n.params.get("status") == "DISCONNECTED", 5, "session DISCONNECTED")
        await asyncio.wait_for(first.closed.wait(), 5)
        assert first.close_code == 1000, first.close_code

        status, _, body = await http(server, "GET", "/api/v1/sessions", token)
        assert len(body["sessions"]) == 1 and body["sessions"][0]["id"] != kicked_id, body
        status, _, body = await http(server, "DELETE", f"/api/v1/sessions/{kicked_id}", token)
        assert status == 404 and body["error"]["reason"] == "SESSION_NOT_FOUND", (status, body)
        await second.ping()
    finally:
        for client in (first, second):
            if client is not None:
                try:
                    await client.close()
                except Exception:
                    pass
