"""WHIP and WHEP (docs/protocol.md section 2) with real peers: aiortc and Chromium publishers over
WHIP played over the JSON-RPC WebSocket, an aiortc WHEP player of a WebSocket publisher, hooks
that decide before the 201, and the errors."""

import asyncio
import json
import re
import time
import urllib.error
import urllib.request

import pytest

from chromium import chromium_page
from media import Player, Publisher
from sessions import close_all, play, publish
from test_hooks import HOOKED_APP, SECRET, receiver  # noqa: F401 (receiver is a fixture)

APP_KEY = "defaultApp"
WIDTH, HEIGHT = 640, 480
FRAMES = 60


@pytest.fixture
def server_config_overrides(receiver):
    return {"apps": [
        {"key": APP_KEY},
        {"key": HOOKED_APP, "hooks": {"url": receiver.url, "secret": SECRET, "timeoutMs": 2000}},
    ]}


def _lower(headers) -> dict:
    return {name.lower(): value for name, value in headers.items()}


def _request(server, method, path, body=None, content_type="application/sdp", token=APP_KEY):
    data = body.encode() if isinstance(body, str) else body
    request = urllib.request.Request(server.http_url + path, data=data, method=method)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    if content_type is not None:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, _lower(response.headers), response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, _lower(e.headers), e.read().decode(errors="replace")


async def http(server, method, path, body=None, content_type="application/sdp", token=APP_KEY):
    """(status, lower-case headers, body text), off the event loop so aiortc keeps running."""
    return await asyncio.to_thread(_request, server, method, path, body, content_type, token)


def error_of(status, body) -> dict:
    try:
        error = json.loads(body)["error"]
    except (ValueError, KeyError, TypeError):
        raise AssertionError(f"{status}: no error body: {body!r}")
    assert error["code"] == status, error
    return error


def admin_token(server) -> str:
    return json.loads(server.config_path.read_text())["admin"]["token"]


async def admin_sessions(server) -> list:
    status, _, body = await http(server, "GET", "/api/v1/sessions", content_type=None, token=admin_token(server))
    assert status == 200, body
    return json.loads(body)["sessions"]


async def decode_window(player: Player, count: int, timeout: float = 20.0) -> dict:
    """Waits for `count` numbered frames and describes what was decoded."""
    frames = await player.wait_frames(count, timeout, lambda f: f.number is not None)
    numbers = [f.number for f in frames]
    return {"framesDecoded": len(frames),
            "sizes": sorted({f"{f.width}x{f.height}" for f in frames}),
            "increasing": all(b > a for a, b in zip(numbers, numbers[1:])),
            "unreadableFrames": sum(1 for f in player.frames if f.number is None)}


def test_whip_publish_played_over_websocket(server, figures):
    asyncio.run(_whip_publish(server, figures))


async def _whip_publish(server, figures):
    stream = "whip-cam"
    publisher, viewer = Publisher(), None
    try:
        started = time.monotonic()
        status, headers, answer = await http(server, "POST", f"/whip/{stream}", await publisher.offer())
        assert status == 201, (status, answer)
        assert headers.get("content-type") == "application/sdp", headers
        assert headers.get("access-control-allow-origin") == "*", headers
        location = headers["location"]
        assert re.fullmatch(rf"/whip/{stream}/[0-9a-f]{{32}}", location), location
        await publisher.accept(answer)
        answer_ms = round((time.monotonic() - started) * 1000, 1)

        # The WHIP resource is a session like any other, with its publish handle.
        listed = [s for s in await admin_sessions(server)
                  if any(h["stream"] == stream and h["role"] == "publish" for h in s["handles"])]
        assert len(listed) == 1 and listed[0]["appKey"] == APP_KEY, listed

        viewer = await play(server.ws_url, stream)
        await viewer.client.wait_status(viewer.handle, "PLAYING", 15)
        decoded = await decode_window(viewer.peer, FRAMES)
        assert decoded["sizes"] == [f"{WIDTH}x{HEIGHT}"], decoded
        assert decoded["increasing"], viewer.peer.numbers()[-20:]

        # DELETE on the Location ends the publish: the WebSocket player hears of it.
        status, _, body = await http(server, "DELETE", location, content_type=None)
        assert status == 200, (status, body)
        unpublished = await viewer.client.wait_status(viewer.handle, "UNPUBLISHED", 10)
        assert unpublished.params.get("info") == "Stopped by publisher stop", unpublished.params
        status, _, body = await http(server, "DELETE", location, content_type=None)
        assert status == 404, (status, body)
        assert not [s for s in await admin_sessions(server) if s["id"] == listed[0]["id"]]
        figures({"whipPostToAnswerMs": answer_ms, **decoded})
    finally:
        await publisher.close()
        await close_all(viewer)


