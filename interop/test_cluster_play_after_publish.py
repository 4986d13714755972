"""A play on another node the instant the origin says PUBLISHING (issue 27, docs/cluster.md
"Publishing claims its name"): the origin writes the stream's codecs into its Redis record when
it answers the publish, before PUBLISHING can go out, and an edge that does not list the stream
yet (its snapshot is up to a heartbeat old) reads the record from Redis. Ten times in a row an
aiortc publisher publishes a new name on node 1, and the moment its PUBLISHING arrives a plain
`play` (no `wait`) of the name goes to node 2: it never gets 1004, and the player decodes the
publisher's frames over the relay link."""

import asyncio
import time

from conftest_cluster import make_cluster  # noqa: F401 (the fixture)
from sessions import close_all, play, publish

ROUNDS = 10


def test_a_play_on_another_node_right_after_publishing_never_gets_1004(make_cluster, figures):
    asyncio.run(_rounds(make_cluster(2), figures))


async def _rounds(cluster, figures):
    node1, node2 = cluster.nodes
    delays = []
    for round_number in range(ROUNDS):
        stream = f"instant-{round_number}"
        publisher = player = None
        try:
            publisher = await publish(node1.ws_url, stream)
            await publisher.client.wait_notification(
                lambda n: n.method == "streamStatus" and n.params.get("handle") == publisher.handle
                and n.params.get("status") == "PUBLISHING", timeout=15, what="PUBLISHING")
            published_at = time.monotonic()
            # At once: no wait for node 2's snapshot, no `wait: true`.
            player = await play(node2.ws_url, stream)
            delays.append(round((player.answered_at - published_at) * 1000, 1))
            frames = await player.peer.wait_frames(5, timeout=20)
            # The numbers are the publisher's own frames, relayed from node 1.
            assert all(f.number is not None for f in frames[-3:]), frames[-3:]
        finally:
            await close_all(player, publisher)
    figures({"rounds": ROUNDS, "publishingToPlayAnsweredMs": delays})
