"""Opus RED (RFC 2198): a Chromium publisher offers RED and is answered RED first, so it
sends Opus in RED; of two Chromium players under the same random loss (an nftables rule on
their own ports), the one that offered RED gets RED and conceals clearly less than the one
that did not, which gets the primary Opus alone and still plays. The figures
(concealedSamples / totalSamplesReceived at 10% and 20% loss) are printed for the note."""

import asyncio
import json

from playwright.async_api import async_playwright

import nft_loss
from chromium import CHROMIUM, CHROMIUM_ARGS, open_test_page
from polling import poll
from red_page import RED_PLAY_SCRIPT

TABLE = "sluice_red_loss"
WINDOW_SECONDS = 10


def _drop(ports: list[int], percent: int) -> None:
    nft_loss.drop(TABLE, "udp dport { " + ", ".join(str(p) for p in ports) + " }", percent)


def _stop_dropping() -> None:
    nft_loss.stop(TABLE)


def _concealment(start: dict, end: dict) -> dict:
    received = end["totalSamplesReceived"] - start["totalSamplesReceived"]
    concealed = end["concealedSamples"] - start["concealedSamples"]
    return {"samples": received, "concealed": concealed,
            "ratio": round(concealed / received, 4) if received else None,
            "packetsLost": end["packetsLost"] - start["packetsLost"]}


async def _pages(browser, count):
    return [await open_test_page(browser) for _ in range(count)]


def test_red_player_conceals_less_than_plain_player_under_loss(server, figures):
    asyncio.run(_red_under_loss(server, figures))


async def _red_under_loss(server, record):
    stream = "red-audio"
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            publisher, with_red, without_red = await _pages(browser, 3)
            published = await publisher.evaluate("([u, s]) => window.sluice.publish(u, s, 320, 240)",
                                                 [server.ws_url, stream])
            for page in (with_red, without_red):
                await page.evaluate(RED_PLAY_SCRIPT)
            red_play = await with_red.evaluate("([u, s]) => window.red.play(u, s, true)", [server.ws_url, stream])
            plain_play = await without_red.evaluate("([u, s]) => window.red.play(u, s, false)", [server.ws_url, stream])
            assert red_play["offerHasRED"] and not plain_play["offerHasRED"]
            assert "red/48000/2" in red_play["answer"] and "red/48000" not in plain_play["answer"]

            # Both decode before any loss.
            red_stats = await poll(with_red, "window.red.audio()", lambda s: s["totalSamplesReceived"] > 48000 and
                                   s["port"], 20, "RED player's first second of audio")
            plain_stats = await poll(without_red, "window.red.audio()", lambda s: s["totalSamplesReceived"] > 48000 and
                                     s["port"], 20, "plain player's first second of audio")

            # The publisher sends RED, and the server says which player gets it.
            pub_stats = await publisher.evaluate("(h) => window.sluice.call('getStats', {handle: h})", published["handle"])
            assert pub_stats["audio"]["redPackets"] > 25, pub_stats["audio"]
            red_server = await with_red.evaluate("(h) => window.sluice.call('getStats', {handle: h})", red_play["handle"])
            plain_server = await without_red.evaluate("(h) => window.sluice.call('getStats', {handle: h})",
                                                      plain_play["handle"])
            assert red_server["audio"]["redPackets"] > 25, red_server["audio"]
            assert plain_server["audio"].get("redPackets") is None, plain_server["audio"]

            # Chromium names the codec inside RED (Opus) as the inbound codec either way.
            assert red_stats["codec"].lower() == plain_stats["codec"].lower() == "audio/opus"

            figures = {}
            ports = [red_stats["port"], plain_stats["port"]]
            for percent in (10, 20):
                _drop(ports, percent)
                try:
                    start = [await with_red.evaluate("window.red.audio()"),
                             await without_red.evaluate("window.red.audio()")]
                    await asyncio.sleep(WINDOW_SECONDS)
                    end = [await with_red.evaluate("window.red.audio()"),
                           await without_red.evaluate("window.red.audio()")]
                finally:
                    _stop_dropping()
                red_run, plain_run = _concealment(start[0], end[0]), _concealment(start[1], end[1])
                figures[f"{percent}%"] = {"withRED": red_run, "withoutRED": plain_run}
                # Both play on: samples keep coming at about 48 kHz (concealed ones included).
                for run in (red_run, plain_run):
                    assert run["samples"] > 48000 * WINDOW_SECONDS * 0.7, figures
                # The loss rule did drop (Chromium counts lost RTP packets on both).
                assert plain_run["packetsLost"] > 0 and red_run["packetsLost"] > 0, figures
                # Without RED, a lost packet is concealed; with it, most are rebuilt.
                assert plain_run["ratio"] > 0.02, figures
                assert red_run["ratio"] < plain_run["ratio"] * 0.5, figures
            record({"redConcealment": figures})
            print("RED_FIGURES", json.dumps(figures))
        finally:
            _stop_dropping()
            await browser.close()
