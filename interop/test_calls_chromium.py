"""1:1 calls through the JS SDK between two headless Chromium pages (alice and bob, fake camera
and microphone), asserted on what each side's play decoded (getStats of its RTCPeerConnection):
call and accept, hold and unhold, a mute, hang-up, and the call log that the admin API shows."""

import asyncio
import json
import time

import pytest
from playwright.async_api import async_playwright

from call_page import open_call_page
from chromium import CHROMIUM, CHROMIUM_ARGS
from polling import poll
from test_admin_api import admin_token, http

WAIT = 15.0
# After a hold, frames already in flight or in the jitter buffer may still be decoded.
HOLD_SETTLE_SECONDS = 0.7
HOLD_QUIET_SECONDS = 1.5
# durationMs is the server's accept-to-end; the test's own window around it is wider by the
# round trips of two pages on a busy machine. Generous: this is no timing test.
DURATION_TOLERANCE_MS = 3000


@pytest.fixture
def server_config_overrides() -> dict:
    return {"apps": [{"key": "callApp", "trustClientUser": True}], "calls": {"ringTimeoutSeconds": 10}}


def test_call_between_two_chromium_pages(server, figures, artifacts):
    asyncio.run(_call(server, figures, artifacts))


async def _decoded(page) -> dict:
    return await page.evaluate("window.callPage.decoded()")


async def _wait_decoding(page, who: str, frames: int = 10) -> dict:
    """Waits until `page` decodes `frames` more video frames and some more audio samples."""
    start = await _decoded(page)
    grew = lambda now: (now["video"]["framesDecoded"] >= start["video"]["framesDecoded"] + frames
                        and now["audio"]["samples"] > start["audio"]["samples"])
    return await poll(page, "window.callPage.decoded()", grew, WAIT, f"{who} decoding video and audio", 0.25)


async def _wait_status(page, who: str, status: str, count: int = 1) -> list:
    return await poll(page, "window.callPage.statuses()", lambda s: s.count(status) >= count,
                      WAIT, f"{who}'s callStatus {status} x{count}")


