"""Headless Chromium against the server, with aiortc at the other end."""

import asyncio

from chromium import chromium_page, poll_inbound, wait_page_status
from sessions import close_all, play, publish
from test_admin_api import admin_token, http

CAMERA_WIDTH, CAMERA_HEIGHT = 640, 480


def test_chromium_publishes_aiortc_plays(server, figures, artifacts):
    asyncio.run(_chromium_publishes(server, figures, artifacts))


async def _chromium_publishes(server, figures, artifacts):
    stream = "interop-chromium-camera"
    console = []
    player = None
    try:
        async with chromium_page(console) as page:
            published = await page.evaluate(
                "([url, stream, w, h]) => window.sluice.publish(url, stream, w, h)",
                [server.ws_url, stream, CAMERA_WIDTH, CAMERA_HEIGHT])
            assert (published["width"], published["height"]) == (CAMERA_WIDTH, CAMERA_HEIGHT), published
            await wait_page_status(page, "PUBLISHING", 15)

            player = await play(server.ws_url, stream)
            await player.client.wait_status(player.handle, "PLAYING", 15)
            camera_size = lambda f: (f.width, f.height) == (CAMERA_WIDTH, CAMERA_HEIGHT)
            frames = await player.peer.wait_frames(30, 20, camera_size)
            chrome_stats = await page.evaluate("window.sluice.videoStats()")
            levels = await _audio_levels(server, stream)
            await page.screenshot(path=str(artifacts / "chromium-publishes.png"))
            figures({
                "playToFirstFrameMs": round((player.peer.frames[0].at - player.requested_at) * 1000, 1),
                "framesDecoded": len(player.peer.frames),
                "framesAtCameraSize": len(frames),
                "sizes": sorted({f"{f.width}x{f.height}" for f in player.peer.frames}),
                "chromiumOutbound": chrome_stats.get("outbound"),
                "publisherAudioLevels": levels,
            })
            assert not player.peer.errors, player.peer.errors
            # Chromium sends the audio level extension, and its fake microphone beeps.
            assert all(-127 <= level <= 0 for level in levels), levels
            assert max(levels) > -127, f"the publisher's audio level never rose above silence: {levels}"
    finally:
        await close_all(player)
        if console:
            print("chromium console:", *console[-20:], sep="\n  ")


async def _audio_levels(server, stream: str, samples: int = 15) -> list[float]:
    """The publisher's `audio.level` in the admin API's stream view, every 200 ms."""
    levels = []
    for _ in range(samples):
        status, _, body = await http(server, "GET", f"/api/v1/streams/{stream}", admin_token(server))
        assert status == 200, f"GET stream answered {status} {body!r}"
        audio = (body.get("publisher") or {}).get("audio") or {}
        assert "level" in audio, f"no audio level in the publisher's stats: {audio}"
        levels.append(audio["level"])
        await asyncio.sleep(0.2)
    return levels


def test_chromium_plays_aiortc(server, figures, artifacts):
    asyncio.run(_chromium_plays(server, figures, artifacts))


async def _chromium_plays(server, figures, artifacts):
    stream = "interop-aiortc-to-chromium"
    console = []
    pub = None
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        async with chromium_page(console) as page:
            await page.evaluate("([url, stream]) => window.sluice.play(url, stream)", [server.ws_url, stream])
            await wait_page_status(page, "PLAYING", 15)
            first = await poll_inbound(page, lambda s: s["framesDecoded"] > 0, 20, "decoded frame")
            timing = await page.evaluate("window.sluice.playTiming()")
            later = await poll_inbound(page, lambda s: s["framesDecoded"] >= first["framesDecoded"] + 30,
                                        20, "30 more decoded frames")
            await page.screenshot(path=str(artifacts / "chromium-plays.png"))
            figures({**timing, "inbound": later})
            assert timing["playToAnswerMs"] <= timing["playToPlayingMs"] <= timing["playToFirstDecodedMs"], timing
            assert (later["frameWidth"], later["frameHeight"]) == (640, 480), later
    finally:
        await close_all(pub)
        if console:
            print("chromium console:", *console[-20:], sep="\n  ")
