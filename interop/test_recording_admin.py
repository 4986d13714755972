"""Recording by the operator (docs/protocol.md sections 2 and 4, and section 6 **Recording**):
the admin API starts and stops a live stream's recording, lists the files and serves them with
Range; the app's hooks hear `recordingStarted` and `recordingStopped`, also after the publisher
left; an app with `recording: "always"` records every publish."""

import asyncio
import json
import os
import time
import urllib.error
import urllib.request

import pytest

from media import Publisher
from recording_check import decode_errors_at_file_times as decode_errors, probe, recording_started
from sessions import open_session
from sluice_client import SluiceClient
from test_hooks import SECRET, expected_signature, receiver  # noqa: F401 (receiver is a fixture)

HOOKED_APP = "hooked"
ALWAYS_APP = "always"


@pytest.fixture
def server_config_overrides(request, tmp_path, receiver) -> dict:
    apps = [{"key": "defaultApp"},
            {"key": HOOKED_APP, "hooks": {"url": receiver.url, "secret": SECRET}},
            {"key": ALWAYS_APP, "recording": "always", "hooks": {"url": receiver.url, "secret": SECRET}}]
    if request.node.get_closest_marker("without_recording"):
        return {"apps": apps[:2]}
    return {"apps": apps, "recording": {"folder": str(tmp_path / "recordings")}}


def _token(server) -> str:
    return json.loads(server.config_path.read_text())["admin"]["token"]


def _call(server, method: str, path: str, token=None, headers=None):
    """(status, lower-case headers, raw bytes) of an admin request."""
    request = urllib.request.Request(server.http_url + path, method=method)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


async def call(server, method, path, token=None, headers=None):
    return await asyncio.to_thread(_call, server, method, path, token, headers)


async def _publisher(server, app: str, stream: str, record: bool = False):
    client = await SluiceClient.open(server.ws_url)
    await client.connect(app)
    peer = Publisher()
    result = await client.publish(stream, await peer.offer(), **({"record": True} if record else {}))
    await peer.accept(result["sdp"])
    return client, peer, result["handle"]


def test_admin_starts_and_stops_a_recording_and_serves_it(server, receiver, tmp_path, figures):
    asyncio.run(_admin_record(server, receiver, tmp_path, figures))


async def _admin_record(server, receiver, tmp_path, figures):
    token = _token(server)
    stream = "operator-recorded"
    client, peer, handle = await _publisher(server, HOOKED_APP, stream)
    try:
        # Unrecorded until asked.
        status, _, body = await call(server, "GET", f"/api/v1/streams/{stream}", token)
        assert status == 200 and json.loads(body)["recording"] is None, body
        status, _, body = await call(server, "POST", f"/api/v1/streams/{stream}/record")
        assert status == 401, f"no token: {status} {body!r}"
        status, _, body = await call(server, "POST", "/api/v1/streams/nobody/record", token)
        assert status == 404 and json.loads(body)["error"]["reason"] == "STREAM_NOT_FOUND", body

        status, _, body = await call(server, "POST", f"/api/v1/streams/{stream}/record", token)
        assert status == 202, f"start: {status} {body!r}"
        status, _, body = await call(server, "POST", f"/api/v1/streams/{stream}/record", token)
        assert status == 409 and json.loads(body)["error"]["reason"] == "ALREADY_RECORDING", body
        started_event = await recording_started(client)
        path = started_event.params["data"]["path"]
        [started] = await receiver.wait_calls(lambda c: c.event == "recordingStarted", what="recordingStarted hook")
        assert started.body["path"] == path and started.body["stream"] == stream and started.body["handle"] == handle, started.body
        assert started.body["appKey"] == HOOKED_APP and started.headers["x-sluice-signature"] == expected_signature(started.raw)
        status, _, body = await call(server, "GET", f"/api/v1/streams/{stream}", token)
        assert json.loads(body)["recording"] == path, body
        await asyncio.sleep(3)

        status, _, body = await call(server, "DELETE", f"/api/v1/streams/{stream}/record", token)
        assert status == 200, f"stop: {status} {body!r}"
        [stopped] = await receiver.wait_calls(lambda c: c.event == "recordingStopped", what="recordingStopped hook")
        status, _, body = await call(server, "DELETE", f"/api/v1/streams/{stream}/record", token)
        assert status == 404 and json.loads(body)["error"]["reason"] == "NOT_RECORDING", body
        # The stream goes on unrecorded, and its publisher heard of the stop.
        await client.wait_notification(
            lambda n: n.method == "streamEvent" and n.params.get("type") == "recordingStopped", 5, "recordingStopped")
        status, _, body = await call(server, "GET", f"/api/v1/streams/{stream}", token)
        view = json.loads(body)
        assert view["recording"] is None and view["publisher"]["handle"] == handle, view
    finally:
        await peer.close()
        await client.close()

    assert os.path.exists(path) and not os.path.exists(path + ".part"), os.listdir(os.path.dirname(path))
    size = os.path.getsize(path)
    data = open(path, "rb").read()
    b = stopped.body
    assert (b["path"], b["stream"], b["codec"], b["damaged"], b["bytes"]) == (path, stream, "vp8+opus", False, size), b
    assert 2000 <= b["durationMs"] <= 6000, f"about 3 s recorded: {b}"
    p = probe(path)
    assert abs(p.duration_s * 1000 - b["durationMs"]) <= 100, f"hook {b['durationMs']} ms, file {p.duration_s} s"
    assert decode_errors(path) == ""

    # The list, then downloads: whole, a range, the last bytes, past the end.
    folder = str(tmp_path / "recordings")
    relative = os.path.relpath(path, folder)
    status, _, body = await call(server, "GET", "/api/v1/recordings", token)
    listing = json.loads(body)
    entry = next(e for e in listing["recordings"] if e["path"] == relative)
    assert entry["bytes"] == size and entry["inProgress"] is False and entry["url"] == f"/api/v1/recordings/{relative}", entry
    status, headers, whole = await call(server, "GET", entry["url"], token)
    assert status == 200 and whole == data and headers["content-type"] == "video/webm", (status, headers)
    assert headers["accept-ranges"] == "bytes"
    status, headers, part = await call(server, "GET", entry["url"], token, {"Range": "bytes=100-1099"})
    assert status == 206 and part == data[100:1100] and headers["content-range"] == f"bytes 100-1099/{size}", headers
    status, headers, tail = await call(server, "GET", entry["url"], token, {"Range": "bytes=-500"})
    assert status == 206 and tail == data[-500:], headers
    status, headers, _ = await call(server, "GET", entry["url"], token, {"Range": f"bytes={size}-"})
    assert status == 416 and headers["content-range"] == f"bytes */{size}", headers
    status, _, _ = await call(server, "GET", entry["url"])
    assert status == 401, "a download needs the admin token"
    for bad in ["/api/v1/recordings/../sluice.json", "/api/v1/recordings/%2e%2e/sluice.json",
                "/api/v1/recordings/" + relative + ".txt", "/api/v1/recordings/nothing.webm"]:
        status, _, body = await call(server, "GET", bad, token)
        assert status == 404, f"{bad}: {status} {body!r}"
    figures({"durationMs": b["durationMs"], "bytes": size})


