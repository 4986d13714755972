"""Status callbacks (docs/protocol.md section 4): a local HTTP receiver plays the app's backend.

The receiver runs in a thread of the test on 127.0.0.1 and is the hooks url of the app
`hooked`; `defaultApp` has no hooks.
"""

import asyncio
import hashlib
import hmac
import json
import signal
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Optional

import pytest

from media import Player, Publisher
from rpc_assert import expect_rpc_error
from sessions import close_all, play, publish
from sluice_client import SluiceClient

HOOKED_APP = "hooked"
SECRET = "interop-hook-secret"
TIMEOUT_MS = 2000
# A second app with a timeout under a second (URLSession rounds its own timeouts to seconds).
QUICK_APP = "quick"
QUICK_TIMEOUT_MS = 300


@dataclass
class HookCall:
    event: str
    path: str
    headers: dict
    raw: bytes
    body: dict
    received_at: float  # time.monotonic()
    order: int  # arrival order at the receiver


class HookReceiver:
    """Records every POST; answers each event with a status, after an optional delay."""

    def __init__(self):
        self.lock = threading.Lock()
        self.calls: list[HookCall] = []
        # event -> (status, delay in seconds)
        self.behavior: dict[str, tuple[int, float]] = {}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                event = self.path.rstrip("/").rsplit("/", 1)[-1]
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                with receiver.lock:
                    call = HookCall(event, self.path, {k.lower(): v for k, v in self.headers.items()}, raw, body,
                                    time.monotonic(), len(receiver.calls))
                    receiver.calls.append(call)
                    status, delay = receiver.behavior.get(event, (200, 0.0))
                if delay:
                    time.sleep(delay)
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the server gave up on this request long ago

            def log_message(self, format, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hooks"
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="hook-receiver", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def snapshot(self) -> list[HookCall]:
        with self.lock:
            return list(self.calls)

    async def wait_calls(self, predicate: Callable[[HookCall], bool], count: int = 1,
                         timeout: float = 10.0, what: str = "hook") -> list[HookCall]:
        deadline = time.monotonic() + timeout
        while True:
            matching = [c for c in self.snapshot() if predicate(c)]
            if len(matching) >= count:
                return matching
            if time.monotonic() > deadline:
                seen = [(c.event, c.body.get("sessionId"), c.body.get("status")) for c in self.snapshot()]
                raise AssertionError(f"{len(matching)} of {count} {what} within {timeout} s; received {seen}")
            await asyncio.sleep(0.05)


@pytest.fixture
def receiver():
    r = HookReceiver()
    r.start()
    yield r
    r.stop()


@pytest.fixture
def server_config_overrides(receiver):
    return {"apps": [
        {"key": "defaultApp"},
        {"key": HOOKED_APP, "hooks": {"url": receiver.url, "secret": SECRET, "timeoutMs": TIMEOUT_MS}},
        {"key": QUICK_APP, "hooks": {"url": receiver.url + "/quick", "secret": SECRET, "timeoutMs": QUICK_TIMEOUT_MS}},
    ]}


def expected_signature(raw: bytes) -> str:
    return "sha256=" + hmac.new(SECRET.encode(), raw, hashlib.sha256).hexdigest()


def label(call: HookCall) -> str:
    return f"{call.event}:{call.body['status']}" if call.event == "streamStatus" else call.event


async def hooked_client(ws_url: str, custom: Optional[dict] = None) -> tuple[SluiceClient, str]:
    client = await SluiceClient.open(ws_url)
    params = {"custom": custom} if custom is not None else {}
    result = await client.connect(HOOKED_APP, **params)
    return client, result["sessionId"]


def test_hooks_signed_and_in_order(server, receiver, figures):
    asyncio.run(_signed_and_in_order(server, receiver, figures))


async def _signed_and_in_order(server, receiver, figures):
    stream = "hooked-stream"
    pub = ply = None
    publisher = player = None
    pub_client = ply_client = None
    try:
        pub_client, pub_session = await hooked_client(server.ws_url, {"user": "alice"})
        connect_calls = await receiver.wait_calls(lambda c: c.event == "connect", 1, what="connect hook")
        assert connect_calls[0].body["sessionId"] == pub_session, "the connect hook names the session it admits"

        publisher = Publisher()
        result = await pub_client.publish(stream, await publisher.offer(), custom={"title": "live"})
        await publisher.accept(result["sdp"])
        pub_handle = result["handle"]
        await pub_client.wait_status(pub_handle, "PUBLISHING", 15)

        ply_client, ply_session = await hooked_client(server.ws_url, {"user": "bob"})
        ply = await play(server.ws_url, stream, client=ply_client)
        await ply_client.wait_status(ply.handle, "PLAYING", 15)
        await ply.peer.wait_frames(5, 15, lambda f: f.number is not None)

        await ply_client.stop(ply.handle)
        await ply_client.wait_status(ply.handle, "STOPPED", 10)
        await pub_client.stop(pub_handle)
        await pub_client.wait_status(pub_handle, "UNPUBLISHED", 10)
        await close_all(ply)
        ply = None
        await publisher.close()
        await pub_client.close()
        publisher = pub_client = None

        await receiver.wait_calls(lambda c: c.event == "disconnect", 2, timeout=10, what="disconnect hooks")
        calls = receiver.snapshot()

        now_ms = time.time() * 1000
        for call in calls:
            assert call.headers.get("x-sluice-signature") == expected_signature(call.raw), \
                f"{call.event}: signature {call.headers.get('x-sluice-signature')} does not verify"
            assert call.headers.get("content-type") == "application/json", call.headers
            assert call.path == f"/hooks/{call.event}", call.path
            assert call.body.get("event") == call.event
            assert call.body.get("appKey") == HOOKED_APP
            assert isinstance(call.body.get("timestamp"), int) and abs(call.body["timestamp"] - now_ms) < 120_000, \
                call.body
            assert isinstance(call.body.get("custom"), dict), call.body

        sequences = {}
        for session_id, role_custom in ((pub_session, {"title": "live"}), (ply_session, {"user": "bob"})):
            mine = sorted((c for c in calls if c.body.get("sessionId") == session_id and c.event != "streamEvent"),
                          key=lambda c: c.body["seq"])
            seqs = [c.body["seq"] for c in mine]
            assert seqs == sorted(set(seqs)), f"seq of session {session_id} repeats: {seqs}"
            sequences[session_id] = [label(c) for c in mine]
            # Notifications of an app go out one at a time, so they arrive in seq order.
            notes = [c for c in mine if c.event in ("streamStatus", "streamEvent", "disconnect")]
            assert [c.order for c in notes] == sorted(c.order for c in notes), \
                f"notification hooks of {session_id} arrived out of order: {[label(c) for c in notes]}"
            for c in mine:
                if c.event == "streamStatus":
                    assert c.body["custom"] == role_custom, f"{label(c)} custom {c.body['custom']}"

        assert sequences[pub_session] == ["connect", "publishStream", "streamStatus:PENDING", "streamStatus:PUBLISHING",
                                          "streamStatus:UNPUBLISHED", "disconnect"], sequences[pub_session]
        assert sequences[ply_session] == ["connect", "playStream", "streamStatus:PENDING", "streamStatus:PLAYING",
                                          "streamStatus:STOPPED", "disconnect"], sequences[ply_session]

        by_label = {(c.body["sessionId"], label(c)): c.body for c in calls}
        assert by_label[(pub_session, "connect")]["custom"] == {"user": "alice"}
        publish_body = by_label[(pub_session, "publishStream")]
        assert publish_body["stream"] == stream and publish_body["role"] == "publish", publish_body
        assert publish_body["custom"] == {"title": "live"}, publish_body
        assert "handle" not in publish_body, "no handle exists before the hook allows the publish"
        assert by_label[(ply_session, "playStream")]["custom"] == {"user": "bob"}
        unpublished = by_label[(pub_session, "streamStatus:UNPUBLISHED")]
        assert unpublished["handle"] == pub_handle and unpublished["info"] == "Stopped by user", unpublished
        assert by_label[(pub_session, "disconnect")]["custom"] == {"user": "alice"}
        figures({"hooksReceived": len(calls), "publisherHooks": sequences[pub_session],
                 "playerHooks": sequences[ply_session]})
    finally:
        await close_all(ply)
        if publisher is not None:
            await publisher.close()
        for client in (pub_client, ply_client):
            if client is not None:
                await client.close()


def test_publish_refused_by_hook(server, receiver):
    asyncio.run(_publish_refused(server, receiver))


async def _publish_refused(server, receiver):
    receiver.behavior["publishStream"] = (403, 0.0)
    client, session_id = await hooked_client(server.ws_url)
    publisher = Publisher()
    try:
        await expect_rpc_error(client.publish("refused-stream", await publisher.offer()), 1002,
                               reason="RESTRICTED_ACCESS", message="Restricted access")
        # The session stays usable, and no handle was made: no status at all.
        assert await client.ping() == {}
        await asyncio.sleep(0.3)
        assert not [n for n in client.notifications if n.method == "streamStatus"], client.notifications
        events = [label(c) for c in receiver.snapshot() if c.body.get("sessionId") == session_id]
        assert events == ["connect", "publishStream"], events
    finally:
        await publisher.close()
        await client.close()


def test_stalled_hook_refuses_connect_and_media_keeps_flowing(server, receiver, figures):
    asyncio.run(_stalled_hook(server, receiver, figures))


async def _stalled_hook(server, receiver, figures):
    # The backend accepts the connection and answers 200 only long after the timeout.
    receiver.behavior["connect"] = (200, TIMEOUT_MS / 1000 * 3)
    stream = "unhooked-stream"
    pub = ply = stalled = None
    try:
        pub = await publish(server.ws_url, stream)
        ply = await play(server.ws_url, stream)
        await ply.client.wait_status(ply.handle, "PLAYING", 15)
        await ply.peer.wait_frames(10, 15, lambda f: f.number is not None)

        stalled = await SluiceClient.open(server.ws_url)
        frames_before = len(ply.peer.frames)
        started = time.monotonic()
        connect = asyncio.create_task(stalled.connect(HOOKED_APP, custom={"user": "late"}))
        await receiver.wait_calls(lambda c: c.event == "connect", 1, what="connect hook")

        # While that connect waits for its hook, other sessions are served.
        assert await ply.client.ping() == {}
        other = await SluiceClient.open(server.ws_url)
        try:
            assert (await other.connect("defaultApp"))["sessionId"]
        finally:
            await other.close()
        assert not connect.done(), "other sessions were answered only after the stalled hook ended"

        await expect_rpc_error(connect, 1002, reason="RESTRICTED_ACCESS", message="Restricted access")
        refused_after = time.monotonic() - started
        frames_during = len(ply.peer.frames) - frames_before
        assert refused_after >= TIMEOUT_MS / 1000 * 0.9, f"refused after {refused_after:.2f} s, before the timeout"

        # A timeout under a second is kept too (not rounded to nothing, nor up to seconds).
        quick_started = time.monotonic()
        await expect_rpc_error(stalled.connect(QUICK_APP), 1002, reason="RESTRICTED_ACCESS")
        quick_after = time.monotonic() - quick_started
        assert quick_after >= QUICK_TIMEOUT_MS / 1000 * 0.9, f"quick app refused after {quick_after:.3f} s"
        figures({"hookTimeoutMs": TIMEOUT_MS, "refusedAfterMs": round(refused_after * 1000),
                 "framesDecodedDuringStall": frames_during, "quickTimeoutMs": QUICK_TIMEOUT_MS,
                 "quickRefusedAfterMs": round(quick_after * 1000)})
        # About 30 frames/s keep arriving while the hook stalls.
        assert frames_during >= 10, f"the player decoded {frames_during} frames during the stalled hook"
        numbers = ply.peer.numbers()
        assert all(b > a for a, b in zip(numbers, numbers[1:])), "frames out of order"
        # The refused session is still open, and not connected.
        await expect_rpc_error(stalled.ping(), 1000)
    finally:
        await close_all(ply, pub)
        if stalled is not None:
            await stalled.close()


def test_shutdown_sends_the_last_hooks(server, receiver):
    asyncio.run(_shutdown_hooks(server, receiver))


async def _shutdown_hooks(server, receiver):
    client, session_id = await hooked_client(server.ws_url, {"user": "alice"})
    pub = None
    try:
        pub = await publish(server.ws_url, "shutdown-stream", client=client)
        await client.wait_status(pub.handle, "PUBLISHING", 15)
        server.process.stopped_by_test = True
        server.process.send_signal(signal.SIGTERM)
        exit_code = await asyncio.to_thread(server.process.wait, 15)
        assert exit_code == 0, f"sluice exited with {exit_code} after SIGTERM"
        # Sent before the process exited: shutdown waits (briefly) for the hook queue.
        mine = sorted((c for c in receiver.snapshot() if c.body.get("sessionId") == session_id),
                      key=lambda c: c.body["seq"])
        assert [label(c) for c in mine][-2:] == ["streamStatus:UNPUBLISHED", "disconnect"], [label(c) for c in mine]
        assert mine[-2].body.get("info") == "Stopped by session disconnect", mine[-2].body
    finally:
        await close_all(pub)
