"""Data channel delivery under trouble, with aiortc peers: a lossy path to a player on an
unordered channel without retransmissions (what is lost stays lost, the rest arrives, nothing
waits for the lost), and a stalled player next to a healthy one on an ordered, reliable
channel (the server drops for the stalled one, within its bounded send buffer, and the
healthy one is not slowed).

Trouble is made as test_loss.py makes it: an nftables rule on the input hook of the test's own
namespace (so the sender sees no error), matching one peer's UDP port (its ICE pair's local
port, `local_udp_port`)."""

import asyncio
import json
import struct
import subprocess
import time

from datachannel_peers import (DataPlayer, DataPublisher, local_udp_port, play_with_channels,
                               publish_with_channels)
from sessions import close_all, open_session

TABLE = "sluice_dcdelivery"
# Small video: the publisher must send media (a publish needs an audio or video m-line), but
# aiortc encoding 640x480 VP8 in this process would take the CPU the data channels need.
VIDEO = {"width": 160, "height": 120}


def _nft_drop(match: str) -> None:
    """Adds a counted drop rule for `match` to the input hook (the table is made once)."""
    for command in (f"add table inet {TABLE}",
                    f"add chain inet {TABLE} input {{ type filter hook input priority 0; }}",
                    f"add rule inet {TABLE} input {match} counter drop"):
        subprocess.run(["nft", *command.split()], check=True)


def _nft_dropped() -> int:
    """Packets the table's rules dropped so far."""
    out = subprocess.run(["nft", "-j", "list", "table", "inet", TABLE], check=True,
                         capture_output=True, text=True).stdout
    total = 0
    for item in json.loads(out).get("nftables", []):
        for expr in item.get("rule", {}).get("expr", []):
            if "counter" in expr:
                total += expr["counter"]["packets"]
    return total


