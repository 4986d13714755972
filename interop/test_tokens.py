"""Signed access tokens with real peers: aiortc publishers and players connect with tokens minted
by `sluice token create` and by Python's hmac, their grants decide what they may publish and
play, their identity shows in stats, the admin API and the hook bodies, WHIP and WHEP take them
as the bearer, and caps hold against what a publisher really sends."""

import asyncio
import json
import time

import pytest

from conftest import require_binary
from media import Player, Publisher
from rpc_assert import expect_rpc_error
from sessions import PublishSession, close_all, play, publish
from sluice_client import SluiceClient
from test_hooks import SECRET as HOOK_SECRET, receiver  # noqa: F401 (receiver is a fixture)
from test_whip import admin_token, decode_window, error_of, http
from tokens import b64url, claims, cli_token, mint

STUDIO = "studio"
STUDIO_SECRET = "studio-signing-secret-0123456789abcdef"
OLD_SECRET = "studio-old-secret-still-accepted-0123456"
CAPPED = "capped"
CAPPED_SECRET = "capped-signing-secret-0123456789abcdef"


@pytest.fixture
def server_config_overrides(receiver):
    return {"apps": [
        {"key": "defaultApp"},
        {"key": STUDIO, "secrets": [STUDIO_SECRET, OLD_SECRET], "requireToken": True,
         "hooks": {"url": receiver.url, "secret": HOOK_SECRET, "timeoutMs": 2000}},
        {"key": CAPPED, "secrets": [CAPPED_SECRET],
         "limits": {"maxWidth": 320, "maxBitrateKbps": 300, "stopWhenExceeded": True}},
    ]}


async def token_client(ws_url: str, token: str) -> tuple[SluiceClient, dict]:
    client = await SluiceClient.open(ws_url)
    return client, await client.call("connect", {"token": token})


async def admin_get(server, path: str) -> dict:
    status, _, body = await http(server, "GET", path, content_type=None, token=admin_token(server))
    assert status == 200, (status, body)
    return json.loads(body)


def test_tokens_grant_names_and_carry_the_identity(server, receiver, figures):
    asyncio.run(_grants_and_identity(server, receiver, figures))