async def _call(server, figures, artifacts):
    console = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            alice = await open_call_page(browser, server, console, "alice ")
            bob = await open_call_page(browser, server, console, "bob ")
            assert await alice.evaluate("(u) => window.callPage.connect(u)", "alice") == "alice"
            assert await bob.evaluate("(u) => window.callPage.connect(u)", "bob") == "bob"
            online = await alice.evaluate("window.callPage.session.onlineUsers()")
            assert online == ["alice", "bob"], online

            # alice calls, bob's page rings, bob accepts.
            call_id = await alice.evaluate("(to) => window.callPage.dial(to)", "bob")
            await _wait_status(alice, "alice", "RINGING")
            ring = await poll(bob, "window.callPage.state()", lambda s: s and s["id"] == call_id,
                              WAIT, "bob's incoming call")
            assert (ring["direction"], ring["from"], ring["to"], ring["status"]) == \
                ("incoming", "alice", "bob", "RINGING"), ring
            accepted_at = time.monotonic()
            accepted = await bob.evaluate("window.callPage.accept()")
            assert accepted["result"]["publish"] == f"~call-{call_id}-callee", accepted
            assert accepted["result"]["play"] == f"~call-{call_id}-caller", accepted
            await _wait_status(alice, "alice", "CONNECTED")
            await _wait_status(bob, "bob", "CONNECTED")
            assert await alice.evaluate("[window.callPage.call.publishName, window.callPage.call.playName]") == \
                [f"~call-{call_id}-caller", f"~call-{call_id}-callee"]

            # Each side decodes the other's video and audio.
            alice_in = await _wait_decoding(alice, "alice")
            bob_in = await _wait_decoding(bob, "bob")
            assert alice_in["video"]["frameWidth"] > 0 and bob_in["video"]["frameWidth"] > 0, (alice_in, bob_in)
            times = await asyncio.gather(alice.evaluate("window.callPage.dialedAt"),
                                         alice.evaluate("window.callPage.firstDecodedAt"),
                                         bob.evaluate("window.callPage.firstDecodedAt"))
            setup_ms = round(max(times[1], times[2]) - times[0])

            # alice holds: both get ON_HOLD, and nothing more is decoded on either side.
            await alice.evaluate("window.callPage.call.hold()")
            await _wait_status(alice, "alice", "ON_HOLD")
            await _wait_status(bob, "bob", "ON_HOLD")
            await asyncio.sleep(HOLD_SETTLE_SECONDS)
            held_from = await asyncio.gather(_decoded(alice), _decoded(bob))
            await asyncio.sleep(HOLD_QUIET_SECONDS)
            held_to = await asyncio.gather(_decoded(alice), _decoded(bob))
            held = {who: {"framesDecoded": after["video"]["framesDecoded"] - before["video"]["framesDecoded"],
                          "audioSamples": after["audio"]["samples"] - before["audio"]["samples"],
                          "audioPackets": after["audio"]["packetsReceived"] - before["audio"]["packetsReceived"]}
                    for who, before, after in zip(("alice", "bob"), held_from, held_to)}
            assert all(h["framesDecoded"] == 0 and h["audioPackets"] == 0 for h in held.values()), held
            hold_events = await bob.evaluate("window.callPage.ofType('muted')")
            assert {(e["kind"], e.get("by")) for e in hold_events} >= {("video", "server"), ("audio", "server")}, \
                hold_events

            # unhold: CONNECTED again on both, and both decode again.
            await alice.evaluate("window.callPage.call.unhold()")
            await _wait_status(alice, "alice", "CONNECTED", 2)
            await _wait_status(bob, "bob", "CONNECTED", 2)
            await _wait_decoding(alice, "alice after unhold")
            await _wait_decoding(bob, "bob after unhold")

            # bob mutes his video: alice's play gets videoMuted by the publisher.
            await bob.evaluate("window.callPage.call.muteVideo()")
            muted = await poll(alice, "window.callPage.ofType('muted').filter((e) => e.by === 'publisher')",
                               lambda m: m, WAIT, "alice's videoMuted by publisher")
            assert [(e["kind"], e["eventType"]) for e in muted] == [("video", "videoMuted")], muted
            raw = await alice.evaluate("window.callPage.ofType('streamEvent').map((e) => e.event)"
                                       ".filter((e) => e.type === 'videoMuted' && e.by === 'publisher')")
            assert [e["stream"] for e in raw] == [f"~call-{call_id}-callee"], raw

            # alice hangs up: both end `completed`, by alice, and close the call's handles.
            await alice.evaluate("window.callPage.call.hangup()")
            hung_up_at = time.monotonic()
            ended = {}
            for who, page in (("alice", alice), ("bob", bob)):
                ended[who] = await poll(page, "window.callPage.state()", lambda s: s["status"] == "ENDED",
                                        WAIT, f"{who}'s ENDED")
                assert (ended[who]["endResult"], ended[who]["by"]) == ("completed", "alice"), ended
                assert ended[who]["openCalls"] == 0, ended
                assert ended[who]["playConnection"] == "closed" == ended[who]["publishConnection"], ended
                assert (await page.evaluate("window.callPage.ofType('ended')"))[0]["endResult"] == "completed"
                errors = await page.evaluate("window.callPage.errors")
                assert not errors, (who, errors)
            # The server's STOPPED / UNPUBLISHED of the handles the SDK closed already end nothing more.
            for who, page in (("alice", alice), ("bob", bob)):
                await poll(page, "window.callPage.state()", lambda s: s["openStreams"] == 0, WAIT,
                           f"{who}'s streams all closed")
            await alice.screenshot(path=str(artifacts / "calls-chromium-alice.png"))
        finally:
            await browser.close()
            uncaught = [line for line in console if "pageerror" in line]
            if console:
                print("chromium console:", *console[-30:], sep="\n  ")

    assert not uncaught, uncaught

    # The call log, as the admin API shows it.
    token = admin_token(server)

    async def logged():
        status, _, body = await http(server, "GET", "/api/v1/calls?user=alice", token)
        assert status == 200, (status, body)
        return next((c for c in body["calls"] if c["callId"] == call_id), None)

    deadline = time.monotonic() + WAIT
    record = await logged()
    while (record is None or record["endResult"] is None) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
        record = await logged()
    assert record is not None, "the call is not in GET /api/v1/calls?user=alice"
    assert (record["caller"], record["callee"], record["endResult"], record["endedBy"]) == \
        ("alice", "bob", "completed", "alice"), record
    window_ms = (hung_up_at - accepted_at) * 1000
    assert record["durationMs"] > 0, record
    assert abs(record["durationMs"] - window_ms) < DURATION_TOLERANCE_MS, (record, window_ms)

    figures({"setupMs": setup_ms, "held": held, "durationMs": record["durationMs"],
             "acceptToHangupMs": round(window_ms),
             "decodedAtStart": {"alice": alice_in, "bob": bob_in}})
    print("call log record:", json.dumps(record, sort_keys=True))


