"""Bad input from the network gets an error value, never a crash (docs/protocol.md section 1)."""

import asyncio
import json
import os
import random
import re
import socket
import time

from datagrams import hostile_datagrams
from rpc_assert import expect_rpc_error
from sessions import close_all, play, publish
from media import Publisher
from sluice_client import SluiceClient


def test_bad_input_signaling(server):
    asyncio.run(_bad_input_signaling(server))


async def _expect_null_id_error(client: SluiceClient, code: int) -> dict:
    reply = await client.next_null_id_reply(10)
    assert "id" in reply and reply["id"] is None, f"reply should carry \"id\": null: {reply}"
    assert reply.get("error", {}).get("code") == code, f"wanted error {code}: {reply}"
    return reply


async def _bad_input_signaling(server):
    client = await SluiceClient.open(server.ws_url)
    publisher = Publisher()
    try:
        await expect_rpc_error(client.call("ping"), 1000, "NOT_CONNECTED")
        await expect_rpc_error(client.call("publish", {"stream": "early", "sdp": "v=0"}), 1000, "NOT_CONNECTED")

        await client.send_raw('{"jsonrpc":"2.0","id":1,"method":"ping"')  # cut short
        await _expect_null_id_error(client, -32700)
        await client.send_raw("\x00\xff not json at all")
        await _expect_null_id_error(client, -32700)

        assert (await client.connect("defaultApp")).get("sessionId")
        await expect_rpc_error(client.call("noSuchMethod", {}), -32601)

        offer = await publisher.offer()
        error = await expect_rpc_error(client.publish("bad name/with spaces!", offer), -32602)
        assert "stream" in error.message, f"-32602 message should name the field: {error.message!r}"
        error = await expect_rpc_error(client.publish("x" * 129, offer), -32602)

        await expect_rpc_error(client.publish("garbage-sdp", "this is not SDP\r\nm=nonsense\r\n"), 1006, "BAD_SDP")
        await expect_rpc_error(client.publish("garbage-sdp", "v=0\r\n" + "a=" * 5000), 1006, "BAD_SDP")

        padding = "p" * (2 * 1024 * 1024)
        await client.send_raw(json.dumps({"jsonrpc": "2.0", "id": 77, "method": "ping", "params": {"pad": padding}}))
        await _expect_null_id_error(client, -32600)

        assert await client.ping() == {}
        assert not client.closed.is_set(), f"socket closed with code {client.close_code}"
        assert not client.unexpected, f"unexpected frames: {[u[:200] for u in client.unexpected]}"
    finally:
        await publisher.close()
        await client.close()


def test_bad_datagrams_media_port(server, figures):
    asyncio.run(_bad_datagrams_media_port(server, figures))


async def _blast(ports: list[int], datagrams: list[bytes]) -> int:
    """Sends every datagram to every media port on 127.0.0.1, from a few source ports."""
    senders = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(4)]
    sent = 0
    try:
        for s in senders:
            s.bind(("127.0.0.1", 0))
        for i, datagram in enumerate(datagrams):
            for port in ports:
                senders[i % len(senders)].sendto(datagram, ("127.0.0.1", port))
                sent += 1
            if i % 100 == 99:
                await asyncio.sleep(0.005)  # let the server drain, so the packets are read, not dropped
    finally:
        for s in senders:
            s.close()
    return sent


async def _bad_datagrams_media_port(server, figures):
    seed = int(os.environ.get("SLUICE_DATAGRAM_SEED", random.randrange(1 << 30)))
    live = []
    try:
        pub = await publish(server.ws_url, "interop-before-noise")
        live.append(pub)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        player = await play(server.ws_url, "interop-before-noise")
        live.append(player)
        await player.peer.wait_frames(10, 15, lambda f: f.number is not None)

        ufrag = re.search(r"a=ice-ufrag:(\S+)", pub.peer.pc.remoteDescription.sdp)
        datagrams = hostile_datagrams(seed, 4000, ufrag.group(1) if ufrag else None)
        sent = await _blast(server.media_ports, datagrams)
        figures({"seed": seed, "datagramsSent": sent, "ports": server.media_ports})
        print(f"sent {sent} hostile datagrams with seed {seed} (replay: SLUICE_DATAGRAM_SEED={seed})")

        assert server.process.poll() is None, f"sluice exited with {server.process.returncode} (seed {seed})"
        server.health()
        # The session that was live through the noise still flows.
        seen = len(player.peer.frames)
        await player.peer.wait_frames(seen + 30, 15)
        # And a fresh publish and play still work.
        pub2 = await publish(server.ws_url, "interop-after-noise", first_number=30000)
        live.append(pub2)
        await pub2.client.wait_status(pub2.handle, "PUBLISHING", 15)
        player2 = await play(server.ws_url, "interop-after-noise")
        live.append(player2)
        await player2.client.wait_status(player2.handle, "PLAYING", 15)
        await player2.peer.wait_frames(30, 15, lambda f: f.number is not None and f.number >= 30000)
    finally:
        await close_all(*reversed(live))


def test_bad_tcp_media_connections(server, figures):
    asyncio.run(_bad_tcp_media_connections(server, figures))


def _framed(packets: list[bytes]) -> bytes:
    return b"".join(len(p).to_bytes(2, "big") + p for p in packets if 0 < len(p) < 65536)