async def _grants_and_identity(server, receiver, figures):
    binary = require_binary()
    # Alice's token comes from the CLI; Bob's from a backend (Python) under the older secret.
    alice = cli_token(binary, server.config_path, "--app", STUDIO, "--identity", "alice",
                      "--publish", "cam-*", "--play", "*", "--ttl", "10m")
    bob = mint(OLD_SECRET, claims(STUDIO, "bob", play=["cam-1"]))
    pub = viewer = None
    extra = []
    try:
        # The app requires tokens: its key alone is refused, and the socket stays open.
        keyed = await SluiceClient.open(server.ws_url)
        extra.append(keyed)
        await expect_rpc_error(keyed.connect(STUDIO), 1011, "TOKEN_REQUIRED")

        client, result = await token_client(server.ws_url, alice)
        assert result["identity"] == "alice", result
        pub = await publish(server.ws_url, "cam-1", client=client)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        # Outside the grant: 1012, and no handle is made.
        peer = Publisher()
        try:
            await expect_rpc_error(pub.client.publish("studio-main", await peer.offer()), 1012, "NOT_GRANTED")
        finally:
            await peer.close()

        bob_client, bob_result = await token_client(server.ws_url, bob)
        assert bob_result["identity"] == "bob", bob_result
        viewer = await play(server.ws_url, "cam-1", client=bob_client)
        await viewer.client.wait_status(viewer.handle, "PLAYING", 15)
        decoded = await decode_window(viewer.peer, 30)
        assert decoded["sizes"] == ["640x480"] and decoded["increasing"], decoded
        # Bob may play cam-1 only, and publish nothing.
        other = Player()
        try:
            await expect_rpc_error(viewer.client.play("cam-2", await other.offer(), wait=True), 1012, "NOT_GRANTED")
            await expect_rpc_error(viewer.client.publish("cam-9", await other.offer()), 1012, "NOT_GRANTED")
        finally:
            await other.close()

        # The identity in getStats, the admin API and every hook body of the session.
        assert (await pub.client.get_stats(pub.handle))["identity"] == "alice"
        assert (await viewer.client.get_stats(viewer.handle))["identity"] == "bob"
        stream = await admin_get(server, "/api/v1/streams/cam-1")
        assert stream["publisher"]["identity"] == "alice", stream
        assert [p["identity"] for p in stream["players"]] == ["bob"], stream
        sessions = await admin_get(server, "/api/v1/sessions")
        assert sorted(s.get("identity") for s in sessions["sessions"] if s["appKey"] == STUDIO) == ["alice", "bob"]
        calls = await receiver.wait_calls(lambda c: c.event in ("connect", "publishStream", "playStream"), 4)
        by_event = {(c.event, c.body.get("identity")) for c in calls}
        assert {("connect", "alice"), ("publishStream", "alice"), ("connect", "bob"), ("playStream", "bob")} <= by_event, by_event
        # A moderator (a token with admin) mutes the stream's video for every player; the
        # publisher cannot lift it, an ordinary token may not do it.
        moderator, _ = await token_client(server.ws_url, mint(STUDIO_SECRET, claims(STUDIO, "mod", admin=True)))
        extra.append(moderator)
        await expect_rpc_error(bob_client.call("muteStream", {"stream": "cam-1", "kind": "video"}), 1012, "NOT_GRANTED")
        await moderator.call("muteStream", {"stream": "cam-1", "kind": "video"})
        muted = await viewer.client.wait_notification(
            lambda n: n.method == "streamEvent" and n.params.get("type") == "videoMuted", 10)
        assert muted.params["by"] == "server", muted.params
        await expect_rpc_error(pub.client.call("unmute", {"handle": pub.handle, "kind": "video"}), 1002)
        await moderator.call("unmuteStream", {"stream": "cam-1", "kind": "video"})
        await viewer.client.wait_notification(
            lambda n: n.method == "streamEvent" and n.params.get("type") == "videoUnmuted", 10)
        # The refused requests sent no hook.
        assert not [c for c in receiver.snapshot() if c.body.get("stream") in ("studio-main", "cam-2", "cam-9")]
        figures({"framesDecoded": decoded["framesDecoded"]})
    finally:
        await close_all(pub, viewer, *extra)


def test_each_bad_token_has_its_own_reason(server):
    asyncio.run(_refusals(server))


async def _refusals(server):
    good = claims(STUDIO, "eve", publish=["*"])
    signed = mint(STUDIO_SECRET, good)
    head, payload, signature = signed.split(".")
    tampered = ".".join([head, b64url(json.dumps({**good, "publish": ["*"], "sub": "admin"}).encode()), signature])
    now = int(time.time())
    cases = [
        ("expired", mint(STUDIO_SECRET, {**good, "exp": now - 3600}), "TOKEN_EXPIRED"),
        ("not yet valid", mint(STUDIO_SECRET, {**good, "nbf": now + 3600}), "TOKEN_NOT_YET_VALID"),
        ("bad signature", mint("not-the-studio-secret-0123456789abcdef", good), "TOKEN_BAD_SIGNATURE"),
        ("unknown iss", mint(STUDIO_SECRET, {**good, "iss": "nobody"}), "TOKEN_UNKNOWN_ISSUER"),
        ("tampered payload", tampered, "TOKEN_BAD_SIGNATURE"),
        ("alg none", b64url(b'{"alg":"none","typ":"JWT"}') + "." + payload + ".", "TOKEN_UNSUPPORTED_ALGORITHM"),
        ("wrong alg", mint(STUDIO_SECRET, good, {"alg": "HS384", "typ": "JWT"}), "TOKEN_UNSUPPORTED_ALGORITHM"),
        ("garbage", "a.b.c", "TOKEN_MALFORMED"),
    ]
    client = await SluiceClient.open(server.ws_url)
    try:
        for name, token, reason in cases:
            error = await expect_rpc_error(client.call("connect", {"token": token}), 1011, reason)
            assert error.message, name
        # Every refusal left the socket open: the good token connects on it.
        result = await client.call("connect", {"token": signed})
        assert result["identity"] == "eve", result
    finally:
        await client.close()


def test_whip_and_whep_take_tokens(server, figures):
    asyncio.run(_whip_tokens(server, figures))