def test_whep_plays_a_websocket_publisher(server, figures):
    asyncio.run(_whep_play(server, figures))


async def _whep_play(server, figures):
    stream = "whep-cam"
    pub, player = None, Player()
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        started = time.monotonic()
        status, headers, answer = await http(server, "POST", f"/whep/{stream}?quality=low&width={WIDTH}",
                                             await player.offer())
        assert status == 201, (status, answer)
        location = headers["location"]
        assert re.fullmatch(rf"/whep/{stream}/[0-9a-f]{{32}}", location), location
        await player.accept(answer)
        answer_ms = round((time.monotonic() - started) * 1000, 1)
        decoded = await decode_window(player, FRAMES)
        assert decoded["sizes"] == [f"{WIDTH}x{HEIGHT}"], decoded
        assert decoded["increasing"], player.numbers()[-20:]
        assert player.audio_frames > 0, "no audio decoded"

        # PATCH with trickle candidates is accepted (and ignored: the server is ICE-lite).
        status, _, body = await http(server, "PATCH", location, "a=ice-ufrag:abcd\r\n",
                                     content_type="application/trickle-ice-sdpfrag")
        assert status == 204, (status, body)

        # The publisher stops: the WHEP resource ends with its play handle, and its session too.
        await pub.client.stop(pub.handle)
        deadline = time.monotonic() + 10
        while any(h["role"] == "play" for s in await admin_sessions(server) for h in s["handles"]):
            assert time.monotonic() < deadline, await admin_sessions(server)
            await asyncio.sleep(0.1)
        assert [s["handles"] for s in await admin_sessions(server)] == [[]], await admin_sessions(server)
        status, _, body = await http(server, "DELETE", location, content_type=None)
        assert status == 404, (status, body)
        figures({"whepPostToAnswerMs": answer_ms, **decoded, "audioFrames": player.audio_frames})
    finally:
        await player.close()
        await close_all(pub)


def no_common_codec_offer(sdp: str) -> str:
    """The offer with every codec renamed to one nobody knows."""
    return re.sub(r"(a=rtpmap:\d+ )[A-Za-z0-9-]+/", r"\1X-UNKNOWN/", sdp)


def test_whip_errors(server, figures):
    asyncio.run(_whip_errors(server, figures))