def _closed_by_server(s: socket.socket, deadline: float) -> bool:
    """Reads until the server closes the connection (end of stream or reset), or the deadline."""
    s.settimeout(0.2)
    while time.monotonic() < deadline:
        try:
            if s.recv(65536) == b"":
                return True
        except socket.timeout:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return True
    return False


async def _bad_tcp_media_connections(server, figures):
    """ICE-TCP's listener (on the media port numbers): hostile frames, an oversize length, STUN
    that never authenticates, and a burst of silent connections each close only themselves,
    with a log line, while a live session keeps flowing (RFC 4571 framing; docs/config.md,
    "Media over TCP")."""
    seed = int(os.environ.get("SLUICE_DATAGRAM_SEED", random.randrange(1 << 30)))
    live = []
    sockets = []
    try:
        pub = await publish(server.ws_url, "interop-before-tcp-noise")
        live.append(pub)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        player = await play(server.ws_url, "interop-before-tcp-noise")
        live.append(player)
        await player.peer.wait_frames(10, 15, lambda f: f.number is not None)
        ufrag = re.search(r"a=ice-ufrag:(\S+)", pub.peer.pc.remoteDescription.sdp).group(1)
        port = server.media_ports[0]
        hostile = hostile_datagrams(seed, 500, ufrag)

        def connect() -> socket.socket:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            sockets.append(s)
            return s

        # STUN-shaped frames only (many naming the live transport's ufrag): none authenticates,
        # so the connection stays unbound and is closed after 5 s.
        stun_only = connect()
        stun_only.sendall(_framed([d for d in hostile if d and d[0] < 4]))
        # RTP, RTCP, DTLS and noise before any ICE check: closed at the first such frame.
        not_stun = connect()
        not_stun.sendall(_framed([d for d in hostile if d and d[0] >= 4]))
        oversize = connect()
        oversize.sendall(b"\xff\xff" + bytes(64))
        half_frame = connect()
        half_frame.sendall(b"\x05\xdc" + bytes(100))  # 1500 announced, 100 sent, then nothing
        silent = [connect() for _ in range(40)]
        # Junk and gone: the server sees the end of stream.
        for _ in range(20):
            connect().sendall(random.Random(seed).randbytes(50))
        loop = asyncio.get_running_loop()
        deadline = time.monotonic() + 20
        closed = await loop.run_in_executor(None, lambda: [
            _closed_by_server(s, deadline) for s in [not_stun, oversize, stun_only, half_frame] + silent])
        assert all(closed), f"connections left open by the server: {closed.count(False)} (seed {seed})"

        assert server.process.poll() is None, f"sluice exited with {server.process.returncode} (seed {seed})"
        server.health()
        seen = len(player.peer.frames)
        await player.peer.wait_frames(seen + 30, 15)
        status, metrics = server.get("/metrics")
        bad = sum(float(line.split()[-1]) for line in metrics.splitlines()
                  if line.startswith("sluice_worker_tcp_connections_closed_bad_input_total{"))
        assert bad >= 44, f"closed for bad input: {bad}"
        log = server.log_path.read_text(errors="replace")
        lines = [line for line in log.splitlines() if "connection closed" in line and "tcp 127.0.0.1:" in line]
        assert lines, "no log line for the closed connections"
        assert len(lines) <= 20 + 1, f"{len(lines)} log lines: the limiter let a flood through"
        figures({"seed": seed, "closedForBadInput": bad, "logLines": len(lines)})

        pub2 = await publish(server.ws_url, "interop-after-tcp-noise", first_number=30000)
        live.append(pub2)
        await pub2.client.wait_status(pub2.handle, "PUBLISHING", 15)
        player2 = await play(server.ws_url, "interop-after-tcp-noise")
        live.append(player2)
        await player2.peer.wait_frames(30, 15, lambda f: f.number is not None and f.number >= 30000)
    finally:
        for s in sockets:
            s.close()
        await close_all(*reversed(live))


def _read_responses(s: socket.socket, count: int, deadline: float) -> list[tuple[int, bytes]]:
    """`count` HTTP/1.1 responses (status, body) read off one keep-alive connection; any bytes
    after them are returned as a last (0, extra) entry."""
    data = b""
    out = []
    while len(out) < count and time.monotonic() < deadline:
        head_end = data.find(b"\r\n\r\n")
        if head_end >= 0:
            head = data[:head_end].decode("latin-1").split("\r\n")
            length = next((int(h.split(":", 1)[1]) for h in head if h.lower().startswith("content-length:")), 0)
            if len(data) >= head_end + 4 + length:
                out.append((int(head[0].split()[1]), data[head_end + 4:head_end + 4 + length]))
                data = data[head_end + 4 + length:]
                continue
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        data += chunk
    try:
        s.settimeout(0.3)
        data += s.recv(65536)
    except (socket.timeout, OSError):
        pass
    if data:
        out.append((0, data))
    return out


def test_empty_post_body_is_answered_once(server):
    """`Content-Length: 0` on a POST: one answer, and the next request on the same connection
    gets its own (lws ends such a body with a completion callback of its own, which once
    answered the request a second time, headers and all)."""
    host, port = server.http_url.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=5) as s:
        s.sendall(b"POST /api/v1/streams/nobody/mute HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
                  b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        answers = _read_responses(s, 2, time.monotonic() + 5)
    assert [status for status, _ in answers] == [401, 200], answers
    assert json.loads(answers[0][1])["error"]["reason"] == "UNAUTHORIZED" and json.loads(answers[1][1])["status"] == "ok", answers
