"""Loss recovery: random loss between the server and a player is repaired from the server's
retransmission buffer (the player NACKs; the answer comes over RTX when the player offered it,
else on the media SSRC), and loss between the publisher and the server is repaired by NACKing
the publisher. The loss is an nftables rule on the input hook of the
test's own namespace (so the sender sees no error), dropping 5% of the matching datagrams."""

import asyncio

import aiortc.rtcrtpreceiver as aiortc_receiver

import nft_loss
from chromium import chromium_page
from sessions import close_all, play, publish
from polling import poll
from simulcast_page import SIMULCAST_SCRIPT

TABLE = "sluice_loss"
LOSS_PERCENT = 5


def _drop(match: str) -> None:
    nft_loss.drop(TABLE, match, LOSS_PERCENT)


def _stop_dropping() -> None:
    nft_loss.stop(TABLE)


async def _lossy_run(server, figures, match_for, label, offer_rtx=True):
    stream = f"loss-{label}"
    pub = None
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        async with chromium_page() as page:
            await page.evaluate(SIMULCAST_SCRIPT)
            await page.evaluate("([url, stream, rtx]) => window.sim.play(url, stream, 'p', {}, rtx)",
                                [server.ws_url, stream, offer_rtx])
            answer = await page.evaluate("window.sim.answer('p')")
            await poll(page, "window.sim.inbound('p')", lambda s: s["framesDecoded"] >= 10, 20, "first frames")
            _drop(match_for(server))
            try:
                start = await page.evaluate("window.sim.inbound('p')")
                await asyncio.sleep(8)
                end = await page.evaluate("window.sim.inbound('p')")
            finally:
                _stop_dropping()
            publisher_stats = await pub.client.call("getStats", {"handle": pub.handle})
        run = {key: end[key] - start[key] for key in
               ("framesDecoded", "packetsLost", "nackCount", "retransmittedPacketsReceived", "pliCount",
                "keyFramesDecoded", "freezeCount")}
        run["answerHasRTX"] = "a=ssrc-group:FID" in answer
        run["rtxSsrc"] = end["rtxSsrc"]
        figures({"loss": f"{LOSS_PERCENT}% {label}", "framesDecodedIn8s": run["framesDecoded"],
                 "playerNackMessages": run["nackCount"], "playerPacketsLost": run["packetsLost"],
                 "retransmissionsReceivedOverRTX": run["retransmittedPacketsReceived"],
                 "playerPlis": run["pliCount"], "keyFramesDecoded": run["keyFramesDecoded"],
                 "freezes": run["freezeCount"], "answerHasRTX": run["answerHasRTX"],
                 "serverNacksToPublisher": publisher_stats.get("video", {}).get("nacks")})
        return run, publisher_stats
    finally:
        await close_all(pub)


def _downstream(server):
    return f"udp sport {{ {', '.join(map(str, server.media_ports))} }}"