def test_publisher_leaving_still_gives_the_stopped_hook(server, receiver):
    asyncio.run(_leaving(server, receiver))


async def _leaving(server, receiver):
    """The file is closed after the publisher's session ended: the hook still comes, from the
    app's settings, not the session's."""
    client, peer, handle = await _publisher(server, HOOKED_APP, "leaving", record=True)
    try:
        await receiver.wait_calls(lambda c: c.event == "recordingStarted", timeout=15, what="recordingStarted hook")
        await asyncio.sleep(1)
    finally:
        await peer.close()
        await client.close()
    [stopped] = await receiver.wait_calls(lambda c: c.event == "recordingStopped", timeout=15, what="recordingStopped hook")
    assert stopped.body["handle"] == handle and stopped.body["bytes"] == os.path.getsize(stopped.body["path"]), stopped.body


def test_app_that_always_records(server, receiver):
    asyncio.run(_always(server, receiver))


async def _always(server, receiver):
    """`recording: "always"` records a publish that did not ask; `defaultApp` (the default,
    `request`) does not: the control."""
    always, always_peer, _ = await _publisher(server, ALWAYS_APP, "always-on")
    plain, plain_peer, _ = await _publisher(server, "defaultApp", "asked-nothing")
    try:
        event = await recording_started(always)
        assert "/always/always-on/" in event.params["data"]["path"], event.params
        [hook] = await receiver.wait_calls(lambda c: c.event == "recordingStarted", what="recordingStarted hook")
        assert hook.body["appKey"] == ALWAYS_APP and hook.body["stream"] == "always-on", hook.body
        token = _token(server)
        status, _, body = await call(server, "GET", "/api/v1/streams/asked-nothing", token)
        assert status == 200 and json.loads(body)["recording"] is None, body
        assert not any(n.params.get("type", "").startswith("recording") for n in plain.notifications
                       if n.method == "streamEvent"), plain.notifications
    finally:
        for peer in (always_peer, plain_peer):
            await peer.close()
        for client in (always, plain):
            await client.close()


@pytest.mark.without_recording
def test_admin_record_needs_a_recording_folder(server):
    asyncio.run(_off(server))


async def _off(server):
    token = _token(server)
    client, peer, _ = await _publisher(server, "defaultApp", "unrecordable")
    try:
        status, _, body = await call(server, "POST", "/api/v1/streams/unrecordable/record", token)
        assert status == 409 and json.loads(body)["error"]["reason"] == "RECORDING_OFF", body
        status, _, body = await call(server, "GET", "/api/v1/recordings", token)
        assert status == 409 and json.loads(body)["error"]["reason"] == "RECORDING_OFF", body
    finally:
        await peer.close()
        await client.close()
