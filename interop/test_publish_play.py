"""Publish and play end to end with aiortc peers on both sides (docs/protocol.md section 1)."""

import asyncio
import time

from media import Player, Publisher
from rpc_assert import expect_rpc_error
from sessions import close_all, open_session, play, publish

WIDTH, HEIGHT = 640, 480
WINDOW_SECONDS = 5.0
MIN_DECODED_SHARE = 0.9


def strictly_increasing(numbers: list[int]) -> bool:
    return all(b > a for a, b in zip(numbers, numbers[1:]))


def test_aiortc_publish_two_players(server, figures):
    asyncio.run(_publish_two_players(server, figures))


async def _publish_two_players(server, figures):
    stream = "interop-two-players"
    pub, players = None, []
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PENDING", 10)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        assert pub.client.statuses(pub.handle)[:2] == ["PENDING", "PUBLISHING"], pub.client.statuses(pub.handle)

        for _ in range(2):
            players.append(await play(server.ws_url, stream))
        # Where the time from play to the first decoded frame goes: the answer, then ICE and
        # DTLS until the server sends the first packet (PLAYING), then the key frame.
        first_frame_ms, answer_ms, playing_ms = [], [], []
        for p in players:
            playing = await p.client.wait_status(p.handle, "PLAYING", 15)
            assert p.client.statuses(p.handle)[:2] == ["PENDING", "PLAYING"], p.client.statuses(p.handle)
            first = (await p.peer.wait_frames(1, 15, lambda f: f.number is not None))[0]
            first_frame_ms.append(round((first.at - p.requested_at) * 1000, 1))
            answer_ms.append(round((p.answered_at - p.requested_at) * 1000, 1))
            playing_ms.append(round((playing.received_at - p.requested_at) * 1000, 1))

        # The window: every frame the publisher hands its encoder during WINDOW_SECONDS.
        n0 = pub.peer.video.last_sent() + 1
        audio_before = [p.peer.audio_frames for p in players]
        await asyncio.sleep(WINDOW_SECONDS)
        n1 = pub.peer.video.last_sent()
        sent = n1 - n0 + 1
        assert sent > 0, "the publisher sent no frame in the window"
        # Frames decode in order, so once a player shows n1 (or later) anything missing is lost.
        for p in players:
            try:
                await p.peer.wait_frames(1, 10, lambda f: f.number is not None and f.number >= n1)
            except AssertionError:
                pass  # counted as missing below
        audio_after = [p.peer.audio_frames for p in players]

        results = []
        for i, p in enumerate(players):
            numbers = p.peer.numbers()
            in_window = {n for n in numbers if n0 <= n <= n1}
            sizes = {(f.width, f.height) for f in p.peer.frames}
            results.append({
                "player": i,
                "playToAnswerMs": answer_ms[i],
                "playToPlayingMs": playing_ms[i],
                "playToFirstFrameMs": first_frame_ms[i],
                "framesSentInWindow": sent,
                "framesDecodedInWindow": len(in_window),
                "decodedShare": round(len(in_window) / sent, 3),
                "unreadableFrames": sum(1 for f in p.peer.frames if f.number is None),
                "audioFramesInWindow": audio_after[i] - audio_before[i],
                "sizes": sorted(f"{w}x{h}" for w, h in sizes),
            })
        figures({"players": results})

        for i, p in enumerate(players):
            numbers = p.peer.numbers()
            assert strictly_increasing(numbers), f"player {i} decoded frames out of order: {numbers}"
            assert {(f.width, f.height) for f in p.peer.frames} == {(WIDTH, HEIGHT)}, \
                f"player {i} decoded sizes {results[i]['sizes']}, sent {WIDTH}x{HEIGHT}"
            assert results[i]["decodedShare"] >= MIN_DECODED_SHARE, \
                f"player {i} decoded {results[i]['framesDecodedInWindow']} of {sent} frames sent in the window"
            # 20 ms Opus frames: about 250 in the window; demand well over a third of them.
            assert results[i]["audioFramesInWindow"] >= 100, \
                f"player {i} received {results[i]['audioFramesInWindow']} audio frames in the window"
            assert not p.peer.errors, f"player {i} errors: {p.peer.errors}"

        # Stats from the player's receiver reports, and the quality they score on loopback.
        for i, p in enumerate(players):
            event = await p.client.wait_notification(
                lambda n: n.method == "streamEvent" and n.params.get("type") == "connectionQuality", 10,
                "streamEvent connectionQuality")
            assert event.params["data"]["level"] in ("excellent", "good"), event.params
            stats = await p.client.get_stats(p.handle)
            assert stats["video"]["packets"] > 100 and stats["audio"]["packets"] > 100, stats
            # What this player is sent, and the stream's layers as the publisher's stats show them.
            assert stats["video"]["fps"] > 5, stats
            assert [(l["width"], l["height"], l["active"]) for l in stats["video"]["layers"]] == \
                [(WIDTH, HEIGHT, True)], stats
            assert stats["connectionQuality"]["level"] in ("excellent", "good"), stats
            assert 1.0 <= stats["connectionQuality"]["score"] <= 4.5, stats
        pub_stats = await pub.client.get_stats(pub.handle)
        assert pub_stats["video"]["width"] == WIDTH and pub_stats["video"]["height"] == HEIGHT, pub_stats
        assert pub_stats["video"]["keyFrames"] >= 1 and pub_stats["video"]["codec"].upper() == "VP8", pub_stats
        assert pub_stats["video"]["layer"] == 0 and len(pub_stats["video"]["layers"]) == 1, pub_stats
    finally:
        await close_all(*players, pub)


