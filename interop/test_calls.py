"""1:1 calls between aiortc users (docs/protocol.md section 6, "Calls"): ring, accept, media
both ways, hold, mute, hang up, every end result, two devices, a dead socket, a reconnect,
bad input, and the call log in its SQLite file across a restart."""

import asyncio
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from call_peers import (APP, admin_calls, close_call, close_clients, join_media, kill_socket, record_of, user_session,
                        wait_call_status, wait_incoming)
from conftest import BINARY, log_tail
from polling import growth_while_quiet
from sluice_client import RpcError

RING_TIMEOUT = 3
RECONNECT = 2


@pytest.fixture
def server_config_overrides():
    return {"apps": [{"key": APP, "trustClientUser": True}],
            "calls": {"ringTimeoutSeconds": RING_TIMEOUT, "reconnectSeconds": RECONNECT},
            # The per-call limit is what the flood meets, not the session's request rate.
            "limits": {"requestsPerSecond": 5000}}


async def _ring(caller, callee, to: str, caller_name: str, **params) -> str:
    made = await caller.call("call", {"to": to, **params})
    call_id = made["callId"]
    ring = await wait_incoming(callee, caller_name)
    assert ring.params["callId"] == call_id, ring.params
    await wait_call_status(caller, call_id, "RINGING")
    return call_id


async def _connected(alice, bob):
    """alice calls bob, bob accepts, both send and play: (callId, alice's media, bob's media)."""
    call_id = await _ring(alice, bob, "bob", "alice", video=True, audio=True)
    accepted = await bob.call("accept", {"callId": call_id})
    connecting = await wait_call_status(alice, call_id, "CONNECTING")
    assert accepted["publish"] == connecting.params["play"] and accepted["play"] == connecting.params["publish"], \
        (accepted, connecting.params)
    bob_media = await join_media(bob, accepted, first_number=5000)
    alice_media = await join_media(alice, connecting.params)
    return call_id, alice_media, bob_media



def test_call_media_both_ways_hold_mute_and_hangup(server, figures):
    asyncio.run(_media_hold_mute_hangup(server, figures))


