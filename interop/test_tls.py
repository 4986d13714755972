"""HTTPS and WSS on the signaling port (`server.tls`), with real peers: headless Chromium on the
demo page at https://sluice.test (mapped to 127.0.0.1, the test CA's leaf trusted by its SPKI),
aiortc over WHIP and WSS, the certificate swapped by SIGHUP under live sessions, the start
refused for bad files, the limits and the handshake timeout over TLS, the redirect port, and
hooks to an https:// backend through Sluice's own TLS client.

Certificates are made by each test (tls_pki.py). The control for the browser test is the same
page over plain http:// from a server without TLS: no secure context, no getUserMedia.

One module, over 400 lines, on purpose: every test here uses the same test CA and certificate
fixtures (`pki`) and TLS server overrides, and the helpers they share.
"""

import asyncio
import json
import shutil
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from conftest import _free_tcp_port, log_tail, require_binary, write_test_config
from media import Player, Publisher
from rpc_assert import expect_rpc_error
from sessions import close_all, play, publish
from sluice_client import SluiceClient
from test_browser_demo import STATUS_OF, _poll, _wait_more_frames, demo_page
from test_hooks import SECRET, HookReceiver
from tls_pki import HOST, ThrowawayPKI, chromium_tls_args, served_fingerprint

STREAM = "tls-cam"
TRUSTED_APP = "hooks-tls"
UNTRUSTED_APP = "hooks-tls-no-ca"
# Tests whose server has no TLS: the browser control, and hooks (the client side of TLS).
PLAIN_SERVER = {"test_demo_over_plain_http_has_no_secure_context", "test_hooks_over_https"}


@pytest.fixture
def pki(tmp_path):
    """A CA; `served` is the leaf the server starts with, copied to the paths the config names
    so a test can overwrite them before a SIGHUP."""
    authority = ThrowawayPKI(tmp_path / "pki")
    authority.first = authority.leaf("first")
    authority.served_certificate = tmp_path / "pki" / "served.pem"
    authority.served_key = tmp_path / "pki" / "served.key"
    shutil.copy(authority.first.certificate, authority.served_certificate)
    shutil.copy(authority.first.key, authority.served_key)
    return authority


@pytest.fixture
def tls_receiver(pki):
    """The hook receiver of test_hooks, behind TLS with a certificate of the test CA."""
    leaf = pki.leaf("hooks", hosts=(), addresses=("127.0.0.1",))
    receiver = HookReceiver()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(leaf.certificate), str(leaf.key))
    receiver.httpd.socket = context.wrap_socket(receiver.httpd.socket, server_side=True)
    receiver.url = receiver.url.replace("http://", "https://", 1)
    receiver.start()
    yield receiver
    receiver.stop()


@pytest.fixture
def server_config_overrides(request, pki):
    name = request.function.__name__
    if name == "test_hooks_over_https":
        receiver = request.getfixturevalue("tls_receiver")
        hooks = {"url": receiver.url, "secret": SECRET, "timeoutMs": 2000}
        return {"apps": [{"key": "defaultApp"},
                         {"key": TRUSTED_APP, "hooks": {**hooks, "caFile": str(pki.ca_file)}},
                         {"key": UNTRUSTED_APP, "hooks": hooks}]}
    if name in PLAIN_SERVER:
        return {}
    tls = {"certificate": str(pki.served_certificate), "privateKey": str(pki.served_key)}
    if name == "test_https_bounds_redirect_and_stalled_handshakes":
        pki.redirect_port = _free_tcp_port()
        return {"server": {"tls": {**tls, "redirectPort": pki.redirect_port}}, "limits": {"maxSessions": 2}}
    return {"server": {"tls": tls}}


def _port(server) -> int:
    return int(server.http_url.rsplit(":", 1)[1])


# MARK: the browser demo over HTTPS, and its control


def test_demo_over_https_publishes_and_plays(server, pki, artifacts, figures):
    asyncio.run(_demo_over_https(server, pki, artifacts, figures))


async def _demo_over_https(server, pki, artifacts, figures):
    origin = f"https://{HOST}:{_port(server)}"
    args = chromium_tls_args(pki.first)
    async with demo_page(server, origin, args) as publisher_page, demo_page(server, origin, args) as player_page:
        for page in (publisher_page, player_page):
            assert await page.evaluate("window.isSecureContext") is True
            assert await page.evaluate("location.protocol") == "https:"
        # The fake camera, published over WSS.
        await publisher_page.fill("#pubName", STREAM)
        await publisher_page.select_option("#pubResolution", "640x480")
        await publisher_page.click("#publishBtn")
        await _poll(publisher_page, STATUS_OF, 15, "PUBLISHING", ["publisher", "PUBLISHING"])
        # A second page plays it.
        await player_page.fill("#playName", STREAM)
        requested = time.monotonic()
        await player_page.click("#playBtn")
        await _poll(player_page, STATUS_OF, 15, "PLAYING", ["player", "PLAYING"])
        await _wait_more_frames(player_page, 1, 20, "after PLAYING")
        first_frame_ms = round((time.monotonic() - requested) * 1000)
        decoded = await _wait_more_frames(player_page, 30, 20, "in steady play over https")
        await player_page.screenshot(path=str(artifacts / "tls-demo-player.png"))
        errors = await player_page.evaluate("window.demo.log.filter((e) => e.kind === 'error').map((e) => e.text)")
        assert not errors, errors
    figures({"playToFirstDecodedMsUpperBound": first_frame_ms, "framesDecoded": decoded})


