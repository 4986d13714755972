"""The drain for restarts and upgrades (docs/protocol.md section 6, "Draining"), with aiortc
peers: SIGTERM with a publish and two players, a second SIGTERM, and POST /api/v1/drain.
The timeline of the first test (SIGTERM, /health 503, last session ended, exit) goes to
figures.json as "drain"."""

import asyncio
import json
import signal
import time
import urllib.request

import pytest

from sessions import close_all, open_session, play, publish
from sluice_client import SluiceClient

DRAIN_SECONDS = 20


@pytest.fixture
def server_config_overrides():
    return {"server": {"drainSeconds": DRAIN_SECONDS}}


def _health(server) -> tuple[int, dict]:
    status, body = server.get("/health")
    return status, body if isinstance(body, dict) else {}


async def _wait_health(server, want_status: int, timeout: float = 10.0) -> tuple[int, dict]:
    deadline = time.monotonic() + timeout
    while True:
        status, body = await asyncio.to_thread(_health, server)
        if status == want_status or time.monotonic() > deadline:
            return status, body
        await asyncio.sleep(0.05)


async def _refused_connect(server) -> dict:
    """A new session's connect while the server drains: the error object."""
    client = await SluiceClient.open(server.ws_url)
    try:
        reply = await client.call_raw("connect", {"appKey": "defaultApp"})
        return reply.get("error") or {"unexpected": reply}
    finally:
        await client.close()


def _draining_notice(client) -> dict:
    found = [n for n in client.notifications if n.method == "serverDraining"]
    assert len(found) == 1, f"serverDraining notifications: {found}"
    return found[0].params


def test_sigterm_drains_then_exits_when_the_last_session_ends(server, figures):
    asyncio.run(_sigterm_drains(server, figures))


async def _sigterm_drains(server, figures):
    stream = "drain-sigterm"
    pub = a = b = None
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        a = await play(server.ws_url, stream)
        b = await play(server.ws_url, stream)
        for player in (a, b):
            await player.client.wait_status(player.handle, "PLAYING", 15)
            await player.peer.wait_frames(10, 15)

        server.process.stopped_by_test = True
        sigterm_at = time.monotonic()
        server.process.send_signal(signal.SIGTERM)

        status, body = await _wait_health(server, 503)
        health_at = time.monotonic()
        assert status == 503 and body.get("status") == "draining", (status, body)
        for client in (pub.client, a.client, b.client):
            await client.wait_notification(lambda n: n.method == "serverDraining", 10, "serverDraining")
            notice = _draining_notice(client)
            assert 0 < notice["deadlineMs"] <= DRAIN_SECONDS * 1000, notice
            assert notice["servers"] == [], notice  # a single node: nowhere else to go

        error = await _refused_connect(server)
        assert error.get("code") == 1017 and error.get("data", {}).get("reason") == "SERVER_DRAINING", error
        # A running session cannot start a new play either (refused before its SDP is read).
        refused = await a.client.call_raw("play", {"stream": stream, "sdp": "v=0"})
        assert refused.get("error", {}).get("code") == 1017, refused

        # The players keep decoding through the drain: 3 s more of frames (about 30 each).
        counts = [len(a.peer.frames), len(b.peer.frames)]
        await asyncio.sleep(3)
        gained = [len(a.peer.frames) - counts[0], len(b.peer.frames) - counts[1]]
        assert min(gained) >= 30, f"frames decoded in 3 s of drain: {gained}"
        assert server.process.poll() is None, "the server stopped before its sessions ended"

        # The sessions end; the last one's end ends the drain and the process, with status 0.
        await close_all(pub, a)
        pub = a = None
        assert server.process.poll() is None, "the server stopped with a session left"
        await b.close()
        b = None
        last_session_at = time.monotonic()
        exit_code = await asyncio.to_thread(server.process.wait, 15)
        exit_at = time.monotonic()
        assert exit_code == 0, f"sluice exited with {exit_code} after its drain"
        log = server.log_path.read_text(errors="replace")
        assert "drained: the last session ended" in log, log[-2000:]

        timeline = {"healthDrainingMs": round((health_at - sigterm_at) * 1000),
                    "lastSessionEndedMs": round((last_session_at - sigterm_at) * 1000),
                    "exitMs": round((exit_at - sigterm_at) * 1000),
                    "exitAfterLastSessionMs": round((exit_at - last_session_at) * 1000),
                    "framesDuringDrain3s": gained}
        print(f"drain timeline from SIGTERM: {timeline}")
        figures({"drain": timeline})
    finally:
        await close_all(pub, a, b)


def test_a_second_sigterm_stops_at_once(server):
    asyncio.run(_second_sigterm(server))


async def _second_sigterm(server):
    stream = "drain-second"
    pub = player = None
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        player = await play(server.ws_url, stream)
        await player.client.wait_status(player.handle, "PLAYING", 15)

        server.process.stopped_by_test = True
        server.process.send_signal(signal.SIGTERM)
        await player.client.wait_notification(lambda n: n.method == "serverDraining", 10, "serverDraining")
        assert server.process.poll() is None, "the first SIGTERM stopped the server: no drain"
        server.process.send_signal(signal.SIGTERM)
        # Far before the 20 s deadline: the sessions are told, and the process exits 0.
        await player.client.wait_notification(
            lambda n: n.method == "session" and n.params.get("status") == "DISCONNECTED", 10, "session DISCONNECTED")
        exit_code = await asyncio.to_thread(server.process.wait, 10)
        assert exit_code == 0, f"sluice exited with {exit_code} after a second SIGTERM"
        assert "a second SIGTERM: stopping at once" in server.log_path.read_text(errors="replace")
    finally:
        await close_all(pub, player)


def _post_drain(server, token):
    request = urllib.request.Request(server.http_url + "/api/v1/drain", method="POST", data=b"")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def test_the_admin_api_drains_and_the_server_exits(server):
    asyncio.run(_admin_drain(server))


async def _admin_drain(server):
    token = json.loads(server.config_path.read_text())["admin"]["token"]
    client = await open_session(server.ws_url)
    try:
        status, _ = await asyncio.to_thread(_post_drain, server, "wrong-token")
        assert status == 401
        assert _health(server)[0] == 200, "a refused drain request drained"

        server.process.stopped_by_test = True
        status, body = await asyncio.to_thread(_post_drain, server, token)
        assert status == 202 and body == {"status": "draining", "drainSeconds": DRAIN_SECONDS}, (status, body)
        await client.wait_notification(lambda n: n.method == "serverDraining", 10, "serverDraining")
        assert (await _wait_health(server, 503))[0] == 503
        # Asked again: the same drain.
        assert (await asyncio.to_thread(_post_drain, server, token))[0] == 202
        assert server.process.poll() is None
    finally:
        await client.close()
    exit_code = await asyncio.to_thread(server.process.wait, 15)
    assert exit_code == 0, f"sluice exited with {exit_code} after an admin drain"
