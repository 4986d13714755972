"""Data channels through the server (docs/protocol.md section 7), with aiortc peers.

A publisher's messages reach every player that opened a channel of the same label, complete
and in order; a player's reach the publisher and not the other players; the server counts
them in getStats and tells each side when a channel opens. Then what the server must survive
on the SCTP side: an m=application line with no SCTP at all, garbage inside DTLS application
data, an INIT flood, and a message over the size limit (the sender is told).
"""

import asyncio
import os
import struct

from datachannel_peers import DataPlayer, DataPublisher, play_with_channels, publish_with_channels
from sessions import open_session

STREAM = "dc"
BATCH = 25


def message(index: int) -> object:
    """Message `index`: text and binary in turn, 0 bytes to about 30 KB, carrying its index."""
    if index % 2:
        return f"{index}:" + "x" * (index * 37 % 4000)
    return struct.pack(">I", index) + bytes([index % 251]) * (index * 613 % 30000)


def index_of(data) -> int:
    return int(data.split(":", 1)[0]) if isinstance(data, str) else struct.unpack(">I", data[:4])[0]


async def wait_event(client, handle: str, type_: str, timeout: float = 10.0):
    return await client.wait_notification(
        lambda n: n.method == "streamEvent" and n.params.get("handle") == handle and n.params.get("type") == type_,
        timeout, f"streamEvent {type_} for {handle}")


async def channel_stats(client, handle: str) -> list:
    return (await client.call("getStats", {"handle": handle})).get("dataChannels", [])


async def start(server, players: int = 2):
    """A publisher and `players` players, each with an open `chat` channel."""
    pub_client = await open_session(server.ws_url)
    publisher = DataPublisher()
    pub_handle = await publish_with_channels(pub_client, STREAM, publisher)
    await publisher.channels["chat"].wait_open()
    await wait_event(pub_client, pub_handle, "dataChannelOpened")
    sides = []
    for _ in range(players):
        client = await open_session(server.ws_url)
        peer = DataPlayer()
        handle = await play_with_channels(client, STREAM, peer)
        await peer.channels["chat"].wait_open()
        opened = await wait_event(client, handle, "dataChannelOpened")
        assert opened.params["data"]["label"] == "chat", opened.params
        sides.append((client, peer, handle))
    return (pub_client, publisher, pub_handle), sides


async def new_player_hears(server, publisher, text: str):
    """A new player opens `chat` and gets the publisher's next message: the server still serves."""
    client = await open_session(server.ws_url)
    peer = DataPlayer()
    handle = await play_with_channels(client, STREAM, peer)
    await peer.channels["chat"].wait_open()
    publisher.channels["chat"].channel.send(text)
    got = await peer.channels["chat"].wait_count(1, 10)
    assert got[0].data == text
    return client, peer, handle


async def close(*peers) -> None:
    for client, peer, _ in peers:
        if peer is not None:
            await peer.close()
        if client is not None:
            await client.close()


async def _forwarding(server, figures) -> None:
    (pub_client, publisher, pub_handle), players = await start(server)
    try:
        count = 300
        sent_bytes = 0
        # In batches, each sent when every player has the last: the server's backlog for a
        # player is bounded (1 MiB of SCTP send buffer), and aiortc in Python reads slower than
        # it sends, so an unpaced burst of 4 MB would be cut at a player (as `backlog` drops).
        for first in range(0, count, BATCH):
            for i in range(first, min(count, first + BATCH)):
                data = message(i)
                sent_bytes += len(data.encode() if isinstance(data, str) else data)
                publisher.channels["chat"].channel.send(data)
            for _, peer, _ in players:
                await peer.channels["chat"].wait_count(min(count, first + BATCH), 20)
        for _, peer, _ in players:
            got = await peer.channels["chat"].wait_count(count, 30)
            assert [index_of(r.data) for r in got] == list(range(count)), "out of order or missing"
            for r in got:
                assert r.data == message(index_of(r.data)), f"message {index_of(r.data)} changed on the way"
        # Video went on meanwhile.
        for _, peer, _ in players:
            await peer.wait_frames(10, 10)
        # A player's reply reaches the publisher, and not the other player.
        players[0][1].channels["chat"].channel.send("reply from 0")
        got = await publisher.channels["chat"].wait_count(1, 10)
        assert got[0].data == "reply from 0"
        await asyncio.sleep(0.5)
        assert len(players[1][1].channels["chat"].received) == count, "a player's message reached another player"
        stats = await channel_stats(pub_client, pub_handle)
        assert stats and stats[0]["label"] == "chat" and stats[0]["ordered"] is True, stats
        assert stats[0]["messagesReceived"] == count and stats[0]["bytesReceived"] == sent_bytes, stats
        assert stats[0]["messagesSent"] == 1, stats
        for client, _, handle in players:
            player_stats = (await channel_stats(client, handle))[0]
            assert player_stats["messagesSent"] == count and player_stats["bytesSent"] == sent_bytes, player_stats
        status, metrics = server.get("/metrics")
        assert status == 200, status
        line = f'sluice_datachannel_messages_total{{stream="{STREAM}",role="play",label="chat",direction="sent"}} {count * 2}'
        assert line in metrics, [l for l in metrics.splitlines() if l.startswith("sluice_datachannel")]
        figures({"messages": count, "bytes": sent_bytes, "players": len(players)})
    finally:
        await close(*players, (pub_client, publisher, pub_handle))