async def _media_hold_mute_hangup(server, figures):
    alice = bob = alice_media = bob_media = None
    try:
        alice = await user_session(server, "alice")
        bob = await user_session(server, "bob")
        call_id, alice_media, bob_media = await _connected(alice, bob)
        for client in (alice, bob):
            await wait_call_status(client, call_id, "CONNECTED", 15)
        # Each decodes the other's video (bob's frames are numbered from 5000) and audio.
        await alice_media.player.wait_frames(10, 15, lambda f: f.number is not None and f.number >= 5000)
        await bob_media.player.wait_frames(10, 15, lambda f: f.number is not None and f.number < 5000)
        for media in (alice_media, bob_media):
            assert media.player.audio_frames > 0, "no audio decoded"
        answered_at = time.time()

        # alice holds: media stops both ways, and both are told.
        await alice.call("hold", {"callId": call_id})
        for client in (alice, bob):
            held = await wait_call_status(client, call_id, "ON_HOLD")
            assert held.params.get("by") == "alice", held.params
        for media in (alice_media, bob_media):
            grew = await growth_while_quiet(lambda m=media: len(m.player.frames) + m.player.audio_frames)
            assert grew == 0, f"{grew} frames were decoded while the call was on hold"
        # The hold is the server's mute of both kinds, and each player is told so.
        for client, media in ((alice, alice_media), (bob, bob_media)):
            for kind in ("videoMuted", "audioMuted"):
                await client.wait_notification(
                    lambda n, k=kind, h=media.play_handle: n.method == "streamEvent" and n.params.get("handle") == h
                    and n.params.get("type") == k and n.params.get("by") == "server", 5, f"{kind} by the server")
        with pytest.raises(RpcError) as twice:
            await alice.call("hold", {"callId": call_id})
        assert twice.value.code == 1015
        with pytest.raises(RpcError) as not_hers:
            await bob.call("unhold", {"callId": call_id})
        assert not_hers.value.code == 1015

        # unhold: both decode again, from a key frame.
        counts = [len(m.player.frames) for m in (alice_media, bob_media)]
        await alice.call("unhold", {"callId": call_id})
        for client in (alice, bob):
            await wait_call_status(client, call_id, "CONNECTED")
        for media, n in zip((alice_media, bob_media), counts):
            await media.player.wait_frames(n + 10, 10)

        # bob mutes his video: alice's player is told, by the publisher.
        await bob.call("mute", {"handle": bob_media.publish_handle, "kind": "video"})
        await alice.wait_notification(
            lambda n: n.method == "streamEvent" and n.params.get("handle") == alice_media.play_handle
            and n.params.get("type") == "videoMuted" and n.params.get("by") == "publisher", 10,
            "videoMuted by the publisher on alice's player")
        await bob.call("unmute", {"handle": bob_media.publish_handle, "kind": "video"})

        # alice hangs up: ENDED completed, by alice, to both; the log has the duration.
        await asyncio.sleep(1.0)
        await alice.call("hangup", {"callId": call_id})
        hung_up_at = time.time()
        for client in (alice, bob):
            ended = await wait_call_status(client, call_id, "ENDED")
            assert ended.params.get("endResult") == "completed" and ended.params.get("by") == "alice", ended.params
        # The server stops the call's handles.
        await alice.wait_status(alice_media.publish_handle, "UNPUBLISHED", 10)
        record = record_of(server, call_id, user="bob")
        assert record["caller"] == "alice" and record["callee"] == "bob", record
        assert record["endResult"] == "completed" and record["endedBy"] == "alice", record
        assert record["video"] is True and record["audio"] is True, record
        assert record["answeredAt"] is not None and record["endedAt"] >= record["answeredAt"], record
        assert record["durationMs"] == record["endedAt"] - record["answeredAt"], record
        # The duration runs from accept to hangup: at least the time the test spent connected.
        assert record["durationMs"] >= (hung_up_at - answered_at) * 1000 - 1000, (record, hung_up_at - answered_at)
        figures({"durationMs": record["durationMs"], "frames": [len(m.player.frames) for m in (alice_media, bob_media)]})
    finally:
        await close_call([alice_media, bob_media], [alice, bob])


def test_call_setup_time_over_twenty_calls(server, figures):
    asyncio.run(_setup_times(server, figures))


async def _setup_times(server, figures):
    """From `call` to both sides decoding the other's first video frame, 20 times."""
    alice = bob = None
    setups = []
    try:
        alice = await user_session(server, "alice")
        bob = await user_session(server, "bob")
        for _ in range(20):
            started = time.monotonic()
            call_id, alice_media, bob_media = await _connected(alice, bob)
            try:
                first = []
                for media in (alice_media, bob_media):
                    frames = await media.player.wait_frames(1, 15)
                    first.append(frames[0].at)
                setups.append((max(first) - started) * 1000)
                await bob.call("hangup", {"callId": call_id})
                for client in (alice, bob):
                    ended = await wait_call_status(client, call_id, "ENDED")
                    assert ended.params.get("endResult") == "completed", ended.params
            finally:
                await alice_media.close()
                await bob_media.close()
        setups.sort()
        p50 = statistics.median(setups)
        p95 = setups[int(round(0.95 * (len(setups) - 1)))]
        figures({"calls": len(setups), "setupP50Ms": round(p50, 1), "setupP95Ms": round(p95, 1),
                 "setupMaxMs": round(setups[-1], 1)})
        assert len(setups) == 20
    finally:
        await close_clients(alice, bob)


def test_every_end_before_an_answer(server, figures):
    asyncio.run(_ends(server, figures))


