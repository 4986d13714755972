"""Each DTLS-SRTP profile forced in turn (`rtc.srtpProfiles`), on each SRTP back end
(`rtc.srtp`): Chromium and aiortc publish and play through the server, and what they decode
is checked. Both peers report which profile DTLS-SRTP selected, so the test knows the one it
forced is the one that carried the media."""

import asyncio

import pytest

from chromium import chromium_page, poll_inbound, wait_page_status
from sessions import close_all, play, publish

WIDTH, HEIGHT = 640, 480
FRAMES = 30

# By the crypto-suite names rtc.srtpProfiles uses: the names OpenSSL gives (aiortc's DTLS
# connection reports them) and those Chromium's transport stats give (`srtpCipher`).
OPENSSL_NAMES = {"AEAD_AES_128_GCM": b"SRTP_AEAD_AES_128_GCM", "AES_CM_128_HMAC_SHA1_80": b"SRTP_AES128_CM_SHA1_80"}
CHROMIUM_NAMES = {"AEAD_AES_128_GCM": "SRTP_AEAD_AES_128_GCM", "AES_CM_128_HMAC_SHA1_80": "SRTP_AES128_CM_HMAC_SHA1_80"}
CASES = [(backend, profile) for backend in ("openssl", "libsrtp") for profile in OPENSSL_NAMES]


@pytest.fixture(params=CASES, ids=[f"{backend}-{profile}" for backend, profile in CASES])
def srtp_case(request):
    return request.param


@pytest.fixture
def server_config_overrides(srtp_case):
    backend, profile = srtp_case
    return {"rtc": {"srtp": backend, "srtpProfiles": [profile]}}


def aiortc_profile(peer) -> bytes:
    """The profile aiortc's DTLS transport selected (OpenSSL's name)."""
    transport = peer.pc.getTransceivers()[0].receiver.transport
    return transport._ssl.get_selected_srtp_profile()


def test_chromium_publishes_aiortc_plays(server, srtp_case, figures):
    asyncio.run(_chromium_publishes(server, *srtp_case, figures))


async def _chromium_publishes(server, backend, profile, figures):
    stream = f"srtp-chromium-{backend}-{profile}"
    console, player = [], None
    try:
        async with chromium_page(console) as page:
            await page.evaluate("([url, stream, w, h]) => window.sluice.publish(url, stream, w, h)",
                                [server.ws_url, stream, WIDTH, HEIGHT])
            await wait_page_status(page, "PUBLISHING", 15)
            player = await play(server.ws_url, stream)
            await player.client.wait_status(player.handle, "PLAYING", 15)
            frames = await player.peer.wait_frames(FRAMES, 20, lambda f: (f.width, f.height) == (WIDTH, HEIGHT))
            chromium_cipher = await page.evaluate("window.sluice.srtpCipher()")
            figures({"chromiumCipher": chromium_cipher, "aiortcProfile": aiortc_profile(player.peer).decode(),
                     "framesDecoded": len(player.peer.frames)})
            assert chromium_cipher == CHROMIUM_NAMES[profile]
            assert aiortc_profile(player.peer) == OPENSSL_NAMES[profile]
            assert len(frames) >= FRAMES and not player.peer.errors, player.peer.errors
    finally:
        await close_all(player)
        if console:
            print("chromium console:", *console[-20:], sep="\n  ")


def test_aiortc_publishes_chromium_plays(server, srtp_case, figures):
    asyncio.run(_chromium_plays(server, *srtp_case, figures))


async def _chromium_plays(server, backend, profile, figures):
    stream = f"srtp-aiortc-{backend}-{profile}"
    console, pub = [], None
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        async with chromium_page(console) as page:
            await page.evaluate("([url, stream]) => window.sluice.play(url, stream)", [server.ws_url, stream])
            await wait_page_status(page, "PLAYING", 15)
            inbound = await poll_inbound(page, lambda s: s["framesDecoded"] >= FRAMES, 20, f"{FRAMES} decoded frames")
            chromium_cipher = await page.evaluate("window.sluice.srtpCipher()")
            figures({"chromiumCipher": chromium_cipher, "aiortcProfile": aiortc_profile(pub.peer).decode(),
                     "inbound": inbound})
            assert chromium_cipher == CHROMIUM_NAMES[profile]
            assert aiortc_profile(pub.peer) == OPENSSL_NAMES[profile]
            assert (inbound["frameWidth"], inbound["frameHeight"]) == (WIDTH, HEIGHT), inbound
    finally:
        await close_all(pub)
        if console:
            print("chromium console:", *console[-20:], sep="\n  ")