async def _whip_errors(server, figures):
    stream = "whip-errors"
    publisher, second, player = Publisher(), Publisher(), Player()
    try:
        offer = await publisher.offer()
        seen = {}

        async def expect(label, status, reason, method, path, body=None, **kwargs):
            got, headers, text = await http(server, method, path, body, **kwargs)
            assert got == status, (label, got, text)
            if reason:
                assert error_of(got, text)["reason"] == reason, (label, text)
            assert headers.get("access-control-allow-origin") == "*", (label, headers)
            seen[label] = got
            return headers, text

        headers, _ = await expect("no token", 401, "UNAUTHORIZED", "POST", f"/whip/{stream}", offer, token=None)
        assert headers.get("www-authenticate", "").startswith("Bearer"), headers
        await expect("unknown token", 401, "UNKNOWN_APP_KEY", "POST", f"/whip/{stream}", offer, token="nope")
        headers, _ = await expect("wrong type", 415, "UNSUPPORTED_MEDIA_TYPE", "POST", f"/whip/{stream}", offer,
                                  content_type="application/json")
        assert headers.get("accept-post") == "application/sdp", headers
        _, text = await expect("garbage", 400, "BAD_SDP", "POST", f"/whip/{stream}", "this is no SDP\r\n")
        assert "line 1" in error_of(400, text)["message"], text
        await expect("no common codec", 422, "NO_COMMON_CODECS", "POST", f"/whip/{stream}",
                     no_common_codec_offer(offer))
        headers, _ = await expect("not live", 409, "STREAM_NOT_FOUND", "POST", f"/whep/{stream}",
                                  await player.offer())
        assert headers.get("retry-after") == "1", headers
        await expect("bad query", 400, "BAD_REQUEST", "POST", f"/whep/{stream}?width=wide", await player.offer())
        await expect("bad name", 400, "BAD_REQUEST", "POST", "/whip/bad!name", offer)

        headers, answer = await expect("publish", 201, None, "POST", f"/whip/{stream}", offer)
        await publisher.accept(answer)
        location = headers["location"]
        await expect("name in use", 409, "STREAM_NAME_IN_USE", "POST", f"/whip/{stream}", await second.offer())

        await expect("delete unknown", 404, "NOT_FOUND", "DELETE", f"/whip/{stream}/{'0' * 32}", content_type=None)
        await expect("patch unknown", 404, "NOT_FOUND", "PATCH", f"/whip/{stream}/{'0' * 32}", "a=x\r\n",
                     content_type="application/trickle-ice-sdpfrag")
        await expect("patch wrong type", 415, "UNSUPPORTED_MEDIA_TYPE", "PATCH", location, "a=x\r\n",
                     content_type="text/plain")
        await expect("patch", 204, None, "PATCH", location, "a=ice-ufrag:x\r\n",
                     content_type="application/trickle-ice-sdpfrag")
        await expect("get", 405, "METHOD_NOT_ALLOWED", "GET", f"/whip/{stream}", content_type=None)

        headers, _ = await expect("options", 204, None, "OPTIONS", f"/whip/{stream}", content_type=None, token=None)
        assert headers.get("accept-post") == "application/sdp", headers
        assert "POST" in headers.get("access-control-allow-methods", ""), headers
        allowed = {h.strip().lower() for h in headers.get("access-control-allow-headers", "").split(",")}
        assert {"authorization", "content-type", "if-match"} <= allowed, headers
        exposed = {h.strip().lower() for h in headers.get("access-control-expose-headers", "").split(",")}
        assert {"location", "link", "etag"} <= exposed, headers

        # After all that, one session is left: the publish, which still works.
        sessions = await admin_sessions(server)
        assert [s["handles"][0]["stream"] for s in sessions] == [stream], sessions
        await expect("delete", 200, None, "DELETE", location, content_type=None)
        assert await admin_sessions(server) == []
        figures({"statuses": seen})
    finally:
        for peer in (publisher, second, player):
            await peer.close()


def test_whip_waits_for_hooks(server, receiver, figures):
    asyncio.run(_whip_hooks(server, receiver, figures))


