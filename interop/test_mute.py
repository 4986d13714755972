"""Mute and unmute: by the publisher for every player, by a player for itself (aiortc peers)."""

import asyncio
import time

from polling import growth_while_quiet
from sessions import close_all, play, publish



def _events(client, handle, type_):
    return [n.params for n in client.notifications
            if n.method == "streamEvent" and n.params.get("handle") == handle and n.params.get("type") == type_]


async def _wait_event(client, handle, type_, by, timeout=5.0):
    return await client.wait_notification(
        lambda n: n.method == "streamEvent" and n.params.get("handle") == handle
        and n.params.get("type") == type_ and n.params.get("by") == by, timeout, f"streamEvent {type_} by {by}")



def test_publisher_mute_and_unmute(server, figures):
    asyncio.run(_publisher_mute(server, figures))


async def _publisher_mute(server, figures):
    stream = "mute-publisher"
    pub = a = b = None
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        a = await play(server.ws_url, stream)
        b = await play(server.ws_url, stream)
        for p in (a, b):
            await p.client.wait_status(p.handle, "PLAYING", 15)
            await p.peer.wait_frames(10, 15)

        # Video muted by the publisher: every player stops decoding, and everyone is told.
        await pub.client.call("mute", {"handle": pub.handle, "kind": "video"})
        await _wait_event(pub.client, pub.handle, "videoMuted", "publisher")
        for p in (a, b):
            await _wait_event(p.client, p.handle, "videoMuted", "publisher")
        for p in (a, b):
            grew = await growth_while_quiet(lambda p=p: len(p.peer.frames))
            assert grew == 0, f"a player decoded {grew} frames while the video was muted"
        # Audio kept flowing.
        audio_before = a.peer.audio_frames
        await asyncio.sleep(0.5)
        assert a.peer.audio_frames > audio_before, "audio stopped with a video mute"

        # Unmute: video resumes on a key frame, frames in order.
        counts = [len(p.peer.frames) for p in (a, b)]
        unmuted_at = time.monotonic()
        await pub.client.call("unmute", {"handle": pub.handle, "kind": "video"})
        resume_ms = []
        for p, n in zip((a, b), counts):
            await _wait_event(p.client, p.handle, "videoUnmuted", "publisher")
            await p.peer.wait_frames(n + 1, 10)
            resume_ms.append(round((p.peer.frames[n].at - unmuted_at) * 1000, 1))
            await p.peer.wait_frames(n + 20, 10)
            numbers = [f.number for f in p.peer.frames[n:] if f.number is not None]
            assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers), \
                f"frames after unmute are out of order: {numbers[:40]}"
        figures({"unmuteToFirstFrameMs": resume_ms})
        assert max(resume_ms) < 2000, f"video took {resume_ms} ms to resume after unmute"

        # Audio mute by the publisher stops audio for everyone.
        await pub.client.call("mute", {"handle": pub.handle, "kind": "audio"})
        await _wait_event(a.client, a.handle, "audioMuted", "publisher")
        grew = await growth_while_quiet(lambda: a.peer.audio_frames)
        assert grew == 0, f"{grew} audio frames arrived while audio was muted"
        await pub.client.call("unmute", {"handle": pub.handle, "kind": "audio"})
        await _wait_event(a.client, a.handle, "audioUnmuted", "publisher")
        before = a.peer.audio_frames
        await asyncio.sleep(1.0)
        assert a.peer.audio_frames > before, "audio did not resume"
    finally:
        await close_all(pub, a, b)


def test_player_mutes_only_itself(server):
    asyncio.run(_player_mute(server))


async def _player_mute(server):
    stream = "mute-player"
    pub = a = b = None
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        a = await play(server.ws_url, stream)
        b = await play(server.ws_url, stream)
        for p in (a, b):
            await p.peer.wait_frames(10, 15)

        await b.client.call("mute", {"handle": b.handle, "kind": "video"})
        await _wait_event(b.client, b.handle, "videoMuted", "player")
        a_before = len(a.peer.frames)
        grew = await growth_while_quiet(lambda: len(b.peer.frames))
        assert grew == 0, f"the muted player decoded {grew} frames"
        assert len(a.peer.frames) > a_before + 20, "the other player stopped too"
        assert not _events(a.client, a.handle, "videoMuted"), "the other player was told of a mute"
        assert not _events(pub.client, pub.handle, "videoMuted"), "the publisher was told of a player's mute"

        n = len(b.peer.frames)
        await b.client.call("unmute", {"handle": b.handle, "kind": "video"})
        await _wait_event(b.client, b.handle, "videoUnmuted", "player")
        await b.peer.wait_frames(n + 20, 10)
    finally:
        await close_all(pub, a, b)
