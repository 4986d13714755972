"""An SVC player (AV1 or VP9 `L3T3_KEY`) whose receive bandwidth is capped drops to a lower
spatial layer of the one encoding, and climbs back when the cap is lifted (quality "auto"): the
same choice as among simulcast layers (test_bandwidth.py), made among the spatial layers the
dependency descriptor names, each priced at what its decode target measured.

The player's Chromium runs in a network namespace of its own (shaped_link.py); `tc` caps what
the server sends it over UDP at 250 kbit/s, below the top layer (about 1.6 Mbit/s of the busy
picture) and the middle one (about 300 kbit/s), above the lowest (about 90 kbit/s).
"""

import asyncio
import time

import pytest
from playwright.async_api import async_playwright

from chromium import CHROMIUM, CHROMIUM_ARGS, PAGE_URL
from polling import poll
from shaped_link import ShapedLink
from svc_page import SVC_SCRIPT

NETNS = "sluice-svc-player"
SERVER_ADDR = "127.0.0.2"
PLAYER_ADDR = "127.0.0.3"
CAP = "250kbit"
AV1 = "video/AV1"
LINK = ShapedLink(netns=NETNS, server_dev="sl-svc-srv", peer_dev="sl-svc-ply",
                  server_addr=SERVER_ADDR, peer_addr=PLAYER_ADDR)


@pytest.fixture
def player_namespace():
    LINK.up()
    try:
        yield
    finally:
        LINK.down()


@pytest.fixture
def server_config_overrides(player_namespace):
    return {"server": {"host": SERVER_ADDR},
            "rtc": {"bindAddress": SERVER_ADDR, "announcedAddresses": [SERVER_ADDR]}}


async def _page(p, executable):
    browser = await p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
    page = await browser.new_page()
    await page.route(PAGE_URL, lambda route: route.fulfill(
        status=200, content_type="text/html", body="<!doctype html><title>sluice</title><body></body>"))
    await page.goto(PAGE_URL)
    await page.evaluate(SVC_SCRIPT)
    return browser, page


@pytest.mark.parametrize("mime", [AV1, "video/VP9"])
def test_capped_svc_player_drops_a_spatial_layer_and_climbs_back(server, figures, tmp_path, mime):
    asyncio.run(_capped_svc_player(server, figures, tmp_path, mime))


async def _capped_svc_player(server, figures, tmp_path, mime):
    stream = "svc-bandwidth"
    changes = "window.svc.events('p').filter((e) => e.params.type === 'layerChanged').map((e) => e.params.data)"
    async with async_playwright() as p:
        publisher_browser, publisher = await _page(p, CHROMIUM)
        player_browser, player = await _page(p, LINK.launcher(tmp_path))
        try:
            if not await publisher.evaluate("([m, mode]) => window.svc.canSend(m, mode)", [mime, "L3T3_KEY"]):
                pytest.skip(f"this Chromium cannot send {mime} L3T3_KEY")
            await publisher.evaluate("([url, stream, mime, mode]) => window.svc.publish(url, stream, mime, mode)",
                                     [server.ws_url, stream, mime, "L3T3_KEY"])
            await player.evaluate("([url, stream, mime]) => window.svc.play(url, stream, 'p', {video: {quality: 'auto'}}, mime)",
                                  [server.ws_url, stream, mime])
            await poll(player, "window.svc.inbound('p')", lambda s: s["frameWidth"] == 1280, 40,
                       "the top spatial layer before the cap")

            LINK.cap_udp("down", CAP, burst="20kb", latency="100ms")
            capped_at = time.monotonic()
            await poll(player, changes, lambda c: any(d["reason"] == "bandwidth" and d["width"] <= 640 for d in c),
                       60, f"a layerChanged for bandwidth to a lower spatial layer under a {CAP} cap")
            drop_s = round(time.monotonic() - capped_at, 1)
            low = await poll(player, "window.svc.inbound('p')", lambda s: 0 < s["frameWidth"] <= 640, 20,
                             "frames of the lower spatial layer")
            LINK.uncap("down")
            lifted_at = time.monotonic()
            await poll(player, "window.svc.inbound('p')", lambda s: s["frameWidth"] == 1280, 90,
                       "the top spatial layer again after the cap was lifted")
            climb_s = round(time.monotonic() - lifted_at, 1)
            final = await player.evaluate("window.svc.inbound('p')")
            figures({"cap": CAP, "capToLowerLayerS": drop_s, "liftToTopLayerS": climb_s, "whileCapped": low,
                     "final": final, "layerChanged": await player.evaluate(changes)})
            assert final["framesDecoded"] > low["framesDecoded"], "no frames after the climb"
        finally:
            LINK.uncap("down")
            await player_browser.close()
            await publisher_browser.close()