async def _ends(server, figures):
    alice = bob = carol = None
    try:
        alice = await user_session(server, "alice")
        bob = await user_session(server, "bob")
        carol = await user_session(server, "carol")

        # bob declines.
        declined = await _ring(alice, bob, "bob", "alice")
        with pytest.raises(RpcError) as caller_declines:
            await alice.call("decline", {"callId": declined})
        assert caller_declines.value.code == 1015
        await bob.call("decline", {"callId": declined})
        for client in (alice, bob):
            ended = await wait_call_status(client, declined, "ENDED")
            assert ended.params.get("endResult") == "declined" and ended.params.get("by") == "bob", ended.params

        # alice cancels before bob answers.
        canceled = await _ring(alice, bob, "bob", "alice")
        await alice.call("hangup", {"callId": canceled})
        for client in (alice, bob):
            ended = await wait_call_status(client, canceled, "ENDED")
            assert ended.params.get("endResult") == "canceled" and ended.params.get("by") == "alice", ended.params

        # Nobody answers within calls.ringTimeoutSeconds.
        rung_at = time.monotonic()
        timed_out = await _ring(alice, bob, "bob", "alice")
        for client in (alice, bob):
            ended = await wait_call_status(client, timed_out, "ENDED", RING_TIMEOUT + 5)
            assert ended.params.get("endResult") == "timedOut", ended.params
        ring_ms = (time.monotonic() - rung_at) * 1000
        with pytest.raises(RpcError) as late:
            await bob.call("accept", {"callId": timed_out})
        assert late.value.code == 1015

        # carol is in a call with bob: alice's call to carol is busy, and carol's call goes on.
        carols = await _ring(carol, bob, "bob", "carol")
        await bob.call("accept", {"callId": carols})
        await wait_call_status(carol, carols, "CONNECTING")
        made = await alice.call("call", {"to": "carol"})
        busy = await wait_call_status(alice, made["callId"], "ENDED")
        assert busy.params.get("endResult") == "busy", busy.params
        assert not [n for n in carol.notifications if n.method == "incomingCall"], "a busy user was rung"
        # The caller in a call may not make another.
        with pytest.raises(RpcError) as in_call:
            await carol.call("call", {"to": "alice"})
        assert in_call.value.code == 1015

        # dave has no session.
        nobody = await alice.call("call", {"to": "dave"})
        no_answer = await wait_call_status(alice, nobody["callId"], "ENDED")
        assert no_answer.params.get("endResult") == "noAnswer", no_answer.params
        await carol.call("hangup", {"callId": carols})
        await wait_call_status(bob, carols, "ENDED")

        results = {c["callId"]: c for c in admin_calls(server, "?user=alice")["calls"]}
        expected = {declined: ("declined", "bob"), canceled: ("canceled", "alice"), timed_out: ("timedOut", None),
                    made["callId"]: ("busy", None), nobody["callId"]: ("noAnswer", None)}
        for call_id, (end_result, by) in expected.items():
            record = results.get(call_id)
            assert record is not None, f"{call_id} ({end_result}) is not in alice's log: {list(results)}"
            assert (record["endResult"], record["endedBy"]) == (end_result, by), record
            assert record["answeredAt"] is None and record["durationMs"] == 0, record
        figures({"ringToTimedOutMs": round(ring_ms), "endResults": sorted(r for r, _ in expected.values())})
    finally:
        await close_clients(alice, bob, carol)


def test_the_other_device_hears_other_device_accepted(server):
    asyncio.run(_two_devices(server))


async def _two_devices(server):
    alice = phone = laptop = None
    try:
        alice = await user_session(server, "alice")
        phone = await user_session(server, "bob")
        laptop = await user_session(server, "bob")
        made = await alice.call("call", {"to": "bob"})
        call_id = made["callId"]
        for device in (phone, laptop):
            await wait_incoming(device, "alice")
        await laptop.call("accept", {"callId": call_id})
        other = await wait_call_status(phone, call_id, "ENDED")
        assert other.params.get("endResult") == "otherDeviceAccepted", other.params
        await wait_call_status(alice, call_id, "CONNECTING")
        with pytest.raises(RpcError) as second:
            await phone.call("accept", {"callId": call_id})
        assert second.value.code == 1015
        # The call goes on with the laptop; the phone hears nothing more of it.
        await alice.call("hangup", {"callId": call_id})
        await wait_call_status(laptop, call_id, "ENDED")
        await asyncio.sleep(0.3)
        assert [n.params.get("status") for n in phone.notifications if n.method == "callStatus"] == ["ENDED"]
    finally:
        await close_clients(alice, phone, laptop)


