"""Stream names across a cluster (docs/protocol.md section 6, **Cluster**): three nodes and a real
Redis; a name published on one node is refused on the others (1003, WHIP 409), free again the
moment its publisher stops, free after its node is killed once its claim expires; with Redis
gone a node keeps serving what it serves and refuses new publishes (1013, WHIP 503), and
publishing works again when Redis returns.

The control: a node without `cluster.redis` accepts the very name that the cluster refuses, so
the 1003 on node 2 comes from the cluster's claim, not from anything the nodes share otherwise.
"""

import asyncio
import json
import urllib.error
import urllib.request

from conftest_cluster import make_cluster, poll_until  # noqa: F401 (the fixture)
from media import Publisher
from rpc_assert import expect_rpc_error
from sessions import close_all, open_session, play, publish
from sluice_client import RpcError

IN_USE = (1003, "STREAM_NAME_IN_USE", "Stream name is already in use")
UNAVAILABLE = (1013, "CLUSTER_UNAVAILABLE", "Cluster state unavailable")


def test_cluster_stream_names(make_cluster, figures):
    asyncio.run(_names(make_cluster(3), figures))


async def refused_publish(node, stream, code, reason, message):
    """A publish of `stream` on `node` that must fail with this error."""
    client = await open_session(node.ws_url)
    peer = Publisher(audio=False)
    try:
        await expect_rpc_error(client.publish(stream, await peer.offer()), code, reason, message)
    finally:
        await peer.close()
        await client.close()


async def publish_when_free(node, stream, timeout: float = 15.0):
    """Publishes `stream` on `node`, retrying while it answers 1003 (a claim not yet expired)."""
    async def attempt():
        try:
            return await publish(node.ws_url, stream)
        except RpcError as e:
            assert e.code == 1003, f"publish of {stream} on {node.node_id}: {e.code} {e.message}"
            return None
    return await poll_until(attempt, f"{stream} free for {node.node_id}", timeout, interval=0.3)


def whip_post(node, stream, sdp):
    """(status, reason) of a WHIP POST of `sdp` to `node`."""
    request = urllib.request.Request(f"{node.http_url}/whip/{stream}", data=sdp.encode(), method="POST")
    request.add_header("Content-Type", "application/sdp")
    request.add_header("Authorization", "Bearer defaultApp")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, None
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode()).get("error", {}).get("reason")


async def whip_refused(node, stream):
    peer = Publisher(audio=False)
    try:
        sdp = await peer.offer()
        return await asyncio.to_thread(whip_post, node, stream, sdp)
    finally:
        await peer.close()


def listed(node):
    view = node.cluster_view()
    return {n["nodeId"] for n in view["nodes"]}, {s["name"]: s["node"] for s in view["streams"]}, view


async def _names(cluster, figures):
    node1, node2, node3 = cluster.nodes
    redis = cluster.redis
    sessions = []
    try:
        # Publish x on node 1: its claim is in Redis under node1.
        pub1 = await publish(node1.ws_url, "x")
        sessions.append(pub1)
        await pub1.client.wait_status(pub1.handle, "PUBLISHING", 15)

        # The same name on node 2: 1003 over the WebSocket, 409 over WHIP.
        await refused_publish(node2, "x", *IN_USE)
        assert await whip_refused(node2, "x") == (409, "STREAM_NAME_IN_USE")
        assert redis.stream_record("x")["node"] == "node1", redis.keys()
        # Control: a node outside the cluster takes the name (so the refusal above is the claim's).
        alone = cluster.standalone_node()
        control = await publish(alone.ws_url, "x")
        sessions.append(control)
        await close_all(control)
        sessions.remove(control)

        # Node 3 lists the stream with its origin, and all three nodes; node 1's figures.
        player1 = await play(node1.ws_url, "x")
        sessions.append(player1)
        await player1.peer.wait_frames(5, 15, lambda f: f.number is not None)
        await poll_until(lambda: listed(node3)[0] == {"node1", "node2", "node3"} and listed(node3)[1] == {"x": "node1"},
                         "node 3 lists node1..node3 and x on node1")

        def node1_record():
            for n in node3.cluster_view()["nodes"]:
                if n["nodeId"] == "node1" and n["streams"] == 1 and n["players"] == 1 and n["sessions"] == 2:
                    return n
            return None
        record = await poll_until(node1_record, "node1's record counts 2 sessions, 1 stream, 1 player")
        assert record["relayAddress"] == f"{node1.host}:{node1.media_port}", record
        # The record's figures agree with the node's own /metrics.
        gauges = dict(line.split(" ", 1) for line in node1.metrics().splitlines()
                      if line.split(" ", 1)[0] in ("sluice_sessions", "sluice_streams", "sluice_players"))
        assert gauges == {"sluice_sessions": "2", "sluice_streams": "1", "sluice_players": "1"}, gauges

        # Node 1's publisher stops: the claim is gone by the time its UNPUBLISHED arrives (a
        # claim left to expire would still be there: its TTL is 5 s, refreshed every 500 ms).
        await pub1.client.stop(pub1.handle)
        await pub1.client.wait_status(pub1.handle, "UNPUBLISHED", 10)
        assert redis.stream_record("x") is None, f"the claim outlived its publisher: {redis.stream_record('x')}"
        await close_all(player1, pub1)
        sessions.remove(player1)
        sessions.remove(pub1)
        pub2 = await publish(node2.ws_url, "x")
        sessions.append(pub2)
        assert redis.stream_record("x")["node"] == "node2"

        # kill -9 node 2: node 1 stops listing it, and x is free again for node 3.
        node2.kill9()
        await close_all(pub2)
        sessions.remove(pub2)
        await poll_until(lambda: "node2" not in listed(node1)[0], "node 1 no longer lists node2")
        pub3 = await publish_when_free(node3, "x")
        sessions.append(pub3)
        assert redis.stream_record("x")["node"] == "node3"

        # A stream on node 1 with a player there, then Redis goes away.
        pub_y = await publish(node1.ws_url, "y")
        sessions.append(pub_y)
        player_y = await play(node1.ws_url, "y")
        sessions.append(player_y)
        await player_y.peer.wait_frames(5, 15, lambda f: f.number is not None)
        redis.stop()
        await poll_until(lambda: node1.cluster_view()["redisReachable"] is False, "node 1 sees Redis gone")
        last = max(player_y.peer.numbers())
        await player_y.peer.wait_frames(30, 10, lambda f: f.number is not None and f.number > last)
        await refused_publish(node1, "z", *UNAVAILABLE)
        assert await whip_refused(node1, "z") == (503, "CLUSTER_UNAVAILABLE")

        # Redis returns, empty, on the same port: node 1 registers again with its claim on y,
        # and publishing works again.
        redis.start()
        await poll_until(lambda: (redis.stream_record("y") or {}).get("node") == "node1",
                         "node 1 claims y again in the new Redis")

        async def publish_z():
            try:
                return await publish(node1.ws_url, "z")
            except RpcError as e:
                assert e.code == 1013, f"publish of z after Redis returned: {e.code} {e.message}"
                return None
        pub_z = await poll_until(publish_z, "publishing works again on node 1", 10, interval=0.3)
        sessions.append(pub_z)
        assert redis.stream_record("z")["node"] == "node1"
        await poll_until(lambda: listed(node1)[1] == {"x": "node3", "y": "node1", "z": "node1"},
                         "node 1 lists x on node3, y and z on node1")
        figures({"framesDecodedOnNode1WhileRedisWasAway": len([n for n in player_y.peer.numbers() if n > last])})
    finally:
        await close_all(*sessions)