def test_player_loss_is_repaired_over_rtx(server, figures):
    """Chromium offers RTX: the server answers its NACKs on the RTX SSRC. libwebrtc counts a
    packet recovered from RTX apart from the media SSRC (RtxReceiveStream marks it `recovered`,
    and recovered packets stay out of that SSRC's receive statistics), so `packetsLost` keeps
    the wire loss; the repair shows as one retransmission received per lost packet, and as
    decoding that never needed a key frame."""
    run, _ = asyncio.run(_lossy_run(server, figures, _downstream, "downstream-rtx"))
    assert run["answerHasRTX"] and run["rtxSsrc"], f"Chromium did not negotiate RTX: {run}"
    lost, rtx = run["packetsLost"], run["retransmittedPacketsReceived"]
    assert run["nackCount"] > 0 and lost > 0, f"the player never NACKed: was any loss applied? {run}"
    assert rtx > 0, f"Chromium negotiated RTX, but no retransmission came over it: {run}"
    # Every lost packet had its retransmission arrive (the last few may be in flight)...
    assert lost - rtx <= max(2, lost // 4), f"{lost - rtx} of {lost} lost packets got no retransmission: {run}"
    # ...and was used: a discarded RTX packet (wrong payload type, OSN or SSRC) is NACKed again
    # and again, and the frame it belongs to never decodes, which costs a key frame.
    assert rtx <= 2 * lost + 5, f"{rtx} retransmissions for {lost} lost packets: Chromium keeps asking {run}"
    assert run["pliCount"] == 0, f"Chromium asked for a key frame: a lost packet was not recovered {run}"
    # 8 s at 30 fps: repaired loss keeps nearly every frame decodable.
    assert run["framesDecoded"] >= 200, f"only {run['framesDecoded']} frames decoded in 8 s under {LOSS_PERCENT}% loss"


def test_player_loss_is_repaired_without_rtx(server, figures):
    """A player that offers no RTX gets retransmissions on the media SSRC, which its receive
    statistics count: what stays lost is what was never repaired."""
    run, _ = asyncio.run(_lossy_run(server, figures, _downstream, "downstream-no-rtx", offer_rtx=False))
    assert not run["answerHasRTX"] and not run["rtxSsrc"], f"RTX was negotiated though not offered: {run}"
    nacks, lost = run["nackCount"], run["packetsLost"]
    assert nacks > 0, "the player never NACKed: was any loss applied?"
    assert run["framesDecoded"] >= 200, f"only {run['framesDecoded']} frames decoded in 8 s under {LOSS_PERCENT}% loss"
    assert lost <= nacks // 4, f"{lost} packets stayed lost after {nacks} NACKs: retransmissions did not arrive"
    assert run["retransmittedPacketsReceived"] == 0, f"retransmissions over RTX though not negotiated: {run}"


def test_aiortc_player_loss_is_repaired_over_rtx(server, figures):
    """aiortc offers RTX too: it maps the answer's second a=ssrc to the first and unwraps the
    server's RTX packets (counted here at aiortc's unwrap_rtx); the numbered frames show
    whether what was lost came back."""
    async def run():
        unwrapped = 0
        original_unwrap = aiortc_receiver.unwrap_rtx

        def counting_unwrap(*args, **kwargs):
            nonlocal unwrapped
            unwrapped += 1
            return original_unwrap(*args, **kwargs)

        aiortc_receiver.unwrap_rtx = counting_unwrap
        pub = ply = None
        try:
            pub = await publish(server.ws_url, "loss-aiortc")
            await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
            ply = await play(server.ws_url, "loss-aiortc")
            await ply.peer.wait_frames(10, 20, lambda f: f.number is not None)
            first = max(ply.peer.numbers())
            _drop(_downstream(server))
            try:
                await asyncio.sleep(8)
            finally:
                _stop_dropping()
            last = max(ply.peer.numbers())
            await asyncio.sleep(1)  # the last repairs of the window land
            decoded = {n for n in ply.peer.numbers() if first < n <= last}
            return unwrapped, last - first, len(decoded)
        finally:
            aiortc_receiver.unwrap_rtx = original_unwrap
            await close_all(ply, pub)

    unwrapped, sent, decoded = asyncio.run(run())
    figures({"loss": f"{LOSS_PERCENT}% downstream, aiortc player", "rtxPacketsUnwrapped": unwrapped,
             "framesInWindow": sent, "framesDecoded": decoded})
    assert unwrapped > 0, "aiortc unwrapped no RTX packet: were its NACKs answered on the RTX SSRC?"
    assert sent >= 100, f"only {sent} frames went by in 8 s"
    assert decoded >= sent * 0.95, f"aiortc decoded {decoded} of {sent} frames under {LOSS_PERCENT}% loss"


def test_publisher_loss_is_nacked_upstream(server, figures):
    run, stats = asyncio.run(_lossy_run(
        server, figures, lambda s: f"udp dport {{ {', '.join(map(str, s.media_ports))} }}", "upstream"))
    assert stats.get("video", {}).get("nacks", 0) > 0, f"the server never NACKed the publisher: {stats}"
    assert run["framesDecoded"] >= 200, \
        f"only {run['framesDecoded']} frames decoded in 8 s under {LOSS_PERCENT}% upstream loss"
