"""Hooks in a cluster (issue 9: "Hooks are sent once, by the node that owns the session";
docs/protocol.md section 4): two nodes and Redis, each node's app `hooked` posting to its own
path of one receiver (`/hooks/node1/...`, `/hooks/node2/...`). A publish on node 1 and a play
of it on node 2 (over a relay link): node 1 sends the publisher's hooks and nothing else, node
2 the player's and nothing else, each once, in order; the relay link between them (a
consumer on node 1, a source on node 2) sends none on either node. The publisher stops first,
so the player's UNPUBLISHED "Stopped by publisher stop" comes from node 2's own check of the
registry, and is its hook, not node 1's.

The control: every hook of both sessions is seen (so the receiver hears both nodes), and a
hook sent by the wrong node, twice, or for the link would break the exact sequences."""

import asyncio

from conftest_cluster import make_cluster, poll_until  # noqa: F401 (the fixture)
from sessions import close_all, play, publish
from sluice_client import SluiceClient
from test_hooks import HOOKED_APP, SECRET, HookReceiver, expected_signature, label


def test_cluster_hooks_come_once_from_the_sessions_node(make_cluster, figures):
    receiver = HookReceiver()
    receiver.start()
    try:
        apps = {index: {"apps": [{"key": "defaultApp"},
                                 {"key": HOOKED_APP, "hooks": {"url": f"{receiver.url}/node{index + 1}",
                                                               "secret": SECRET, "timeoutMs": 2000}}]}
                for index in range(2)}
        cluster = make_cluster(2, node_overrides=apps)
        asyncio.run(_hooks_across(cluster, receiver, figures))
    finally:
        receiver.stop()


async def hooked_session(ws_url: str, user: str) -> tuple[SluiceClient, str]:
    client = await SluiceClient.open(ws_url)
    result = await client.connect(HOOKED_APP, custom={"user": user})
    return client, result["sessionId"]


def node_of(call) -> str:
    """`node1` from `/hooks/node1/publishStream`."""
    return call.path.split("/")[2]


async def _hooks_across(cluster, receiver, figures):
    node1, node2 = cluster.nodes
    stream = "hooked-across"
    pub = ply = None
    try:
        pub_client, pub_session = await hooked_session(node1.ws_url, "alice")
        pub = await publish(node1.ws_url, stream, client=pub_client)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        await poll_until(lambda: any(s["name"] == stream and s.get("codecs") for s in node2.cluster_view()["streams"]),
                         "node 2 sees the stream")
        ply_client, ply_session = await hooked_session(node2.ws_url, "bob")
        ply = await play(node2.ws_url, stream, client=ply_client)
        await ply.client.wait_status(ply.handle, "PLAYING", 20)
        await ply.peer.wait_frames(10, 20)
        assert node1.metrics().count('sluice_cluster_links_by_edge{edge="node2"} 1') == 1, "one relay link"

        await pub.client.stop(pub.handle)
        status = await ply.client.wait_status(ply.handle, "UNPUBLISHED", 15)
        assert status.params.get("info") == "Stopped by publisher stop", status.params
        await close_all(pub, ply)
        pub = ply = None
        await receiver.wait_calls(lambda c: c.event == "disconnect", 2, timeout=10, what="disconnect hooks")
        await asyncio.sleep(0.5)  # anything sent late (twice, or by the link) arrives too
        calls = receiver.snapshot()

        for call in calls:
            assert call.headers.get("x-sluice-signature") == expected_signature(call.raw), call.event
            assert call.path == f"/hooks/{node_of(call)}/{call.event}", call.path
        sequences = {}
        for node in ("node1", "node2"):
            mine = [c for c in calls if node_of(c) == node]
            sessions = {c.body.get("sessionId") for c in mine}
            owner = pub_session if node == "node1" else ply_session
            assert sessions == {owner}, f"{node} sent hooks of sessions {sessions}, not only its own {owner}"
            handles = {c.body.get("handle") for c in mine if "handle" in c.body}
            own_handle = status.params["handle"] if node == "node2" else None
            if own_handle:
                assert handles == {own_handle}, f"{node} sent hooks of handles {handles}"
            assert not any(str(h).startswith("link-") for h in handles), f"{node} sent a hook of a relay link"
            ordered = sorted((c for c in mine if c.event != "streamEvent"), key=lambda c: c.body["seq"])
            sequences[node] = [label(c) for c in ordered]
        assert sequences["node1"] == ["connect", "publishStream", "streamStatus:PENDING", "streamStatus:PUBLISHING",
                                      "streamStatus:UNPUBLISHED", "disconnect"], sequences
        assert sequences["node2"] == ["connect", "playStream", "streamStatus:PENDING", "streamStatus:PLAYING",
                                      "streamStatus:UNPUBLISHED", "disconnect"], sequences
        player_end = next(c for c in calls if node_of(c) == "node2" and label(c) == "streamStatus:UNPUBLISHED")
        assert player_end.body["info"] == "Stopped by publisher stop", player_end.body
        figures({"hooks": sequences})
    finally:
        await close_all(pub, ply)