def _nft_clear() -> None:
    subprocess.run(["nft", "delete", "table", "inet", TABLE], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _media_ports(server) -> str:
    return "{ " + ", ".join(map(str, server.media_ports)) + " }"


async def _paced(count: int, rate: float, send) -> None:
    """Calls send(i) for i in 0..count-1 at `rate` per second (on a schedule, so a late
    wake-up sends the few that are due at once rather than drifting)."""
    start = time.monotonic()
    for i in range(count):
        due = start + i / rate
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        send(i)


async def _quiet(log, seconds: float, timeout: float, expected: int) -> None:
    """Waits until `expected` messages arrived, or none arrived for `seconds` (bounded)."""
    deadline = time.monotonic() + timeout
    while len(log.received) < expected and time.monotonic() < deadline:
        count = len(log.received)
        last = log.received[-1].at if log.received else time.monotonic()
        if count and time.monotonic() - last >= seconds:
            return
        await asyncio.sleep(0.1)


def _channel_stats(stats: dict, label: str) -> dict:
    channels = [c for c in stats.get("dataChannels", []) if c.get("label") == label]
    assert len(channels) == 1, f"getStats has no single {label!r} channel: {stats.get('dataChannels')}"
    return channels[0]


LOSSY_COUNT = 2000
LOSSY_RATE = 500.0
LOSS_PERCENT = 5


def test_unordered_no_retransmits_under_loss(server, figures):
    async def run():
        pub_client = ply_client = pub = ply = None
        try:
            options = {"ordered": False, "maxRetransmits": 0}
            pub_client = await open_session(server.ws_url)
            pub = DataPublisher(labels=("lossy",), **VIDEO, **options)
            pub_handle = await publish_with_channels(pub_client, "dc-lossy", pub)
            await pub_client.wait_status(pub_handle, "PUBLISHING", 15)
            ply_client = await open_session(server.ws_url)
            ply = DataPlayer(labels=("lossy",), **options)
            ply_handle = await play_with_channels(ply_client, "dc-lossy", ply)
            sender, receiver = pub.channels["lossy"], ply.channels["lossy"]
            await sender.wait_open()
            await receiver.wait_open()
            assert sender.channel.ordered is False and sender.channel.maxRetransmits == 0

            # The path to the player only: the server's media ports to the player's port.
            port = local_udp_port(ply.pc)
            _nft_drop(f"udp sport {_media_ports(server)} udp dport {port} "
                      f"numgen random mod 100 < {LOSS_PERCENT}")
            try:
                await _paced(LOSSY_COUNT, LOSSY_RATE, lambda i: sender.channel.send(f"{i}"))
                sent_at = time.monotonic()
                await _quiet(receiver, 1.0, 10, LOSSY_COUNT)
                dropped_packets = _nft_dropped()
            finally:
                _nft_clear()
            stats = _channel_stats(await ply_client.call("getStats", {"handle": ply_handle}), "lossy")
            return receiver.received, sent_at, dropped_packets, stats
        finally:
            _nft_clear()
            await close_all(ply, ply_client, pub, pub_client)

    received, sent_at, dropped_packets, stats = asyncio.run(run())
    indexes = [int(r.data) for r in received]
    unique = set(indexes)
    fraction = len(unique) / LOSSY_COUNT
    gaps = [b.at - a.at for a, b in zip(received, received[1:])]
    out_of_order = sum(1 for a, b in zip(indexes, indexes[1:]) if b < a)
    figures({"sent": LOSSY_COUNT, "received": len(indexes), "fraction": round(fraction, 4),
             "packetsDroppedByRule": dropped_packets, "outOfOrder": out_of_order,
             "lastIndex": max(indexes) if indexes else None,
             "maxGapSeconds": round(max(gaps), 3) if gaps else None,
             "serverMessagesSent": stats.get("messagesSent"), "serverMessagesDropped": stats.get("messagesDropped")})

    # Every message reached the server and went out to the player: what is missing was lost
    # on the wire, not dropped by the server.
    assert stats["messagesSent"] == LOSSY_COUNT and stats["messagesDropped"] == 0, stats
    # Nothing twice: no retransmission is duplicated, no message delivered again.
    assert len(indexes) == len(unique), f"{len(indexes) - len(unique)} messages arrived twice"
    assert unique <= set(range(LOSSY_COUNT)), f"indexes never sent: {sorted(unique - set(range(LOSSY_COUNT)))[:10]}"
    # Each message is in one SCTP packet, and each packet to the player is dropped with p =
    # 0.05, so about 95% arrive. Lower bound 88%: the binomial's spread is ~0.5% (more when
    # the server bundles a few messages in one packet), so only a server that lost or
    # dropped messages of its own falls below it. Upper bound 99.5%: one retransmission of
    # each lost message would give 99.75%, so above 99.5% the server ignored maxRetransmits 0
    # (or the rule dropped nothing).
    assert 0.88 <= fraction <= 0.995, f"{len(unique)} of {LOSSY_COUNT} arrived ({fraction:.1%}) under {LOSS_PERCENT}% loss"
    # What is missing was dropped by the rule (which also drops video to the player).
    assert LOSSY_COUNT - len(unique) <= dropped_packets, \
        f"{LOSSY_COUNT - len(unique)} messages missing, but the rule dropped only {dropped_packets} packets"
    # Not blocked behind the lost (an ordered channel would wait for each one, forever with no
    # retransmission): messages kept arriving to the end, the last ones sent among them.
    assert max(indexes) >= LOSSY_COUNT - 20, f"the last index received is {max(indexes)} of {LOSSY_COUNT - 1}"
    last_third = [i for i in indexes if i >= 2 * LOSSY_COUNT // 3]
    assert len(last_third) >= 0.85 * (LOSSY_COUNT - 2 * LOSSY_COUNT // 3), \
        f"only {len(last_third)} of the last third arrived: delivery stalled"
    # A bound, not a timing criterion: at 500/s a gap of a second means delivery stopped.
    assert max(gaps) < 1.0, f"no message for {max(gaps):.2f} s"


STALL_COUNT = 3000
STALL_RATE = 300.0
STALL_SIZE = 1024
SEND_BUFFER = 1 << 20  # the server's per-association send buffer (SCTPStack.sendBufferBytes)
HEADER = struct.Struct("!Id")  # index, time.monotonic() at send


def _p90(values: list) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def test_stalled_player_does_not_slow_the_other(server, figures):
    async def run():
        pub_client = a_client = b_client = pub = a = b = None
        try:
            pub_client = await open_session(server.ws_url)
            pub = DataPublisher(labels=("chat",), **VIDEO)
            pub_handle = await publish_with_channels(pub_client, "dc-stall", pub)
            await pub_client.wait_status(pub_handle, "PUBLISHING", 15)
            a_client, b_client = await open_session(server.ws_url), await open_session(server.ws_url)
            a, b = DataPlayer(labels=("chat",)), DataPlayer(labels=("chat",))
            await play_with_channels(a_client, "dc-stall", a)
            b_handle = await play_with_channels(b_client, "dc-stall", b)
            sender = pub.channels["chat"]
            for log in (sender, a.channels["chat"], b.channels["chat"]):
                await log.wait_open()

            # B stops acknowledging: every DTLS application-data record (first byte 23: its
            # SCTP) from B's port to the server is dropped. Its STUN consent checks and RTCP
            # still pass, so B stays connected; its SACKs never reach the server, whose send
            # buffer for B fills.
            _nft_drop(f"udp sport {local_udp_port(b.pc)} udp dport {_media_ports(server)} @th,64,8 23")
            try:
                padding = bytes(STALL_SIZE - HEADER.size)
                await _paced(STALL_COUNT, STALL_RATE,
                             lambda i: sender.channel.send(HEADER.pack(i, time.monotonic()) + padding))
                received_a = await a.channels["chat"].wait_count(STALL_COUNT, 20)
                dropped_packets = _nft_dropped()
                b_stats = _channel_stats(await b_client.call("getStats", {"handle": b_handle}), "chat")
                drops = [n.params for n in b_client.notifications
                         if n.method == "streamEvent" and n.params.get("type") == "dataDropped"]
            finally:
                _nft_clear()
            return received_a, len(b.channels["chat"].received), dropped_packets, b_stats, drops
        finally:
            _nft_clear()
            await close_all(a, b, a_client, b_client, pub, pub_client)

    received_a, received_b, dropped_packets, b_stats, drops = asyncio.run(run())
    decoded = [HEADER.unpack_from(r.data) + (r.at, len(r.data)) for r in received_a]
    indexes = [d[0] for d in decoded]
    latencies = [at - sent for _, sent, at, _ in decoded]
    third = STALL_COUNT // 3
    first_p90, last_p90 = _p90(latencies[:third]), _p90(latencies[-third:])
    figures({"sent": STALL_COUNT, "receivedA": len(indexes), "receivedB": received_b,
             "latencyP90FirstThirdMs": round(first_p90 * 1000, 1),
             "latencyP90LastThirdMs": round(last_p90 * 1000, 1),
             "latencyMaxMs": round(max(latencies) * 1000, 1), "packetsDroppedFromB": dropped_packets,
             "serverSentToB": b_stats.get("messagesSent"), "serverDroppedForB": b_stats.get("messagesDropped"),
             "dataDroppedEvents": drops})

    # A got everything, in order, whole.
    assert indexes == list(range(STALL_COUNT)), \
        f"player A: {len(indexes)} messages, first out of place at " \
        f"{next((k for k, i in enumerate(indexes) if i != k), None)}"
    assert all(d[3] == STALL_SIZE for d in decoded), "a message arrived with another size"
    # B was stalled for real: its acknowledgements were dropped, and it got next to nothing.
    assert dropped_packets > 0, "the rule dropped nothing from B"
    assert received_b < STALL_COUNT // 2, f"B received {received_b} of {STALL_COUNT}: it was not stalled"
    # The server dropped for B rather than blocking: what it took for B fits B's bounded send
    # buffer (1 MiB; usrsctp counts some overhead per message, so fewer fit), the rest it
    # dropped, every message accounted for.
    assert b_stats["messagesDropped"] > 0, f"the server dropped nothing for the stalled B: {b_stats}"
    assert b_stats["messagesSent"] * STALL_SIZE <= SEND_BUFFER + 64 * STALL_SIZE, \
        f"the server took {b_stats['messagesSent']} messages of {STALL_SIZE} bytes for B: its backlog is not bounded"
    assert b_stats["messagesSent"] + b_stats["messagesDropped"] == STALL_COUNT, b_stats
    assert any(d.get("data", {}).get("reason") == "backlog" and d.get("data", {}).get("label") == "chat"
               for d in drops), f"no dataDropped backlog event on B's session: {drops}"
    # A was not slowed by B: its latency at the end, when B's buffer had long been full, is
    # about its latency at the start. A generous bound on p90 (Python's event loop runs all
    # three peers, so a few ms of jitter is normal, and a busy machine can slow all of it a
    # few times over); a server blocked on B would hold A behind B's full buffer, and A's
    # latency would grow for the rest of the run, by seconds.
    assert last_p90 < 2 * first_p90 + 0.3, \
        f"player A's p90 latency went from {first_p90 * 1000:.0f} ms to {last_p90 * 1000:.0f} ms"