def test_demo_over_plain_http_has_no_secure_context(server, pki):
    asyncio.run(_demo_over_http(server, pki))


async def _demo_over_http(server, pki):
    # The same page and the same Chromium flags, from a server without TLS.
    origin = f"http://{HOST}:{_port(server)}"
    async with demo_page(server, origin, chromium_tls_args(pki.first)) as page:
        assert await page.evaluate("window.isSecureContext") is False
        assert await page.evaluate("!!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia)") is False


# MARK: WHIP over HTTPS


def _whip_post(url: str, offer: str, context: ssl.SSLContext):
    request = urllib.request.Request(url, data=offer.encode(), method="POST")
    request.add_header("Authorization", "Bearer defaultApp")
    request.add_header("Content-Type", "application/sdp")
    with urllib.request.urlopen(request, timeout=10, context=context) as response:
        return response.status, response.headers.get("Location"), response.read().decode()


def test_whip_publish_over_https(server, pki, figures):
    asyncio.run(_whip_over_https(server, pki, figures))


async def _whip_over_https(server, pki, figures):
    context = pki.client_context()
    url = f"{server.http_url}/whip/{STREAM}"
    publisher, viewer = Publisher(), None
    try:
        offer = await publisher.offer()
        # Only the test CA vouches for the server: the system's store refuses it.
        with pytest.raises(urllib.error.URLError) as refused:
            await asyncio.to_thread(_whip_post, url, offer, ssl.create_default_context())
        assert isinstance(refused.value.reason, ssl.SSLCertVerificationError), refused.value

        status, location, answer = await asyncio.to_thread(_whip_post, url, offer, context)
        assert status == 201 and location.startswith(f"/whip/{STREAM}/"), (status, location)
        await publisher.accept(answer)
        client = await SluiceClient.open(server.ws_url, ssl=context)
        await client.connect("defaultApp")
        viewer = await play(server.ws_url, STREAM, client=client)
        await viewer.client.wait_status(viewer.handle, "PLAYING", 15)
        frames = await viewer.peer.wait_frames(60, 20, lambda f: f.number is not None)
        numbers = [f.number for f in frames]
        assert all(b > a for a, b in zip(numbers, numbers[1:])), numbers[-20:]
        figures({"framesDecoded": len(frames), "sizes": sorted({f"{f.width}x{f.height}" for f in frames})})
    finally:
        await publisher.close()
        await close_all(viewer)


# MARK: SIGHUP