def test_unpublished_on_stop(server, figures):
    asyncio.run(_unpublished_on_stop(server, figures))


async def _unpublished_on_stop(server, figures):
    stream = "interop-stop"
    pub, players = None, []
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        for _ in range(2):
            players.append(await play(server.ws_url, stream))
        for p in players:
            await p.client.wait_status(p.handle, "PLAYING", 15)
            await p.peer.wait_frames(1, 15, lambda f: f.number is not None)

        stop_sent = time.monotonic()
        assert await pub.client.stop(pub.handle) == {}
        delays = []
        for i, p in enumerate(players):
            note = await p.client.wait_status(p.handle, "UNPUBLISHED", 10)
            assert note.params.get("info") == "Stopped by publisher stop", f"player {i}: {note.params}"
            assert note.params.get("role") == "play" and note.params.get("stream") == stream, note.params
            delays.append(round((note.received_at - stop_sent) * 1000, 1))
        own = await pub.client.wait_status(pub.handle, "UNPUBLISHED", 10)
        assert own.params.get("info") == "Stopped by user", own.params
        assert own.params.get("role") == "publish", own.params
        figures({"stopToPlayerUnpublishedMs": delays,
                 "stopToPublisherUnpublishedMs": round((own.received_at - stop_sent) * 1000, 1)})
        for i, delay in enumerate(delays):
            assert delay <= 1000, f"player {i} got UNPUBLISHED {delay} ms after stop; the promise is 1 s"

        # Without wait, a play handle ends with its stream.
        for p in players:
            await expect_rpc_error(p.client.stop(p.handle), 1007, "UNKNOWN_HANDLE")
        # The name is free again.
        again = await publish(server.ws_url, stream)
        players.append(again)
        await again.client.wait_status(again.handle, "PUBLISHING", 15)
    finally:
        await close_all(*players, pub)


def test_wait_play_resumes(server, figures):
    asyncio.run(_wait_play_resumes(server, figures))


async def _wait_play_resumes(server, figures):
    stream = "interop-wait"
    second_first_number = 20000
    player = pub1 = pub2 = None
    try:
        player = await play(server.ws_url, stream, wait=True)
        await player.client.wait_status(player.handle, "PENDING", 10)
        await asyncio.sleep(1.5)
        assert "PLAYING" not in player.client.statuses(player.handle), player.client.statuses(player.handle)
        assert not player.peer.frames, "decoded video with nobody publishing"
        waiting = await player.client.get_stats(player.handle)
        assert waiting["role"] == "play" and waiting["video"]["packets"] == 0, waiting
        assert set(waiting["connectionQuality"]) == {"score", "level"}, waiting

        pub1 = await publish(server.ws_url, stream)
        await pub1.client.wait_status(pub1.handle, "PUBLISHING", 15)
        await player.client.wait_status(player.handle, "PLAYING", 15)
        await player.peer.wait_frames(30, 15, lambda f: f.number is not None and f.number < second_first_number)

        assert await pub1.client.stop(pub1.handle) == {}
        note = await player.client.wait_status(player.handle, "UNPUBLISHED", 10)
        assert note.params.get("info") == "Stopped by publisher stop", note.params

        # Another session publishes under the name; its frames are numbered from 20000.
        pub2 = await publish(server.ws_url, stream, first_number=second_first_number)
        await pub2.client.wait_status(pub2.handle, "PUBLISHING", 15)
        resumed = await player.client.wait_status(player.handle, "PLAYING", 15)
        frames = await player.peer.wait_frames(
            30, 15, lambda f: f.number is not None and f.number >= second_first_number)
        figures({"republishToFirstFrameMs": round((frames[0].at - resumed.received_at) * 1000, 1),
                 "statuses": player.client.statuses(player.handle)})
        numbers = player.peer.numbers()
        assert all(b > a for a, b in zip(numbers, numbers[1:])), f"frames out of order: {numbers}"
        assert {(f.width, f.height) for f in player.peer.frames} == {(WIDTH, HEIGHT)}
    finally:
        await close_all(player, pub2, pub1)


def test_name_in_use_and_not_found(server):
    asyncio.run(_name_in_use_and_not_found(server))


async def _name_in_use_and_not_found(server):
    stream = "interop-in-use"
    first = second = None
    rival, listener = Publisher(), Player()
    try:
        first = await publish(server.ws_url, stream)
        second = await open_session(server.ws_url)
        offer = await rival.offer()
        await expect_rpc_error(second.publish(stream, offer), 1003, "STREAM_NAME_IN_USE",
                               "Stream name is already in use")
        await first.client.wait_status(first.handle, "PUBLISHING", 15)
        await expect_rpc_error(second.publish(stream, offer), 1003, "STREAM_NAME_IN_USE",
                               "Stream name is already in use")

        player_offer = await listener.offer()
        await expect_rpc_error(second.play("nobody-publishes-this", player_offer), 1004,
                               "STREAM_NOT_FOUND", "Stream not found")
        assert await second.ping() == {}
        assert first.client.statuses(first.handle)[-1] == "PUBLISHING", first.client.statuses(first.handle)
    finally:
        await rival.close()
        await listener.close()
        if second is not None:
            await second.close()
        await close_all(first)