async def _whip_tokens(server, figures):
    stream = "cam-whip"
    publisher, second, player = Publisher(), Publisher(), Player()
    try:
        publish_token = mint(STUDIO_SECRET, claims(STUDIO, "encoder", publish=["cam-*"]))
        play_token = mint(STUDIO_SECRET, claims(STUDIO, "viewer", play=[stream]))

        status, headers, answer = await http(server, "POST", f"/whip/{stream}", await publisher.offer(),
                                             token=publish_token)
        assert status == 201, (status, answer)
        await publisher.accept(answer)
        location = headers["location"]

        # A play-only token cannot publish; an expired one and the app key alone are 401.
        status, _, body = await http(server, "POST", "/whip/cam-other", await second.offer(), token=play_token)
        assert status == 403 and error_of(status, body)["reason"] == "NOT_GRANTED", (status, body)
        expired = mint(STUDIO_SECRET, claims(STUDIO, publish=["*"], ttl=-3600))
        status, headers_401, body = await http(server, "POST", "/whip/cam-other", await second.offer(), token=expired)
        assert status == 401 and error_of(status, body)["reason"] == "TOKEN_EXPIRED", (status, body)
        assert "invalid_token" in headers_401.get("www-authenticate", ""), headers_401
        status, _, body = await http(server, "POST", "/whip/cam-other", await second.offer(), token=STUDIO)
        assert status == 401 and error_of(status, body)["reason"] == "TOKEN_REQUIRED", (status, body)

        # WHEP with the play token decodes the WHIP publisher's frames.
        status, _, answer = await http(server, "POST", f"/whep/{stream}", await player.offer(), token=play_token)
        assert status == 201, (status, answer)
        await player.accept(answer)
        decoded = await decode_window(player, 30)
        assert decoded["sizes"] == ["640x480"] and decoded["increasing"], decoded
        stream_view = await admin_get(server, f"/api/v1/streams/{stream}")
        assert stream_view["publisher"]["identity"] == "encoder", stream_view
        assert [p["identity"] for p in stream_view["players"]] == ["viewer"], stream_view

        # DELETE takes a token of the same app.
        status, _, body = await http(server, "DELETE", location, content_type=None, token=play_token)
        assert status == 200, (status, body)
        figures({"whepFramesDecoded": decoded["framesDecoded"]})
    finally:
        for peer in (publisher, second, player):
            await peer.close()


def test_caps_hold_against_what_arrives(server, figures):
    asyncio.run(_caps(server, figures))


async def _caps(server, figures):
    # The publisher declares nothing and sends 640x480; the app caps width at 320 and bitrate
    # at 300 kbit/s, and stops publishers that stay over a cap.
    token = mint(CAPPED_SECRET, claims(CAPPED, "camera", publish=["big"], play=["big"]))
    pub = viewer = None
    try:
        client, _ = await token_client(server.ws_url, token)
        peer = Publisher()
        result = await client.publish("big", await peer.offer())
        assert "b=TIAS:300000" in result["sdp"], [line for line in result["sdp"].splitlines() if line.startswith("b=")]
        await peer.accept(result["sdp"])
        handle = result["handle"]
        pub = PublishSession(client, peer, handle)
        await client.wait_status(handle, "PUBLISHING", 15)
        viewer = await play(server.ws_url, "big")
        await viewer.client.wait_status(viewer.handle, "PLAYING", 15)
        started = time.monotonic()
        event = await client.wait_notification(
            lambda n: n.method == "streamEvent" and n.params.get("type") == "limitExceeded", 20)
        assert event.params["by"] == "server", event.params
        assert event.params["data"] == {"limit": "maxWidth", "value": 640, "max": 320}, event.params
        failed = await client.wait_status(handle, "FAILED", 10)
        assert failed.params.get("info") == "Failed by limit maxWidth", failed.params
        gone = await viewer.client.wait_status(viewer.handle, "UNPUBLISHED", 10)
        assert gone.params.get("info") == "Stopped by publisher stop", gone.params
        figures({"publishingToLimitExceededS": round(time.monotonic() - started, 2)})
    finally:
        await close_all(pub, viewer)