def test_a_device_that_reconnects_in_time_keeps_the_call(server, figures):
    asyncio.run(_reconnect(server, figures))


async def _reconnect(server, figures):
    alice = bob = again = alice_media = bob_media = resumed = None
    try:
        alice = await user_session(server, "alice")
        bob = await user_session(server, "bob")
        call_id, alice_media, bob_media = await _connected(alice, bob)
        await wait_call_status(alice, call_id, "CONNECTED", 15)
        await alice_media.player.wait_frames(5, 15)
        kill_socket(bob)
        await bob_media.close()
        bob_media = None
        # bob's new session takes the call over, and is told its status and streams.
        again = await user_session(server, "bob")
        told = await again.wait_notification(
            lambda n: n.method == "callStatus" and n.params.get("callId") == call_id, 5, "the call's status after reconnect")
        assert told.params.get("publish") and told.params.get("play"), told.params
        n = len(alice_media.player.frames)
        resumed = await join_media(again, told.params, first_number=9000)
        # alice's waiting player resumes on bob's new publisher, and bob plays alice again.
        await alice_media.player.wait_frames(n + 10, 15, lambda f: f.number is not None and f.number >= 9000)
        await resumed.player.wait_frames(10, 15)
        await asyncio.sleep(RECONNECT + 0.5)
        assert not [x for x in alice.notifications if x.method == "callStatus" and x.params.get("status") == "ENDED"], \
            "the call ended although bob came back in time"
        await again.call("hangup", {"callId": call_id})
        ended = await wait_call_status(alice, call_id, "ENDED")
        assert ended.params.get("endResult") == "completed" and ended.params.get("by") == "bob", ended.params
        figures({"framesAfterReconnect": len(alice_media.player.frames) - n})
    finally:
        await close_call([alice_media, bob_media, resumed], [alice, bob, again])


def test_bad_call_input_gets_clear_errors_and_hurts_no_other_call(server, figures):
    asyncio.run(_bad_input(server, figures))


