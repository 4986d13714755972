"""A player whose receive bandwidth is capped drops to a lower simulcast layer, and climbs back
when the cap is lifted (quality "auto").

The player's Chromium runs in a network namespace of its own, joined to the test's namespace by
a veth pair that carries only 127.0.0.x/32 addresses (IPv6 off), so every packet still goes to
127.0.0.0/8. `tc` shapes the server's side of the pair: what the server sends to the player
over UDP (`_cap_media`); shaped_link.py builds the pair and shapes it.
"""

import asyncio
import time

import pytest
from playwright.async_api import async_playwright

from chromium import CHROMIUM, CHROMIUM_ARGS, PAGE_URL
from polling import poll
from shaped_link import ShapedLink
from simulcast_page import SIMULCAST_SCRIPT
from test_admin_api import admin_token, http

NETNS = "sluice-player"
SERVER_ADDR = "127.0.0.2"
PLAYER_ADDR = "127.0.0.3"
WIDTHS = {"q": 320, "h": 640, "f": 1280}
CAP = "100kbit"  # below the lowest layer (~150 kbit/s): notEnoughBandwidth too
LINK = ShapedLink(netns=NETNS, server_addr=SERVER_ADDR, peer_addr=PLAYER_ADDR)


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


def _cap_media() -> None:
    """Caps what the server sends the player over UDP (media, RTCP, STUN, DTLS) at `CAP`.

    Signaling (TCP) goes around the cap. The cap is below even the lowest layer, so its queue
    stays full; a TCP stream through it backs its retransmissions off for tens of seconds,
    and the player's events arrive when the kernel next tries (seconds after the server's
    switch locally, and a CI run saw none in 40 s). The estimate under test is the media's.
    """
    LINK.cap_udp("down", CAP, burst="20kb", latency="100ms")


async def _page(p, executable):
    browser = await p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
    page = await browser.new_page()
    await page.route(PAGE_URL, lambda route: route.fulfill(
        status=200, content_type="text/html", body="<!doctype html><title>sluice</title><body></body>"))
    await page.goto(PAGE_URL)
    await page.evaluate(SIMULCAST_SCRIPT)
    return browser, page


async def _server_view(server, stream: str, predicate, timeout: float, what: str) -> dict:
    """The player's `video` figures from the admin API until `predicate` holds on them."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        status, _, body = await http(server, "GET", f"/api/v1/streams/{stream}", admin_token(server))
        assert status == 200, f"GET stream answered {status} {body!r}"
        players = body.get("players") or []
        last = (players[0].get("video") or {}) if players else None
        if last is not None and predicate(last):
            return {k: last.get(k) for k in ("layer", "availableBandwidth", "bitrate")}
        await asyncio.sleep(0.1)
    raise AssertionError(f"no {what} within {timeout} s; last: {last}")


def test_capped_player_drops_and_climbs_back(server, figures, tmp_path):
    asyncio.run(_capped_player(server, figures, tmp_path))


async def _capped_player(server, figures, tmp_path):
    stream = "bandwidth-auto"
    async with async_playwright() as p:
        publisher_browser, publisher = await _page(p, CHROMIUM)
        player_browser, player = await _page(p, LINK.launcher(tmp_path))
        try:
            await publisher.evaluate("([url, stream]) => window.sim.publish(url, stream)", [server.ws_url, stream])
            await poll(publisher, "window.sim.outbound()",
                        lambda o: all(o.get(r, {}).get("frameWidth") == w for r, w in WIDTHS.items()),
                        30, "three encodings at full size")
            await player.evaluate("([url, stream]) => window.sim.play(url, stream, 'p', {video: {quality: 'auto'}})",
                                  [server.ws_url, stream])
            await poll(player, "window.sim.inbound('p')", lambda s: s["frameWidth"] == 1280, 30,
                        "the top layer before the cap")

            _cap_media()
            capped_at = time.monotonic()
            # The server's own view first: it is read over loopback, off the capped path.
            server_low = await _server_view(server, stream, lambda v: v.get("layer", 2) < 2, 40,
                                            f"the server forwarding a lower layer under a {CAP} cap")
            server_drop_s = round(time.monotonic() - capped_at, 1)
            changes = "window.sim.events('p').filter((e) => e.params.type === 'layerChanged').map((e) => e.params.data)"
            await poll(player, changes, lambda c: any(d["reason"] == "bandwidth" and d["width"] <= 640 for d in c),
                       60, f"a layerChanged for bandwidth to a lower layer under a {CAP} cap")
            drop_s = round(time.monotonic() - capped_at, 1)
            low = await poll(player, "window.sim.inbound('p')", lambda s: 0 < s["frameWidth"] <= 640, 20,
                             "frames of the lower layer")
            reasons = [d["reason"] for d in await player.evaluate(changes)]
            # The estimate settles below the lowest layer's rate: the player is told.
            await poll(player, "window.sim.events('p').map((e) => e.params.type)",
                       lambda types: "notEnoughBandwidth" in types, 30, f"notEnoughBandwidth under a {CAP} cap")

            # What decoded while capped (the lowest layer's base temporal layer: docs/api.md).
            before_lift = await player.evaluate("window.sim.inbound('p')")
            LINK.uncap("down")
            lifted_at = time.monotonic()
            await poll(player, "window.sim.inbound('p')", lambda s: s["frameWidth"] == 1280, 90,
                        "the top layer again after the cap was lifted")
            climb_s = round(time.monotonic() - lifted_at, 1)
            # Steady conditions: no flapping once back on top. The window starts at the climb's
            # own layerChanged, which can come after the first top-layer frames decode (the
            # event leaves through the control thread and signaling; a busy machine delays it):
            # counted before it, that one event read as a flap.
            await poll(player, changes, lambda c: bool(c) and c[-1]["width"] == 1280, 20,
                       "the layerChanged of the climb back to the top layer")
            settled = len(await player.evaluate(changes))
            await asyncio.sleep(6)
            later = await player.evaluate(changes)
            assert len(later) == settled, f"the layer flapped under steady conditions: {later[settled:]}"
            final = await player.evaluate("window.sim.inbound('p')")
            figures({"cap": CAP, "capToServerSwitchS": server_drop_s, "serverWhileCapped": server_low,
                     "capToLowerLayerS": drop_s, "liftToTopLayerS": climb_s,
                     "whileCapped": low, "beforeLift": before_lift, "final": final,
                     "layerChangedReasons": reasons})
        finally:
            LINK.uncap("down")
            await player_browser.close()
            await publisher_browser.close()
