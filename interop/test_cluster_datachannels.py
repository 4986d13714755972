"""Data channels across cluster nodes (issue 27, docs/cluster.md "Data across nodes"): a
publisher's `chat` channel on node 1 reaches players on node 1 and on node 2, the latter over
the stream's relay link (an SCTP association in the link's own DTLS, which node 2 starts only
for its data-channel players). With aiortc peers:

- 300 messages of 10 B to 32 KiB, text and binary alternating, arrive complete and in order on
  both players; a message of the node 2 player reaches the publisher.
- The per-session rate limit holds on the edge: a node 2 player that floods its channel gets
  `dataDropped` `rateLimit` from node 2, and the publisher gets no more than the limit lets by.
- A stream whose edge players have no data channels carries no data: neither node makes an
  association for its link (`GET /api/v1/tables`, `dataChannels.associations`).

The figure: message latency (publisher send to player receive, p50 and p95) on the publisher's
node and across the link."""

import asyncio
import statistics
import time

from conftest_cluster import make_cluster, poll_until  # noqa: F401 (the fixture)
from datachannel_peers import DataPlayer, DataPublisher, play_with_channels, publish_with_channels
from media import Player
from sessions import open_session

# 150 messages a second per session with a second's burst: the publisher's 300 go paced below
# it; a player's flood of 600 goes over it.
RATE = 150
OVERRIDES = {"apps": [{"key": "defaultApp", "dataChannels": {"messagesPerSecond": RATE}}]}
VIDEO = {"width": 160, "height": 120}


def message(i: int):
    """Message i: 10 B to 32 KiB, text for even i and binary for odd, its number first."""
    size = [10, 200, 1200, 5000, 16384, 32768][i % 6]
    head = f"{i:06d}:"
    if i % 2 == 0:
        return head + "x" * (size - len(head))
    return head.encode() + bytes((i + k) % 251 for k in range(size - len(head)))


def tables(node) -> dict:
    status, body = node.get("/api/v1/tables")
    assert status == 200, body
    return body["tables"]


def test_data_reaches_players_on_every_node_in_order(make_cluster, figures):
    asyncio.run(_data_across(make_cluster(2, overrides=OVERRIDES), figures))


async def _data_across(cluster, figures):
    node1, node2 = cluster.nodes
    publisher_client = await open_session(node1.ws_url)
    publisher = DataPublisher(**VIDEO)
    local_client, remote_client, flood_client, plain_client = None, None, None, None
    local, remote, flood, plain = None, None, None, None
    try:
        await publish_with_channels(publisher_client, "data-cam", publisher)
        await publisher.channels["chat"].wait_open()
        local_client, remote_client = await open_session(node1.ws_url), await open_session(node2.ws_url)
        local, remote = DataPlayer(), DataPlayer()
        await play_with_channels(local_client, "data-cam", local)
        await play_with_channels(remote_client, "data-cam", remote)
        await local.channels["chat"].wait_open()
        await remote.channels["chat"].wait_open()
        # The players' channels are open on their nodes once each node read the DCEP open; the
        # edge then opens `chat` on the link. A probe message tells when both are served.
        probe = 0

        async def both_served():
            nonlocal probe
            probe += 1
            publisher.channels["chat"].channel.send(f"probe-{probe}")
            await asyncio.sleep(0.2)
            return all(any(str(m.data).startswith("probe-") for m in p.channels["chat"].received) for p in (local, remote))
        await poll_until(both_served, "the publisher's messages reach both players")
        for player in (local, remote):
            player.channels["chat"].received.clear()

        sent_at = {}
        start = time.monotonic()
        for i in range(300):
            due = start + i / (RATE * 0.6)
            if due > time.monotonic():
                await asyncio.sleep(due - time.monotonic())
            sent_at[i] = time.monotonic()
            publisher.channels["chat"].channel.send(message(i))
        latency = {}
        for name, player in (("sameNode", local), ("acrossNodes", remote)):
            got = await player.channels["chat"].wait_count(300, timeout=60)
            assert [m.data for m in got[:300]] == [message(i) for i in range(300)], f"{name}: not complete and in order"
            delays = sorted((m.at - sent_at[i]) * 1000 for i, m in enumerate(got[:300]))
            latency[name] = {"p50Ms": round(statistics.median(delays), 2), "p95Ms": round(delays[284], 2)}
        figures({"messages": 300, "latency": latency})

        # A player on node 2 reaches the publisher on node 1.
        remote.channels["chat"].channel.send("from node 2")
        await poll_until(lambda: any(m.data == "from node 2" for m in publisher.channels["chat"].received),
                         "the node 2 player's message at the publisher")

        # The rate limit holds on the edge: a flood from node 2 is cut there.
        flood_client = await open_session(node2.ws_url)
        flood = DataPlayer()
        await play_with_channels(flood_client, "data-cam", flood)
        await flood.channels["chat"].wait_open()
        before = len(publisher.channels["chat"].received)
        for i in range(600):
            flood.channels["chat"].channel.send(f"flood-{i}")
        dropped = await flood_client.wait_notification(
            lambda n: n.method == "streamEvent" and n.params.get("type") == "dataDropped"
            and (n.params.get("data") or {}).get("reason") == "rateLimit", timeout=20, what="dataDropped rateLimit")
        assert dropped.params["data"]["label"] == "chat", dropped.params
        await asyncio.sleep(2)
        arrived = sum(1 for m in publisher.channels["chat"].received[before:] if str(m.data).startswith("flood-"))
        assert 0 < arrived < 600 and arrived <= RATE * 2 + 50, f"{arrived} of 600 flooded messages reached the publisher"

        # A stream whose edge player has no data channels: its link carries no data.
        plain_client = await open_session(node2.ws_url)
        plain = Player(audio=False)
        quiet_publisher_client = await open_session(node1.ws_url)
        quiet = DataPublisher(**VIDEO)
        try:
            await publish_with_channels(quiet_publisher_client, "data-quiet", quiet)
            await quiet.channels["chat"].wait_open()
            await asyncio.sleep(0.5)
            before1, before2 = tables(node1), tables(node2)
            result = await plain_client.play("data-quiet", await plain.offer())
            await plain.accept(result["sdp"])
            await plain.wait_frames(10, timeout=20)
            await asyncio.sleep(1)
            after1, after2 = tables(node1), tables(node2)
            # Node 2 opened no end for the link; node 1 holds its end, waiting, and no SCTP
            # association started on it (no socket): nothing of the stream's data crossed.
            assert after2["dataChannels.associations"] == before2["dataChannels.associations"], (before2, after2)
            assert after1["dataChannels.associations"] == before1["dataChannels.associations"] + 1, (before1, after1)
            assert after1["dataChannels.sockets"] == before1["dataChannels.sockets"], (before1, after1)
        finally:
            await quiet.close()
            await quiet_publisher_client.close()
    finally:
        for peer in (publisher, local, remote, flood, plain):
            if peer is not None:
                await peer.close()
        for client in (publisher_client, local_client, remote_client, flood_client, plain_client):
            if client is not None:
                await client.close()