async def _bad_input(server, figures):
    alice = bob = carol = dave = None
    try:
        alice = await user_session(server, "alice")
        bob = await user_session(server, "bob")
        carol = await user_session(server, "carol")
        dave = await user_session(server, "dave")
        # Another call that must not be hurt: carol to dave, accepted.
        other = await _ring(carol, dave, "dave", "carol")
        await dave.call("accept", {"callId": other})
        await wait_call_status(carol, other, "CONNECTING")

        codes = {}
        for name, client, method, params in [
            ("self", alice, "call", {"to": "alice"}),
            ("bad user", alice, "call", {"to": "no spaces allowed"}),
            ("no to", alice, "call", {}),
            ("unknown callId", alice, "hangup", {"callId": "0" * 32}),
            ("malformed callId", alice, "accept", {"callId": "../x"}),
            ("someone else's call", alice, "hangup", {"callId": other}),
            ("publish a call stream", alice, "publish", {"stream": f"~call-{other}-caller", "sdp": "v=0\r\n"}),
        ]:
            reply = await client.call_raw(method, params)
            assert "error" in reply, f"{name}: {reply}"
            codes[name] = reply["error"]["code"]
        assert codes["self"] == -32602 and codes["bad user"] == -32602 and codes["no to"] == -32602, codes
        assert codes["unknown callId"] == 1014 and codes["someone else's call"] == 1014, codes
        assert codes["malformed callId"] in (-32602, 1014), codes
        assert codes["publish a call stream"] == 1012, codes

        # accept by the caller, then a replayed accept after the end.
        call_id = await _ring(alice, bob, "bob", "alice")
        by_caller = await alice.call_raw("accept", {"callId": call_id})
        assert by_caller.get("error", {}).get("code") == 1015, by_caller
        await bob.call("accept", {"callId": call_id})
        await bob.call("hangup", {"callId": call_id})
        await wait_call_status(alice, call_id, "ENDED")
        replay = await bob.call_raw("accept", {"callId": call_id})
        assert replay.get("error", {}).get("code") == 1015 and "ended" in replay["error"]["message"], replay

        # 1,000 calls at once from one session: calls.perMinute (30) are made (each to a user
        # with no session, so each ends noAnswer), the rest get 1008, each with an answer.
        ids = list(range(100_000, 101_000))
        futures = {}
        loop = asyncio.get_running_loop()
        for i in ids:
            futures[i] = loop.create_future()
            alice._pending[i] = futures[i]
        flood_started = time.monotonic()
        await asyncio.gather(*(alice.send_raw(
            f'{{"jsonrpc":"2.0","id":{i},"method":"call","params":{{"to":"nobody{i}"}}}}') for i in ids))
        replies = await asyncio.wait_for(asyncio.gather(*futures.values()), 30)
        flood_ms = (time.monotonic() - flood_started) * 1000
        made = [r for r in replies if "result" in r]
        limited = [r for r in replies if r.get("error", {}).get("code") == 1008]
        assert len(made) + len(limited) == 1000, [r for r in replies if r not in made and r not in limited][:3]
        assert len(made) <= 30 and len(limited) >= 970, (len(made), len(limited))
        assert "calls per minute" in limited[0]["error"]["message"], limited[0]

        # The other call is whole: still theirs, and it ends as usual.
        await carol.call("hangup", {"callId": other})
        for client in (carol, dave):
            ended = await wait_call_status(client, other, "ENDED")
            assert ended.params.get("endResult") == "completed", ended.params
        assert not alice.closed.is_set(), "the flooding session was closed"
        await alice.ping()
        log = server.log_path.read_text(errors="replace")
        figures({"floodCalls": 1000, "made": len(made), "limited": len(limited), "floodMs": round(flood_ms),
                 "errorCodes": codes})
        assert "Fatal" not in log
    finally:
        await close_clients(alice, bob, carol, dave)


def test_the_call_log_survives_a_restart(server, figures):
    asyncio.run(_restart(server, figures))


