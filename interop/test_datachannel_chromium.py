"""Data channels with headless Chromium: Chromium publishes video with a channel `chat`; a
Chromium player and an aiortc player each open `chat`. 1,000 ordered messages of mixed kinds
and sizes (0 to 64 KiB) must arrive complete, in order and byte-identical at both while video
plays, and each player's reply must reach the publisher.

The publisher sends in windows the test grants from what both players have received so far
(at most WINDOW_BYTES outstanding): the server forwards without waiting for a slow receiver
and drops what a full send buffer cannot take (docs/protocol.md section 7), so an ordered,
complete delivery to a Python (aiortc) receiver needs the sender to keep pace with it, as an
application would.
"""

import asyncio
import hashlib
import random
import time

import numpy as np

from chromium import chromium_page, wait_page_status
from datachannel_page import add_datachannel_script, another_page
from datachannel_peers import DataPlayer, play_with_channels
from sessions import open_session

STREAM = "interop-chromium-datachannel"
CAMERA_WIDTH, CAMERA_HEIGHT = 640, 480
COUNT = 1000
MAX_SIZE = 64 * 1024
WINDOW_BYTES = 512 * 1024
ALPHA = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def datachannel_message(index: int, kind: str, size: int):
    """The message `index` of the plan, as datachannel_page's api.make builds it."""
    if kind == "text":
        off = (index * 7) % 62
        return (f"i:{index}:" + (ALPHA * (size // 62 + 2))[off:off + size])[:size]
    filler = ((np.arange(max(size - 4, 0), dtype=np.uint32) * 31 + (index * 131 & 0xff)) & 0xff).astype(np.uint8)
    return (index.to_bytes(4, "big") + filler.tobytes())[:size]


def make_plan(seed: int = 20261202) -> list:
    """[(kind, size)] for COUNT messages: the edge sizes of both kinds (0, 1, 3, 4, 5, 64 KiB - 1,
    64 KiB), the rest log-uniform from 1 byte to 64 KiB, kinds mixed, in a shuffled order."""
    rng = random.Random(seed)
    plan = [(kind, size) for kind in ("text", "binary") for size in (0, 1, 3, 4, 5, MAX_SIZE - 1, MAX_SIZE)]
    plan += [(kind, size) for kind in ("text", "binary") for size in (MAX_SIZE,) * 3]
    while len(plan) < COUNT:
        size = min(MAX_SIZE, int(round(2 ** rng.uniform(0, 16))))
        plan.append((rng.choice(("text", "binary")), size))
    rng.shuffle(plan)
    return plan


def digest(message) -> tuple:
    data = message.encode() if isinstance(message, str) else bytes(message)
    return ("text" if isinstance(message, str) else "binary", len(data), hashlib.sha256(data).hexdigest())


def first_mismatch(expected: list, got: list) -> str:
    for i, (e, g) in enumerate(zip(expected, got)):
        if e != g:
            return f"message {i}: expected {e[:2]} {e[2][:12]}, got {g[:2]} {g[2][:12]}"
    return f"counts differ: expected {len(expected)}, got {len(got)}"


def percentile(values: list, p: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, int(round(p / 100 * (len(ordered) - 1)))))
    return ordered[k]


def test_datachannel_chromium(server, figures, artifacts):
    asyncio.run(_datachannel_chromium(server, figures, artifacts))


async def _video(page) -> dict:
    return await page.evaluate("window.sluice.videoStats()")


async def _wait(predicate, timeout: float, what: str, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = await predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout} s")
        await asyncio.sleep(step)


def _page_events(notes: list, kind: str) -> list:
    return [n["params"] for n in notes if n["method"] == "streamEvent" and n["params"].get("type") == kind]


async def _datachannel_chromium(server, figures, artifacts):
    plan = make_plan()
    expected = [digest(datachannel_message(i, kind, size)) for i, (kind, size) in enumerate(plan)]
    console = []
    player_client = None
    aio = None
    try:
        async with chromium_page(console) as pub:
            await add_datachannel_script(pub)
            published = await pub.evaluate(
                "([url, stream, w, h]) => window.sluice.publish(url, stream, w, h)",
                [server.ws_url, STREAM, CAMERA_WIDTH, CAMERA_HEIGHT])
            pub_handle = published["handle"]
            await wait_page_status(pub, "PUBLISHING", 15)
            await _wait(lambda: pub.evaluate("window.dc.state() === 'open'"), 15, "open channel at the publisher")

            # The Chromium player: a second page in the same browser.
            cplay = await another_page(pub, console, "player: ")
            played = await cplay.evaluate("([url, stream]) => window.sluice.play(url, stream)", [server.ws_url, STREAM])
            await wait_page_status(cplay, "PLAYING", 15)

            # The aiortc player.
            player_client = await open_session(server.ws_url)
            aio = DataPlayer(labels=("chat",))
            chat = aio.channels["chat"]
            aio_wall = []  # time.time() of each message, beside ChannelLog's monotonic times
            chat.channel.on("message", lambda data: aio_wall.append(time.time()))
            aio_handle = await play_with_channels(player_client, STREAM, aio)
            await player_client.wait_status(aio_handle, "PLAYING", 15)

            # Both players' channels are open, at their end and at the server's.
            await _wait(lambda: cplay.evaluate("window.dc.state() === 'open'"), 15, "open channel at the Chromium player")
            await chat.wait_open(15)

            async def server_opened_chromium():
                return _page_events(await cplay.evaluate("window.sluice.notes"), "dataChannelOpened")
            opened = await _wait(server_opened_chromium, 15, "dataChannelOpened for the Chromium player")
            assert opened[0]["data"]["label"] == "chat", opened
            event = await player_client.wait_notification(
                lambda n: n.method == "streamEvent" and n.params.get("handle") == aio_handle
                and n.params.get("type") == "dataChannelOpened", 15, "dataChannelOpened for the aiortc player")
            assert event.params["data"]["label"] == "chat", event.params
            assert _page_events(await pub.evaluate("window.sluice.notes"), "dataChannelOpened"), \
                "the publisher got no dataChannelOpened"

            # Video plays at both players before the messages start.
            await _wait(lambda: _decoded(cplay, 10), 20, "10 decoded frames at the Chromium player")
            await aio.wait_frames(10, 20)
            chrome_frames_before = (await _video(cplay))["inbound"]["framesDecoded"]
            aio_frames_before = len(aio.frames)

            # 1,000 messages, in windows granted from what both players have received.
            await pub.evaluate("(plan) => window.dc.setPlan(plan)", [list(p) for p in plan])
            wire = [size + 64 for _, size in plan]  # a message's room in the window, with headers
            sent = 0
            deadline = time.monotonic() + 40
            windows = 0
            while True:
                chrome_count = await cplay.evaluate("window.dc.count()")
                done = min(chrome_count, len(chat.received))
                if done >= COUNT:
                    break
                if time.monotonic() > deadline:
                    raise AssertionError(f"after 40 s the Chromium player has {chrome_count}, the aiortc "
                                         f"player {len(chat.received)} of {COUNT} messages (sent {sent}); "
                                         f"server events: {await _drops(pub, cplay, player_client)}")
                allowed, room = done, 0
                while allowed < COUNT and (allowed == done or room + wire[allowed] <= WINDOW_BYTES):
                    room += wire[allowed]
                    allowed += 1
                if allowed > sent:
                    await pub.evaluate("([a, b]) => window.dc.sendRange(a, b)", [sent, allowed])
                    sent = allowed
                    windows += 1
                else:
                    await asyncio.sleep(0.005)
            sent_at = await pub.evaluate("window.dc.sentAt")
            chrome_got = await cplay.evaluate("window.dc.digests()")
            aio_got = [digest(r.data) for r in chat.received]

            # Complete, in order, byte-identical, at both players.
            chrome_digests = [(g["kind"], g["size"], g["sha256"]) for g in chrome_got]
            assert len(chrome_digests) == COUNT, first_mismatch(expected, chrome_digests)
            assert chrome_digests == expected, "Chromium player: " + first_mismatch(expected, chrome_digests)
            assert len(aio_got) == COUNT, first_mismatch(expected, aio_got)
            assert aio_got == expected, "aiortc player: " + first_mismatch(expected, aio_got)

            # Video went on meanwhile, at both.
            chrome_frames_after = await _wait(lambda: _decoded(cplay, chrome_frames_before + 5), 10,
                                              "more decoded frames at the Chromium player")
            await aio.wait_frames(aio_frames_before + 5, 10)
            pub_video = await _video(pub)

            # The server's count of what the publisher sent on `chat`.
            stats = await pub.evaluate("(h) => window.sluice.call('getStats', {handle: h})", pub_handle)
            channels = [c for c in stats.get("dataChannels", []) if c.get("label") == "chat"]
            assert len(channels) == 1, stats.get("dataChannels")
            assert channels[0]["messagesReceived"] == COUNT, channels[0]
            assert channels[0]["bytesReceived"] == sum(size for _, size in plan), channels[0]
            assert channels[0]["messagesDropped"] == 0, channels[0]
            drops = await _drops(pub, cplay, player_client)
            assert not drops, drops

            # Each player's reply reaches the publisher.
            before = await pub.evaluate("window.dc.count()")
            chrome_reply_at = await cplay.evaluate("window.dc.send('reply from chromium')")
            aio_reply_at = time.time()
            chat.channel.send("reply from aiortc")
            replies = await _wait(lambda: _texts_when(pub, before, 2), 10, "two replies at the publisher")
            texts = sorted(r["text"] for r in replies)
            assert texts == ["reply from aiortc", "reply from chromium"], replies
            reply_ms = {r["text"].split()[-1]: r["at"] - (chrome_reply_at if "chromium" in r["text"] else aio_reply_at * 1000)
                        for r in replies}
            stats = await pub.evaluate("(h) => window.sluice.call('getStats', {handle: h})", pub_handle)
            pub_chat = [c for c in stats["dataChannels"] if c["label"] == "chat"][0]
            assert pub_chat["messagesSent"] == 2, pub_chat
            # And the server's count at each player: all 1,000 sent, none dropped, the reply taken.
            chrome_stats = await cplay.evaluate("(h) => window.sluice.call('getStats', {handle: h})", played["handle"])
            aio_stats = await player_client.get_stats(aio_handle)
            for name, player_stats in (("Chromium player", chrome_stats), ("aiortc player", aio_stats)):
                chats = [c for c in player_stats.get("dataChannels", []) if c.get("label") == "chat"]
                assert len(chats) == 1, (name, player_stats.get("dataChannels"))
                assert (chats[0]["messagesSent"], chats[0]["bytesSent"], chats[0]["messagesDropped"],
                        chats[0]["messagesReceived"]) == (COUNT, sum(size for _, size in plan), 0, 1), (name, chats[0])

            # Figures.
            chrome_lat = [g["at"] - sent_at[i] for i, g in enumerate(chrome_got)]
            aio_lat = [aio_wall[i] * 1000 - sent_at[i] for i in range(COUNT)]
            started = sent_at[0] / 1000
            chrome_done = chrome_got[-1]["at"] / 1000 - started
            aio_done = aio_wall[-1] - started
            total_bytes = sum(size for _, size in plan)
            await cplay.screenshot(path=str(artifacts / "chromium-datachannel-player.png"))
            figures({
                "messages": COUNT, "bytes": total_bytes, "windowBytes": WINDOW_BYTES, "windows": windows,
                "chromiumPlayerDeliverS": round(chrome_done, 3),
                "aiortcPlayerDeliverS": round(aio_done, 3),
                "chromiumPlayerMessagesPerS": round(COUNT / chrome_done, 1),
                "aiortcPlayerMessagesPerS": round(COUNT / aio_done, 1),
                "chromiumPlayerMiBPerS": round(total_bytes / chrome_done / 2**20, 2),
                "aiortcPlayerMiBPerS": round(total_bytes / aio_done / 2**20, 2),
                "chromiumLatencyMs": {"p50": percentile(chrome_lat, 50), "p99": percentile(chrome_lat, 99),
                                      "max": max(chrome_lat)},
                "aiortcLatencyMs": {"p50": round(percentile(aio_lat, 50), 1), "p99": round(percentile(aio_lat, 99), 1),
                                    "max": round(max(aio_lat), 1)},
                "replyToPublisherMs": {k: round(v, 1) for k, v in reply_ms.items()},
                "framesDecodedDuring": {"chromium": chrome_frames_after - chrome_frames_before,
                                        "aiortc": len(aio.frames) - aio_frames_before},
                "publisherOutbound": pub_video.get("outbound"),
                "serverPublisherChat": {k: pub_chat[k] for k in ("messagesReceived", "bytesReceived",
                                                                 "messagesSent", "messagesDropped")},
            })
            assert not aio.errors, aio.errors
            for name, page in (("publisher", pub), ("Chromium player", cplay)):
                assert await page.evaluate("window.dc.errors") == [], (name, "channel errors")
    finally:
        if aio is not None:
            await aio.close()
        if player_client is not None:
            await player_client.close()
        if console:
            print("chromium console:", *console[-30:], sep="\n  ")


async def _decoded(page, at_least: int):
    inbound = (await _video(page)).get("inbound")
    frames = inbound["framesDecoded"] if inbound else 0
    return frames if frames >= at_least else 0


async def _texts_when(page, start: int, count: int):
    texts = await page.evaluate("(from) => window.dc.texts(from)", start)
    return texts if len(texts) >= count else None


async def _drops(pub, cplay, player_client) -> list:
    """Every dataDropped any of the three sessions was told of."""
    out = []
    for name, page in (("publisher", pub), ("chromium player", cplay)):
        out += [(name, e) for e in _page_events(await page.evaluate("window.sluice.notes"), "dataDropped")]
    out += [("aiortc player", n.params) for n in player_client.notifications
            if n.method == "streamEvent" and n.params.get("type") == "dataDropped"]
    return out
