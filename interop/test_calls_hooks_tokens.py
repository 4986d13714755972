"""Calls between access-token identities (the token's `sub` is the user), and the call hooks
(callStarted, callStatus, callEnded) as an app's backend receives them, signed."""

import asyncio
import hashlib
import hmac

import pytest

from call_peers import close_call, close_clients, join_media, user_session, wait_call_status, wait_incoming
from sluice_client import RpcError, SluiceClient
from test_hooks import SECRET as HOOK_SECRET, receiver  # noqa: F401 (receiver is a fixture)
from tokens import claims, mint

HOOKED = "callHooked"
TOKENS = "callTokens"
TOKEN_SECRET = "call-token-signing-secret-0123456789abcd"


@pytest.fixture
def server_config_overrides(receiver):
    return {"apps": [
        {"key": HOOKED, "trustClientUser": True, "hooks": {"url": receiver.url, "secret": HOOK_SECRET, "timeoutMs": 2000}},
        {"key": TOKENS, "secrets": [TOKEN_SECRET], "requireToken": True},
    ]}


async def token_session(server, sub, **extra) -> SluiceClient:
    client = await SluiceClient.open(server.ws_url)
    # No publish or play grants: a call's streams are the call's devices' whatever the token says.
    result = await client.connect(TOKENS, token=mint(TOKEN_SECRET, claims(TOKENS, sub)), **extra)
    assert result.get("identity") == sub, result
    return client


def test_calls_between_token_identities(server, figures):
    asyncio.run(_token_calls(server, figures))


async def _token_calls(server, figures):
    alice = bob = carol = dave = nobody = alice_media = bob_media = None
    try:
        alice = await token_session(server, "alice")
        bob = await token_session(server, "bob")
        # A token's sub is the user: `user` beside it must agree.
        liar = await SluiceClient.open(server.ws_url)
        try:
            with pytest.raises(RpcError) as other_user:
                await liar.connect(TOKENS, token=mint(TOKEN_SECRET, claims(TOKENS, "mallory")), user="alice")
            assert other_user.value.code == -32602, other_user.value
        finally:
            await liar.close()
        # A token without sub has no user to call from.
        nobody = await SluiceClient.open(server.ws_url)
        await nobody.connect(TOKENS, token=mint(TOKEN_SECRET, claims(TOKENS)))
        with pytest.raises(RpcError) as anonymous:
            await nobody.call("call", {"to": "bob"})
        assert anonymous.value.code == 1016, anonymous.value

        made = await alice.call("call", {"to": "bob"})
        call_id = made["callId"]
        await wait_incoming(bob, "alice")
        accepted = await bob.call("accept", {"callId": call_id})
        connecting = await wait_call_status(alice, call_id, "CONNECTING")
        bob_media = await join_media(bob, accepted, first_number=5000)
        alice_media = await join_media(alice, connecting.params)
        for client in (alice, bob):
            await wait_call_status(client, call_id, "CONNECTED", 15)
        await alice_media.player.wait_frames(10, 15, lambda f: f.number is not None and f.number >= 5000)
        await bob_media.player.wait_frames(10, 15, lambda f: f.number is not None and f.number < 5000)
        await alice.call("hangup", {"callId": call_id})
        await wait_call_status(bob, call_id, "ENDED")

        # Another pair's call is not in alice's own log.
        carol = await token_session(server, "carol")
        dave = await token_session(server, "dave")
        theirs = (await carol.call("call", {"to": "dave"}))["callId"]
        await wait_incoming(dave, "carol")
        await dave.call("decline", {"callId": theirs})
        await wait_call_status(carol, theirs, "ENDED")
        own = await alice.call("callLog", {})
        assert [c["callId"] for c in own["calls"]] == [call_id], own
        assert own["calls"][0]["endResult"] == "completed" and own["calls"][0]["endedBy"] == "alice", own
        davids = await dave.call("callLog", {"limit": 1})
        assert [c["callId"] for c in davids["calls"]] == [theirs], davids
        with pytest.raises(RpcError) as bad_limit:
            await alice.call("callLog", {"limit": 0})
        assert bad_limit.value.code == -32602
        figures({"framesBothWays": [len(alice_media.player.frames), len(bob_media.player.frames)]})
    finally:
        await close_call([alice_media, bob_media], [alice, bob, carol, dave, nobody])


def test_call_hooks_signed_with_every_status(server, receiver, figures):  # noqa: F811 (the fixture)
    asyncio.run(_hooks(server, receiver, figures))


async def _hooks(server, receiver, figures):  # noqa: F811
    alice = bob = alice_media = bob_media = None
    try:
        alice = await user_session(server, "alice", HOOKED)
        bob = await user_session(server, "bob", HOOKED)
        made = await alice.call("call", {"to": "bob", "video": True, "audio": False, "custom": {"room": 7}})
        call_id = made["callId"]
        await wait_incoming(bob, "alice")
        accepted = await bob.call("accept", {"callId": call_id})
        connecting = await wait_call_status(alice, call_id, "CONNECTING")
        bob_media = await join_media(bob, accepted)
        alice_media = await join_media(alice, connecting.params)
        await wait_call_status(alice, call_id, "CONNECTED", 15)
        await bob.call("hold", {"callId": call_id})
        await wait_call_status(alice, call_id, "ON_HOLD")
        await bob.call("unhold", {"callId": call_id})
        await wait_call_status(alice, call_id, "CONNECTED")
        await asyncio.sleep(0.5)
        await bob.call("hangup", {"callId": call_id})
        await wait_call_status(alice, call_id, "ENDED")

        ended = (await receiver.wait_calls(lambda c: c.event == "callEnded" and c.body.get("callId") == call_id,
                                           1, 10, "callEnded"))[0]
        calls = [c for c in receiver.snapshot() if c.event.startswith("call") and c.body.get("callId") == call_id]
        for call in calls:
            assert call.headers.get("x-sluice-signature") == \
                "sha256=" + hmac.new(HOOK_SECRET.encode(), call.raw, hashlib.sha256).hexdigest(), call.event
            assert call.body.get("appKey") == HOOKED, call.body
        started = [c for c in calls if c.event == "callStarted"]
        assert len(started) == 1, [c.event for c in calls]
        body = started[0].body
        assert (body["from"], body["to"], body["video"], body["audio"]) == ("alice", "bob", True, False), body
        assert body.get("custom") == {"room": 7}, body
        statuses = [c.body["status"] for c in calls if c.event == "callStatus"]
        assert sorted(statuses) == sorted(["RINGING", "CONNECTING", "CONNECTED", "ON_HOLD", "CONNECTED", "ENDED"]), statuses
        held = [c.body for c in calls if c.event == "callStatus" and c.body["status"] == "ON_HOLD"][0]
        assert held.get("by") == "bob", held
        final = [c.body for c in calls if c.event == "callStatus" and c.body["status"] == "ENDED"][0]
        assert final.get("endResult") == "completed" and final.get("by") == "bob", final
        record = ended.body
        assert record["endResult"] == "completed" and record["endedBy"] == "bob", record
        assert record["durationMs"] > 0 and record["answeredAt"] is not None, record
        assert record.get("custom") == {"room": 7}, record
        assert started[0].order < ended.order, "callEnded came before callStarted"
        figures({"callHooks": len(calls), "statuses": statuses})
    finally:
        await close_call([alice_media, bob_media], [alice, bob])