async def _restart(server, figures):
    alice = bob = None
    try:
        alice = await user_session(server, "alice")
        bob = await user_session(server, "bob")
        call_id = await _ring(alice, bob, "bob", "alice", custom={"topic": "before the restart"})
        await bob.call("accept", {"callId": call_id})
        await alice.call("hangup", {"callId": call_id})
        await wait_call_status(bob, call_id, "ENDED")
    finally:
        await close_clients(alice, bob)
    before = record_of(server, call_id)

    # Stop the server as an operator would, and start it again on the same config and file.
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=15) == 0
    server.process.stopped_by_test = True
    database = server.config_path.parent / "calls.db"
    assert database.is_file() and database.stat().st_size > 0, f"{database} is missing"
    # A clean stop folds the write-ahead log into the file.
    assert not database.with_name("calls.db-wal").exists(), "the WAL was left after a clean stop"
    log = open(server.log_path, "ab")
    second = subprocess.Popen([str(BINARY), "--config", str(server.config_path)], stdout=log,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                server.health()
                break
            except (OSError, AssertionError):
                assert second.poll() is None, f"the restarted server exited: {log_tail(server.log_path)}"
                assert time.monotonic() < deadline, f"no /health after the restart: {log_tail(server.log_path)}"
                await asyncio.sleep(0.1)
        after = record_of(server, call_id)
        assert after == before, (before, after)
        assert after["custom"] == {"topic": "before the restart"}, after
        # The restarted server logs on into the same file.
        alice = await user_session(server, "alice")
        page = await alice.call("callLog", {"limit": 5})
        assert [c["callId"] for c in page["calls"]][:1] == [call_id], page
        await alice.close()
        wal = database.with_name(database.name + "-wal")
        figures({"fileBytes": database.stat().st_size + (wal.stat().st_size if wal.exists() else 0)})
    finally:
        second.send_signal(signal.SIGTERM)
        try:
            code = second.wait(timeout=15)
        except subprocess.TimeoutExpired:
            second.kill()
            code = second.wait()
        log.close()
    assert code == 0, f"the restarted server exited {code}: {log_tail(server.log_path)}"


@pytest.mark.parametrize("death", ["socket", "transport"])
def test_a_dead_device_ends_the_call_as_connection_lost(server, figures, death):
    asyncio.run(_dead_device(server, figures, death))


async def _dead_device(server, figures, death):
    """bob's socket is reset (no close frame: the call waits calls.reconnectSeconds for him),
    or his PeerConnections close while his socket stays (his call handle fails at once)."""
    alice = bob = alice_media = bob_media = None
    try:
        alice = await user_session(server, "alice")
        bob = await user_session(server, "bob")
        call_id, alice_media, bob_media = await _connected(alice, bob)
        await wait_call_status(alice, call_id, "CONNECTED", 15)
        died_at = time.monotonic()
        if death == "socket":
            kill_socket(bob)
        else:
            await bob_media.close()
            bob_media = None
        ended = await wait_call_status(alice, call_id, "ENDED", 15)
        lost_ms = (time.monotonic() - died_at) * 1000
        assert ended.params.get("endResult") == "connectionLost", ended.params
        if death == "transport":
            await wait_call_status(bob, call_id, "ENDED", 5)
        record = record_of(server, call_id)
        assert record["endResult"] == "connectionLost" and record["endedBy"] is None, record
        figures({f"{death}DeathToEndedMs": round(lost_ms), "reconnectSeconds": RECONNECT})
    finally:
        await close_call([alice_media, bob_media], [alice, bob])


def test_a_frozen_device_ends_the_call_as_connection_lost(server, figures):
    asyncio.run(_frozen_device(server, figures))


async def _frozen_device(server, figures):
    """bob's device freezes (SIGSTOP): its socket stays open and says nothing, its media stops.
    The call stream's publisher fails after calls.mediaTimeoutSeconds, and the call ends."""
    alice = alice_media = None
    device = subprocess.Popen([sys.executable, str(Path(__file__).with_name("call_device.py")),
                               server.ws_url, APP, "bob", "alice"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=Path(__file__).parent)
    loop = asyncio.get_running_loop()

    async def line(expected: str) -> None:
        while True:
            text = await asyncio.wait_for(loop.run_in_executor(None, device.stdout.readline), 30)
            assert text, f"the device process ended before {expected} (exit {device.poll()})"
            if text.strip() == expected:
                return

    try:
        await line("CONNECTED")
        alice = await user_session(server, "alice")
        made = await alice.call("call", {"to": "bob"})
        call_id = made["callId"]
        connecting = await wait_call_status(alice, call_id, "CONNECTING", 15)
        alice_media = await join_media(alice, connecting.params)
        await wait_call_status(alice, call_id, "CONNECTED", 15)
        await line("DECODING")
        await alice_media.player.wait_frames(10, 15)
        frozen_at = time.monotonic()
        os.kill(device.pid, signal.SIGSTOP)
        ended = await wait_call_status(alice, call_id, "ENDED", 15)
        lost_ms = (time.monotonic() - frozen_at) * 1000
        assert ended.params.get("endResult") == "connectionLost", ended.params
        record = record_of(server, call_id)
        assert record["endResult"] == "connectionLost" and record["endedBy"] is None, record
        figures({"freezeToEndedMs": round(lost_ms), "mediaTimeoutSeconds": 2})
    finally:
        device.kill()
        device.wait()
        await close_call([alice_media], [alice])
