"""A draining node in a 2-node cluster (docs/protocol.md section 6, "Draining"): node 1 is the
origin of an aiortc publish, node 2 an edge that plays it. Node 2 drains (POST /api/v1/drain):
its player goes on decoding and hears `serverDraining` with node 1 as the place to go; a new
session or play on node 2 gets 1017; node 1 sees node 2's record say `draining`; node 1 still
takes new players. When its player leaves, node 2's drain ends and it exits 0."""

import asyncio

from cluster import ADMIN_TOKEN
from conftest_cluster import make_cluster, poll_until  # noqa: F401 (the fixture)
from sessions import close_all, play, publish
from sluice_client import SluiceClient

DRAIN_SECONDS = 60


def test_a_draining_edge_takes_no_new_players(make_cluster):
    cluster = make_cluster(2, node_overrides={1: {"server": {"drainSeconds": DRAIN_SECONDS}}})
    asyncio.run(_draining_edge(cluster))


def _node_record(node, node_id) -> dict:
    status, body = node.get("/api/v1/cluster")
    assert status == 200, body
    return next((n for n in body.get("nodes", []) if n.get("nodeId") == node_id), {})


async def _draining_edge(cluster):
    origin, edge = cluster.nodes
    stream = "cluster-drain"
    pub = player = late = None
    try:
        pub = await publish(origin.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        player = await play(edge.ws_url, stream)
        await player.client.wait_status(player.handle, "PLAYING", 20)
        await player.peer.wait_frames(10, 20)
        # Before the drain both nodes see each other, neither draining.
        await poll_until(lambda: _node_record(edge, origin.node_id), "the edge sees the origin")
        assert _node_record(origin, edge.node_id).get("draining") is None

        status, body = await asyncio.to_thread(edge.request, "POST", "/api/v1/drain", None, ADMIN_TOKEN)
        assert status == 202 and body.get("drainSeconds") == DRAIN_SECONDS, (status, body)

        notice = await player.client.wait_notification(lambda n: n.method == "serverDraining", 10, "serverDraining")
        assert notice.params["servers"] == [origin.ws_url], notice.params
        assert 0 < notice.params["deadlineMs"] <= DRAIN_SECONDS * 1000, notice.params

        # No new player on the draining edge: neither a new session nor a play on the old one.
        client = await SluiceClient.open(edge.ws_url)
        try:
            refused = await client.call_raw("connect", {"appKey": "defaultApp"})
        finally:
            await client.close()
        assert refused.get("error", {}).get("code") == 1017, refused
        again = await player.client.call_raw("play", {"stream": stream, "sdp": "v=0"})
        assert again.get("error", {}).get("code") == 1017, again

        # The origin learns it from the edge's heartbeat, and places nobody there.
        record = await poll_until(lambda: _node_record(origin, edge.node_id).get("draining") and
                                  _node_record(origin, edge.node_id), "the origin sees the edge draining")
        assert record["draining"] is True

        # The edge's player goes on over its relay link; the origin takes a new player.
        before = len(player.peer.frames)
        late = await play(origin.ws_url, stream)
        await late.client.wait_status(late.handle, "PLAYING", 20)
        await late.peer.wait_frames(10, 20)
        await player.peer.wait_frames(before + 30, 20)
        assert edge.process.poll() is None, "the edge stopped while its player was on"

        # Its last session gone, the edge's drain is over: it leaves the cluster and exits 0.
        await player.close()
        player = None
        code = await asyncio.to_thread(edge.process.wait, 15)
        assert code == 0, f"the drained edge exited with {code}"
        edge.killed = True  # stopped by the test: the teardown leaves it be
        await poll_until(lambda: not _node_record(origin, edge.node_id), "the origin sees the edge gone")
        await late.peer.wait_frames(len(late.peer.frames) + 10, 20)
    finally:
        await close_all(pub, player, late)