def test_publisher_messages_reach_players_in_order(server, figures):
    asyncio.run(_forwarding(server, figures))


async def _no_sctp(server) -> None:
    # The player's offer has m=application, but its SCTP never starts: nothing reaches the
    # server's SCTP. Media plays, and another player's channel works.
    from aiortc.rtcsctptransport import RTCSctpTransport

    original = RTCSctpTransport.start

    async def never(self, *args, **kwargs):
        return None

    (pub_client, publisher, pub_handle), players = await start(server, players=0)
    silent_client = silent = client = peer = handle = None
    RTCSctpTransport.start = never
    try:
        silent_client = await open_session(server.ws_url)
        silent = DataPlayer()
        await play_with_channels(silent_client, STREAM, silent)
        await silent.wait_frames(10, 10)
    finally:
        RTCSctpTransport.start = original
    try:
        client, peer, handle = await new_player_hears(server, publisher, "still here")
        server.health()
    finally:
        await close((silent_client, silent, None), (client, peer, handle), (pub_client, publisher, pub_handle))


def test_application_line_without_sctp(server):
    asyncio.run(_no_sctp(server))


def sctp_packet(chunks: bytes, tag: int = 0, ports=(5000, 5000)) -> bytes:
    return struct.pack(">HHII", ports[0], ports[1], tag, 0) + chunks


async def _garbage(server) -> None:
    (pub_client, publisher, pub_handle), players = await start(server, players=1)
    client = peer = handle = None
    try:
        _, attacker, _ = players[0]
        dtls = attacker.pc.sctp.transport
        init = struct.pack(">BBH", 1, 0, 20) + struct.pack(">IIHHI", 0x1234, 131072, 1024, 1024, 7)
        garbage = [
            b"",  # nothing
            os.urandom(3),
            os.urandom(1100),  # random bytes where an SCTP packet belongs
            sctp_packet(b"", tag=5),  # no chunks
            sctp_packet(b"\x00\x00\x00\x02", tag=5),  # a chunk shorter than its header
            sctp_packet(b"\x00\x03\x04\x00" + b"a" * 8, tag=5),  # a chunk longer than the packet
            sctp_packet(init, ports=(1, 2)),  # ports the SDP did not agree
            sctp_packet(init + b"\x00\x00\x00\x04", tag=0),  # INIT bundled
            sctp_packet(b"\x00\x03\x00\x20" + os.urandom(28), tag=0x11111111),  # DATA with a wrong tag
        ]
        for packet in garbage:
            if packet:
                await dtls._send_data(packet)
        # An INIT flood on the established association: the worker lets 4 a second through.
        for i in range(500):
            await dtls._send_data(sctp_packet(struct.pack(">BBH", 1, 0, 20)
                                              + struct.pack(">IIHHI", i + 1, 131072, 1024, 1024, i + 7)))
        await asyncio.sleep(1.0)
        server.health()
        # The publisher's channel, and a new player's, still work.
        client, peer, handle = await new_player_hears(server, publisher, "after the garbage")
        log = server.log_path.read_text()
        assert log.count("dropped an SCTP packet") >= 1, "the bad SCTP input was not logged"
        assert log.count("dropped an SCTP packet") <= 2, "bad SCTP input is logged more than once per association"
    finally:
        await close(*players, (client, peer, handle), (pub_client, publisher, pub_handle))


def test_garbage_and_init_flood_inside_dtls(server):
    asyncio.run(_garbage(server))


async def _too_large(server) -> None:
    (pub_client, publisher, pub_handle), players = await start(server, players=1)
    try:
        sctp = publisher.pc.sctp
        # The server's answer says a=max-message-size:262144; aiortc would refuse to send more.
        assert sctp._remote_max_message_size == 262144, sctp._remote_max_message_size
        sctp._remote_max_message_size = 0
        publisher.channels["chat"].channel.send(b"\x01" * 300_000)
        publisher.channels["chat"].channel.send("small after the large one")
        event = await wait_event(pub_client, pub_handle, "dataDropped")
        assert event.params["data"]["reason"] == "tooLarge" and event.params["data"]["label"] == "chat", event.params
        assert event.params.get("by") == "server", event.params
        got = await players[0][1].channels["chat"].wait_count(1, 10)
        assert got[0].data == "small after the large one", "the oversized message was forwarded"
        stats = (await channel_stats(pub_client, pub_handle))[0]
        assert stats["messagesDropped"] == 1, stats
    finally:
        await close(*players, (pub_client, publisher, pub_handle))


def test_message_over_the_limit_is_dropped_and_the_sender_told(server):
    asyncio.run(_too_large(server))