async def _whip_hooks(server, receiver, figures):
    stream = "whip-hooked"
    publisher, player = Publisher(), Player()
    try:
        # The backend takes its time: the 201 waits for it.
        receiver.behavior["publishStream"] = (200, 0.5)
        started = time.monotonic()
        status, headers, answer = await http(server, "POST", f"/whip/{stream}", await publisher.offer(),
                                             token=HOOKED_APP)
        answer_ms = round((time.monotonic() - started) * 1000, 1)
        assert status == 201, (status, answer)
        await publisher.accept(answer)
        location = headers["location"]
        connect = (await receiver.wait_calls(lambda c: c.event == "connect"))[0]
        session_id = connect.body["sessionId"]
        authorized = (await receiver.wait_calls(lambda c: c.event == "publishStream"))[0]
        assert authorized.body["sessionId"] == session_id and authorized.body["stream"] == stream, authorized.body
        await receiver.wait_calls(lambda c: c.event == "streamStatus" and c.body.get("status") == "PUBLISHING",
                                  timeout=15, what="streamStatus PUBLISHING")

        # A refused WHEP play: 403, and its session ends with a `disconnect` hook.
        receiver.behavior["playStream"] = (403, 0.0)
        status, _, body = await http(server, "POST", f"/whep/{stream}", await player.offer(), token=HOOKED_APP)
        assert status == 403 and error_of(status, body)["reason"] == "RESTRICTED_ACCESS", (status, body)
        refused = (await receiver.wait_calls(lambda c: c.event == "playStream"))[0].body["sessionId"]
        await receiver.wait_calls(lambda c: c.event == "disconnect" and c.body["sessionId"] == refused)

        # DELETE: the publish ends as at a disconnect, then the session's `disconnect` hook.
        status, _, body = await http(server, "DELETE", location, content_type=None, token=HOOKED_APP)
        assert status == 200, (status, body)
        await receiver.wait_calls(lambda c: c.event == "disconnect" and c.body["sessionId"] == session_id)
        mine = [label_of(c) for c in receiver.snapshot() if c.body.get("sessionId") == session_id]
        assert mine == ["connect", "publishStream", "streamStatus:PENDING", "streamStatus:PUBLISHING",
                        "streamStatus:UNPUBLISHED:Stopped by session disconnect", "disconnect"], mine
        figures({"whipPostToAnswerMs": answer_ms, "hookDelayMs": 500, "hooks": mine})
    finally:
        await publisher.close()
        await player.close()


def label_of(call) -> str:
    if call.event != "streamStatus":
        return call.event
    return ":".join(filter(None, ["streamStatus", call.body.get("status"), call.body.get("info")]))


# A page of another origin (the intercepted http://127.0.0.1/ page) publishes with fetch():
# the CORS preflights and the exposed Location are part of what this checks.
WHIP_FETCH_SCRIPT = """async ([base, stream, token]) => {
  const offer = await window.sluice.preparePublish(640, 480);
  const response = await fetch(base + '/whip/' + stream, {
    method: 'POST', body: offer.sdp,
    headers: {'Authorization': 'Bearer ' + token, 'Content-Type': 'application/sdp'}});
  const answer = await response.text();
  const location = response.headers.get('Location');
  if (response.status === 201) await window.sluice.accept(answer);
  return {status: response.status, location, width: offer.width, height: offer.height};
}"""

WHIP_DELETE_SCRIPT = """async ([url, token]) => {
  const response = await fetch(url, {method: 'DELETE', headers: {'Authorization': 'Bearer ' + token}});
  return response.status;
}"""


def test_chromium_publishes_over_whip(server, figures, artifacts):
    asyncio.run(_chromium_whip(server, figures, artifacts))


async def _chromium_whip(server, figures, artifacts):
    stream = "whip-chromium"
    console, viewer = [], None
    try:
        async with chromium_page(console) as page:
            published = await page.evaluate(WHIP_FETCH_SCRIPT, [server.http_url, stream, APP_KEY])
            assert published["status"] == 201, (published, console[-10:])
            assert re.fullmatch(rf"/whip/{stream}/[0-9a-f]{{32}}", published["location"] or ""), published
            assert (published["width"], published["height"]) == (WIDTH, HEIGHT), published

            viewer = await play(server.ws_url, stream)
            await viewer.client.wait_status(viewer.handle, "PLAYING", 15)
            camera_size = lambda f: (f.width, f.height) == (WIDTH, HEIGHT)
            frames = await viewer.peer.wait_frames(30, 20, camera_size)
            await page.screenshot(path=str(artifacts / "chromium-publishes-whip.png"))

            status = await page.evaluate(WHIP_DELETE_SCRIPT, [server.http_url + published["location"], APP_KEY])
            assert status == 200, (status, console[-10:])
            unpublished = await viewer.client.wait_status(viewer.handle, "UNPUBLISHED", 10)
            assert unpublished.params.get("info") == "Stopped by publisher stop", unpublished.params
            figures({"framesDecoded": len(viewer.peer.frames), "framesAtCameraSize": len(frames),
                     "sizes": sorted({f"{f.width}x{f.height}" for f in viewer.peer.frames})})
            assert not viewer.peer.errors, viewer.peer.errors
    finally:
        await close_all(viewer)
        if console:
            print("chromium console:", *console[-20:], sep="\n  ")
