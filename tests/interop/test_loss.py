"""Loss recovery: random loss between the server and a player is repaired from the server's
retransmission buffer (the player NACKs), and loss between the publisher and the server is
repaired by NACKing the publisher. The loss is an nftables rule on the input hook of the
test's own namespace (so the sender sees no error), dropping 5% of the matching datagrams."""

import asyncio
import subprocess

from chromium import chromium_page
from sessions import close_all, publish
from polling import poll
from simulcast_page import SIMULCAST_SCRIPT

TABLE = "sluice_loss"
LOSS_PERCENT = 5


def _drop(match: str) -> None:
    for command in (f"add table inet {TABLE}",
                    f"add chain inet {TABLE} input {{ type filter hook input priority 0; }}",
                    f"add rule inet {TABLE} input {match} numgen random mod 100 < {LOSS_PERCENT} drop"):
        subprocess.run(["nft", *command.split()], check=True)


def _stop_dropping() -> None:
    subprocess.run(["nft", "delete", "table", "inet", TABLE], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def _lossy_run(server, figures, match_for, label):
    stream = f"loss-{label}"
    pub = None
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        async with chromium_page() as page:
            await page.evaluate(SIMULCAST_SCRIPT)
            await page.evaluate("([url, stream]) => window.sim.play(url, stream, 'p', {})", [server.ws_url, stream])
            await poll(page, "window.sim.inbound('p')", lambda s: s["framesDecoded"] >= 10, 20, "first frames")
            _drop(match_for(server))
            try:
                start = await page.evaluate("window.sim.inbound('p')")
                await asyncio.sleep(8)
                end = await page.evaluate("window.sim.inbound('p')")
            finally:
                _stop_dropping()
            publisher_stats = await pub.client.call("getStats", {"handle": pub.handle})
        decoded = end["framesDecoded"] - start["framesDecoded"]
        lost = end["packetsLost"] - start["packetsLost"]
        nacks = end["nackCount"] - start["nackCount"]
        rtx = end["retransmittedPacketsReceived"] - start["retransmittedPacketsReceived"]
        figures({"loss": f"{LOSS_PERCENT}% {label}", "framesDecodedIn8s": decoded, "playerNacks": nacks,
                 "retransmissionsReceivedOverRTX": rtx,
                 "playerPacketsLostAfterRepair": lost, "freezes": end["freezeCount"] - start["freezeCount"],
                 "serverNacksToPublisher": publisher_stats.get("video", {}).get("nacks")})
        return decoded, lost, nacks, publisher_stats, rtx
    finally:
        await close_all(pub)


def test_player_loss_is_repaired_from_the_server_buffer(server, figures):
    decoded, lost, nacks, _, rtx = asyncio.run(_lossy_run(
        server, figures, lambda s: f"udp sport {{ {', '.join(map(str, s.media_ports))} }}", "downstream"))
    assert nacks > 0, "the player never NACKed: was any loss applied?"
    # 8 s at 30 fps: repaired loss keeps nearly every frame decodable.
    assert decoded >= 200, f"only {decoded} frames decoded in 8 s under {LOSS_PERCENT}% loss"
    assert lost <= nacks // 4, f"{lost} packets stayed lost of {nacks} NACKed: retransmissions did not arrive"
    assert rtx > 0, "Chromium negotiated RTX, but no retransmission came over it"


def test_publisher_loss_is_nacked_upstream(server, figures):
    decoded, lost, nacks, stats, _ = asyncio.run(_lossy_run(
        server, figures, lambda s: f"udp dport {{ {', '.join(map(str, s.media_ports))} }}", "upstream"))
    assert stats.get("video", {}).get("nacks", 0) > 0, f"the server never NACKed the publisher: {stats}"
    assert decoded >= 200, f"only {decoded} frames decoded in 8 s under {LOSS_PERCENT}% upstream loss"
