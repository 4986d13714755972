"""JSON logs (`log.format: "json"`, docs/config.md): a session that connects with a token,
publishes, plays, is refused a publish its token does not grant, and disconnects leaves lines
that all parse as JSON, each of its own carrying its session id as a field. A client string
with a quote, a backslash, a tab and bytes that are not UTF-8 (a WHIP path's stream name) still
makes one valid JSON line. (libwebsockets ends a path at an encoded newline, and JSON-RPC names
are checked before anything logs them; LogLineTests and the FuzzJSONRPC target cover newlines
and every other control character.)"""

import asyncio
import json
import socket

import pytest

from media import Player, Publisher
from sluice_client import SluiceClient
from tokens import claims, mint

APP = "jsonlogs"
SECRET = "json-logs-secret-0123456789abcdef"
STREAM = "json-cam"


@pytest.fixture
def server_config_overrides():
    return {"log": {"format": "json", "level": "info"},
            "apps": [{"key": "defaultApp"}, {"key": APP, "secrets": [SECRET], "requireToken": True}]}


def _lines(server) -> list[dict]:
    """Every line of the server's log, each parsed as one JSON object (fails on any that is not)."""
    parsed = []
    for number, line in enumerate(server.log_path.read_bytes().split(b"\n"), 1):
        if not line:
            continue
        text = line.decode("utf-8")  # strict: a JSON line is valid UTF-8
        try:
            value = json.loads(text)
        except ValueError as e:
            raise AssertionError(f"log line {number} is not JSON ({e}): {text!r}")
        assert isinstance(value, dict), text
        for key in ("time", "level", "component", "message"):
            assert isinstance(value.get(key), str), f"line {number} lacks {key}: {text}"
        parsed.append(value)
    return parsed


def _raw_http(server, request: bytes) -> bytes:
    host, port = server.http_url.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(request)
        return sock.recv(4096)


def test_a_sessions_lines_are_json_and_carry_its_id(server):
    asyncio.run(_session_lines(server))


async def _session_lines(server):
    token = mint(SECRET, claims(APP, publish=[STREAM], play=[STREAM]))
    client = await SluiceClient.open(server.ws_url)
    publisher, player = Publisher(), Player()
    try:
        session_id = (await client.call("connect", {"token": token}))["sessionId"]
        published = await client.publish(STREAM, await publisher.offer())
        await publisher.accept(published["sdp"])
        await client.wait_status(published["handle"], "PUBLISHING", 15)
        played = await client.play(STREAM, await player.offer())
        await player.accept(played["sdp"])
        await client.wait_status(played["handle"], "PLAYING", 15)
        await player.wait_frames(10, 15)
        refused = await client.call_raw("publish", {"stream": "json-other", "sdp": "v=0"})
        assert refused.get("error", {}).get("code") == 1012, refused
        # A name with a quote, a newline and a tab: refused, and its line stays one line.
        odd = await client.call_raw("publish", {"stream": 'a"b\nc\td', "sdp": "v=0"})
        assert "error" in odd, odd
        await client.call("disconnect")
    finally:
        await player.close()
        await publisher.close()
        await client.close()

    # A connect with a bad token: its lines have a connection and no session.
    stranger = await SluiceClient.open(server.ws_url)
    try:
        bad = await stranger.call_raw("connect", {"token": mint("not-the-secret-0123456789", claims(APP))})
        assert bad.get("error", {}).get("code") == 1011, bad
    finally:
        await stranger.close()

    # A WHIP path whose stream name holds a quote, a newline and bytes that are not UTF-8.
    answer = await asyncio.to_thread(_raw_http, server, b"POST /whip/x%22y%FF%FEz%5C%09%0Aw HTTP/1.1\r\nHost: x\r\n"
                                     b"Authorization: Bearer defaultApp\r\nContent-Type: application/sdp\r\n"
                                     b"Content-Length: 3\r\n\r\nv=0")
    assert answer.split(b" ")[1].startswith(b"4"), answer[:200]

    await asyncio.sleep(0.5)  # the last lines reach the file
    lines = _lines(server)
    mine = [line for line in lines if session_id in line["message"] or line.get("session") == session_id]
    assert len(mine) >= 5, mine
    without = [line for line in mine if line.get("session") != session_id]
    assert not without, f"lines about session {session_id} without it as a field: {without}"
    connection = {line.get("connection") for line in mine} - {None}
    assert len(connection) == 1, f"the session's lines name connections {connection}"
    messages = "\n".join(line["message"] for line in mine)
    for expected in ("connected with app key " + APP, "PUBLISHING", "PLAYING", "failed with 1012"):
        assert expected in messages, f"no line of the session says {expected!r}:\n{messages}"
    streams = {line.get("stream") for line in mine if line.get("stream")}
    assert STREAM in streams, streams

    refused_token = [line for line in lines if "failed with 1011" in line["message"]]
    assert refused_token and all("session" not in line and isinstance(line.get("connection"), int)
                                 for line in refused_token), refused_token
    whip = [line for line in lines if line.get("stream", "").startswith('x"y')]
    assert whip, f"no WHIP line with the odd name as its stream: {lines[-5:]}"
    assert whip[0]["stream"] == 'x"y\ufffd\ufffdz\\\t', whip[0]
    print(f"{len(lines)} JSON log lines, {len(mine)} of session {session_id}")