def test_demo_calls_tab_click_through(server, artifacts):
    """The demo page's Calls tab, in two pages, through its own controls: connect as a user,
    call, accept from the banner, see the other side's video, hang up, read the call log."""
    asyncio.run(_demo_calls(server, artifacts))


REMOTE_VIDEO_SIZE = "(() => { const v = document.getElementById('callRemoteVideo'); return v.videoWidth; })()"


async def _demo_user(browser, server, user: str, console: list):
    context = await browser.new_context(viewport={"width": 1280, "height": 980})
    page = await context.new_page()
    page.on("console", lambda m: console.append(f"{user} {m.type}: {m.text}"))
    page.on("pageerror", lambda e: console.append(f"{user} pageerror: {e}"))
    await page.goto(server.http_url + "/")
    await page.fill("#appKey", "callApp")
    await page.click(".tabs .tab[data-tab=calls]")
    assert await page.is_hidden("#publishPanel") and await page.is_visible("#callPanel")
    await page.fill("#callUser", user)
    await page.click("#callConnectBtn")
    await poll(page, "window.demoCalls.session && window.demoCalls.session.identity", lambda u: u == user,
               WAIT, f"{user}'s calls session")
    return page


async def _demo_calls(server, artifacts):
    console = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            alice = await _demo_user(browser, server, "alice", console)
            bob = await _demo_user(browser, server, "bob", console)
            await alice.fill("#callTo", "bob")
            await alice.click("#callBtn")
            await bob.wait_for_selector("#incomingCall:not([hidden])", timeout=WAIT * 1000)
            assert "alice is calling" in await bob.text_content("#incomingText")
            await bob.click("#acceptBtn")
            for who, page in (("alice", alice), ("bob", bob)):
                await poll(page, REMOTE_VIDEO_SIZE, lambda w: w and w > 0, WAIT, f"{who}'s remote video")
                assert await page.text_content("#callStatus") == "connected"
            await alice.screenshot(path=str(artifacts / "calls-demo-alice.png"))
            await bob.click("#hangupBtn")
            for who, page in (("alice", alice), ("bob", bob)):
                await poll(page, "document.getElementById('callLine').textContent",
                           lambda t: t.startswith("Call ended: completed"), WAIT, f"{who}'s end")
                entry = await poll(page, "(document.querySelector('#callLog li') || {}).textContent || ''",
                                   lambda t: "completed" in t, WAIT, f"{who}'s call log entry")
                assert ("→ bob" if who == "alice" else "← alice") in entry, entry
            errors = await alice.evaluate("window.demo.log.filter((e) => e.kind === 'error').map((e) => e.text)")
            errors += await bob.evaluate("window.demo.log.filter((e) => e.kind === 'error').map((e) => e.text)")
            assert not errors, errors
        finally:
            await browser.close()
            if console:
                print("chromium console:", *console[-30:], sep="\n  ")
    uncaught = [line for line in console if "pageerror" in line]
    assert not uncaught, uncaught