async def _wait_log(server, text: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in server.log_path.read_text(errors="replace"):
        assert time.monotonic() < deadline, f"no '{text}' in the log within {timeout} s:\n{log_tail(server.log_path)}"
        await asyncio.sleep(0.05)


async def _served(server, context) -> str:
    return await asyncio.to_thread(served_fingerprint, _port(server), context)


def test_sighup_serves_the_new_certificate_and_keeps_sessions(server, pki, figures):
    asyncio.run(_sighup(server, pki, figures))


async def _sighup(server, pki, figures):
    context = pki.client_context()
    second = pki.leaf("second", rsa_key=True)  # another key, of another type (ECDSA to RSA)
    pub = viewer = None
    try:
        pub = await publish(server.ws_url, STREAM, client=await _connected(server, context))
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        viewer = await play(server.ws_url, STREAM, client=await _connected(server, context))
        await viewer.client.wait_status(viewer.handle, "PLAYING", 15)
        await viewer.peer.wait_frames(30, 20, lambda f: f.number is not None)
        assert await _served(server, context) == pki.first.fingerprint

        shutil.copy(second.certificate, pki.served_certificate)
        shutil.copy(second.key, pki.served_key)
        server.process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 10
        while (seen := await _served(server, context)) != second.fingerprint:
            assert seen == pki.first.fingerprint, f"served neither certificate: {seen}"
            assert time.monotonic() < deadline, f"still the old certificate 10 s after SIGHUP:\n{log_tail(server.log_path)}"
            await asyncio.sleep(0.1)
        frames_at_reload = len(viewer.peer.frames)

        # The sessions from before the reload are still up, and media still flows.
        assert await pub.client.ping() == {} and await viewer.client.ping() == {}
        await viewer.peer.wait_frames(frames_at_reload + 30, 20)
        assert not pub.client.closed.is_set() and not viewer.client.closed.is_set()

        # A reload that fails keeps what is served and says why, naming the file.
        pki.served_certificate.write_text("not a certificate\n")
        server.process.send_signal(signal.SIGHUP)
        await _wait_log(server, f"TLS reload failed: {pki.served_certificate} holds no PEM certificate")
        assert await _served(server, context) == second.fingerprint
        shutil.copy(pki.first.certificate, pki.served_certificate)  # the key is still the second's
        server.process.send_signal(signal.SIGHUP)
        await _wait_log(server, f"the private key in {pki.served_key} does not match the certificate in {pki.served_certificate}")
        assert await _served(server, context) == second.fingerprint
        assert await viewer.client.ping() == {}
        frames_after = len(viewer.peer.frames)
        await viewer.peer.wait_frames(frames_after + 10, 20)
        numbers = viewer.peer.numbers()
        assert all(b > a for a, b in zip(numbers, numbers[1:])), "frames out of order across the reloads"
        figures({"framesDecodedAcrossReloads": len(viewer.peer.frames), "framesAtReload": frames_at_reload})
    finally:
        await close_all(viewer, pub)


async def _connected(server, context) -> SluiceClient:
    client = await SluiceClient.open(server.ws_url, ssl=context)
    await client.connect("defaultApp")
    return client


# MARK: bad files stop the start


def test_bad_certificate_files_stop_the_start(tmp_path, pki):
    binary = require_binary()
    other = pki.leaf("other")
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("-----BEGIN CERTIFICATE-----\nbm9wZQ==\n-----END CERTIFICATE-----\n")
    missing = tmp_path / "missing.pem"
    cases = [
        (missing, pki.first.key, str(missing)),
        (pki.first.certificate, tmp_path / "missing.key", str(tmp_path / "missing.key")),
        (garbage, pki.first.key, str(garbage)),
        (pki.first.certificate, other.key, f"the private key in {other.key} does not match"),
    ]
    config = tmp_path / "sluice.json"
    for certificate, key, named in cases:
        write_test_config(config, _free_tcp_port(), 30000, 1,
                          {"server": {"tls": {"certificate": str(certificate), "privateKey": str(key)}}})
        for extra in ([], ["--check-config"]):
            run = subprocess.run([str(binary), "--config", str(config), *extra], capture_output=True, text=True,
                                 timeout=30, stdin=subprocess.DEVNULL)
            assert run.returncode == 2, f"{certificate} / {key} {extra}: exit {run.returncode}; {run.stdout}{run.stderr}"
            assert named in run.stderr, f"the error does not name {named}: {run.stderr}"
    # The control: the good pair passes the same check.
    write_test_config(config, _free_tcp_port(), 30000, 1, {"server": {"tls": {
        "certificate": str(pki.first.certificate), "privateKey": str(pki.first.key)}}})
    run = subprocess.run([str(binary), "--config", str(config), "--check-config"], capture_output=True, text=True,
                         timeout=30, stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr


# MARK: limits, the redirect port and stalled handshakes


def _stalled(port: int, first_bytes: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if first_bytes:
        s.sendall(first_bytes)
    return s


def _tls_request(port: int, context, raw: bytes) -> bytes:
    """Sends `raw` over TLS and reads to the end; what came back (b"" when the server closed)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as plain:
        with context.wrap_socket(plain, server_hostname="127.0.0.1") as tls:
            tls.sendall(raw)
            data = b""
            try:
                while chunk := tls.recv(65536):
                    data += chunk
            except (ConnectionResetError, ssl.SSLError):
                pass
            return data


def _wait_all_closed(sockets: dict, opened_at: float, timeout: float) -> dict:
    """Seconds from `opened_at` until the server closed each socket (what it sends first is
    read and dropped); fails if one stays open past `timeout`."""
    import selectors
    selector = selectors.DefaultSelector()
    for name, s in sockets.items():
        s.setblocking(False)
        selector.register(s, selectors.EVENT_READ, name)
    closed = {}
    deadline = time.monotonic() + timeout
    while len(closed) < len(sockets):
        left = deadline - time.monotonic()
        assert left > 0, f"the server kept stalled connections open over {timeout} s: {set(sockets) - set(closed)}"
        for key, _ in selector.select(min(left, 1.0)):
            try:
                data = key.fileobj.recv(4096)
            except (BlockingIOError, ssl.SSLWantReadError):
                continue
            except (ConnectionResetError, ssl.SSLError):
                data = b""
            if not data:
                closed[key.data] = round(time.monotonic() - opened_at, 1)
                selector.unregister(key.fileobj)
    return closed


def test_https_bounds_redirect_and_stalled_handshakes(server, pki, figures):
    port = _port(server)
    context = pki.client_context()
    # Open first, so the limits below are checked while these stall.
    opened_at = time.monotonic()
    stalled = {
        "tcpOnly": _stalled(port, b""),
        # A TLS record header announcing 512 bytes of ClientHello, then only 6 of them.
        "halfClientHello": _stalled(port, bytes.fromhex("160301020001000001fc0303")),
    }
    half_request = context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5),
                                       server_hostname="127.0.0.1")
    half_request.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    stalled["halfRequestOverTLS"] = half_request

    # The same bounds as over plain HTTP, now behind TLS.
    body = b"v=0\r\n" + b"a" * (1_048_576 + 10)
    reply = _tls_request(port, context, b"POST /whip/big HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer defaultApp\r\n"
                         b"Content-Type: application/sdp\r\nContent-Length: " + str(len(body)).encode()
                         + b"\r\nConnection: close\r\n\r\n" + body)
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    for what, raw in [("URL", b"GET /" + b"a" * 10_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
                      ("header", b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: " + b"b" * 10_000 + b"\r\n\r\n")]:
        reply = _tls_request(port, context, raw)
        assert not reply.startswith(b"HTTP/1.1 200"), f"a {what} over 8 KiB was served: {reply[:200]}"
    assert _tls_request(port, context, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n") \
        .startswith(b"HTTP/1.1 200"), "the control request failed"
    asyncio.run(_max_sessions_over_wss(server, context))

    # The redirect port answers 308 to the same path over https, and upgrades nothing.
    with socket.create_connection(("127.0.0.1", pki.redirect_port), timeout=5) as s:
        s.sendall(b"GET /whip/cam?x=1 HTTP/1.1\r\nHost: " + HOST.encode() + b":" + str(pki.redirect_port).encode()
                  + b"\r\nConnection: close\r\n\r\n")
        answer = s.recv(65536).decode(errors="replace")
    assert answer.startswith("HTTP/1.1 308"), answer
    assert f"location: https://{HOST}:{port}/whip/cam?x=1\r\n" in answer.lower(), answer
    asyncio.run(_no_websocket_on_redirect_port(pki.redirect_port))

    closed_after = _wait_all_closed(stalled, opened_at, 60)
    for s in stalled.values():
        s.close()
    assert server.health()["status"] == "ok"
    figures({"stalledConnectionClosedAfterSecondsUpperBound": closed_after})


async def _max_sessions_over_wss(server, context):
    clients = []
    try:
        for _ in range(2):
            clients.append(await _connected(server, context))
        extra = await SluiceClient.open(server.ws_url, ssl=context)
        clients.append(extra)
        await expect_rpc_error(extra.connect("defaultApp"), 1008)
    finally:
        for client in clients:
            await client.close()


async def _no_websocket_on_redirect_port(port: int):
    with pytest.raises(Exception):
        await SluiceClient.open(f"ws://127.0.0.1:{port}/ws", timeout=5)


# MARK: hooks to an https:// backend


def test_hooks_over_https(server, tls_receiver, figures):
    asyncio.run(_hooks_over_https(server, tls_receiver, figures))


async def _hooks_over_https(server, receiver, figures):
    client = untrusted = pub = None
    try:
        client = await SluiceClient.open(server.ws_url)
        result = await client.connect(TRUSTED_APP, custom={"over": "tls"})
        session = result["sessionId"]
        connect_hook = (await receiver.wait_calls(lambda c: c.event == "connect" and c.body.get("sessionId") == session))[0]
        assert connect_hook.body["custom"] == {"over": "tls"}
        assert connect_hook.headers.get("x-sluice-signature", "").startswith("sha256="), connect_hook.headers
        pub = await publish(server.ws_url, STREAM, client=client)
        client = None  # closed with the publish session
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        statuses = await receiver.wait_calls(lambda c: c.event == "streamStatus" and c.body.get("status") == "PUBLISHING")
        assert statuses[0].body["stream"] == STREAM

        # The control: the same backend without the CA file is not trusted, so connect is refused.
        untrusted = await SluiceClient.open(server.ws_url)
        await expect_rpc_error(untrusted.connect(UNTRUSTED_APP), 1002, reason="RESTRICTED_ACCESS")
        assert not [c for c in receiver.snapshot() if c.body.get("appKey") == UNTRUSTED_APP], \
            "a hook body reached a backend the server could not verify"
        figures({"hooksReceivedOverTLS": len(receiver.snapshot())})
    finally:
        await close_all(pub)
        for c in (client, untrusted):
            if c is not None:
                await c.close()
    await receiver.wait_calls(lambda c: c.event == "disconnect", what="disconnect hook")
