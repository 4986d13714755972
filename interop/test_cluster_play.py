"""Playing a stream on another node (issue 9, docs/cluster.md "Relay links"): three nodes and a
real Redis, two media workers each. Chromium publishes three simulcast layers on node 1; on
node 2 a Chromium player (low) and an aiortc player, on node 3 a Chromium player (high) and a
waiting aiortc player play it. Each edge node opens one relay link to node 1 for the stream,
however many players it has, and feeds its players from it as from a local publisher: they
decode the width they asked for. kill -9 node 2 (an edge): node 3's players go on, and node 1
drops node 2's link. kill -9 node 1 (the origin): node 3's players get UNPUBLISHED "Stopped by
origin node loss" (the figure: how long after the kill), and the waiting player gets the
stream again when it is published anew on node 3.

The controls: before the publish, a play of the name on node 2 gets 1004 (nothing feeds it),
so the frames afterwards come over the link; the publisher stop in test_cluster_wait_and_faults
gives "Stopped by publisher stop", so the info here names the node's loss, not any end."""

import asyncio
import time

from chromium import chromium_page
from conftest_cluster import make_cluster, poll_until  # noqa: F401 (the fixture)
from polling import poll
from rpc_assert import expect_rpc_error
from sessions import PlaySession, close_all, open_session, play, publish
from sluice_client import RpcError
from media import Player
from simulcast_page import SIMULCAST_SCRIPT

WIDTHS = {"q": 320, "h": 640, "f": 1280}
NOT_FOUND = (1004, "STREAM_NOT_FOUND", "Stream not found")


async def play_video(node, stream, wait: bool = False) -> PlaySession:
    """An aiortc player that offers video only (the Chromium publisher sends no audio)."""
    client = await open_session(node.ws_url)
    peer = Player(audio=False)
    result = await client.play(stream, await peer.offer(), wait=wait)
    await peer.accept(result["sdp"])
    return PlaySession(client, peer, result["handle"], 0, 0)


def links_by_edge(node) -> dict:
    """{edge node: links} from the origin's sluice_cluster_links_by_edge."""
    links = {}
    for line in node.metrics().splitlines():
        if line.startswith("sluice_cluster_links_by_edge{"):
            labels, value = line[line.index("{") + 1:line.index("}")], line.split()[-1]
            edge = dict(item.split("=", 1) for item in labels.split(","))["edge"].strip('"')
            links[edge] = int(float(value))
    return links


async def refused_play(node, stream, code, reason, message):
    client = await open_session(node.ws_url)
    peer = Player()
    try:
        await expect_rpc_error(client.play(stream, await peer.offer()), code, reason, message)
    finally:
        await peer.close()
        await client.close()


def test_players_on_other_nodes_share_one_link_per_node_and_learn_of_node_loss(make_cluster, figures):
    asyncio.run(_play_across(make_cluster(3, workers=2), figures))


ORIGIN_LOSS = "Stopped by origin node loss"


def chromium_unpublished(name: str) -> str:
    """Page expression: the first UNPUBLISHED status of player `name` ({info, at}) or null."""
    return (f"(window.sim.players['{name}'].client.notes.filter((n) => n.method === 'streamStatus'"
            f" && n.params.status === 'UNPUBLISHED').map((n) => ({{info: n.params.info, at: n.at}}))[0] || null)")


async def _play_across(cluster, figures):
    node1, node2, node3 = cluster.nodes
    stream = "across"
    sessions = []
    try:
        await refused_play(node2, stream, *NOT_FOUND)
        async with chromium_page() as page:
            await page.evaluate(SIMULCAST_SCRIPT)
            await page.evaluate("([url, stream]) => window.sim.publish(url, stream)", [node1.ws_url, stream])
            await poll(page, "window.sim.outbound()",
                       lambda o: all(o.get(rid, {}).get("frameWidth") == w for rid, w in WIDTHS.items()),
                       30, "three encodings at 320/640/1280")
            # The claim (with the publisher's codecs) reaches the other nodes' cached view.
            await poll_until(lambda: any(s["name"] == stream and s["node"] == "node1" and s.get("codecs")
                                         for s in node2.cluster_view()["streams"]), "node 2 sees the stream")
            await poll_until(lambda: any(s["name"] == stream and s["node"] == "node1" and s.get("codecs")
                                         for s in node3.cluster_view()["streams"]), "node 3 sees the stream")

            # Chromium players at two widths, one on each edge; an aiortc player on each edge,
            # node 3's waiting (it stays when the stream ends).
            for name, quality, node in (("low", "low", node2), ("high", "high", node3)):
                await page.evaluate("([url, stream, name, c]) => window.sim.play(url, stream, name, c)",
                                    [node.ws_url, stream, name, {"video": {"quality": quality}}])
            near = await play_video(node2, stream)
            sessions.append(near)
            far = await play_video(node3, stream, wait=True)
            sessions.append(far)
            seen = {}
            for name, width in (("low", 320), ("high", 1280)):
                seen[name] = await poll(page, f"window.sim.inbound('{name}')",
                                        lambda s, w=width: s["frameWidth"] == w and s["framesDecoded"] >= 10,
                                        30, f"player {name} decoding {width}-wide frames")
            for player in (near, far):
                await player.client.wait_status(player.handle, "PLAYING", 20)
                await player.peer.wait_frames(10, 20)

            # One link per edge node, whatever its number of players.
            links = await poll_until(lambda: (lambda l: l if l == {"node2": 1, "node3": 1} else None)(links_by_edge(node1)),
                                     "node 1 serves exactly one link to node 2 and one to node 3")

            # kill -9 node 2, an edge: node 3's players go on; node 1 drops node 2's link.
            node2.kill9()
            sessions.remove(near)
            decoded = (await page.evaluate("window.sim.inbound('high')"))["framesDecoded"]
            count = len(far.peer.frames)
            await far.peer.wait_frames(count + 30, 15)
            await poll(page, "window.sim.inbound('high')",
                       lambda s: s["framesDecoded"] >= decoded + 30 and s["frameWidth"] == 1280, 15,
                       "node 3's Chromium player decoding on after node 2 died")
            await poll_until(lambda: links_by_edge(node1) in ({"node3": 1}, {"node2": 0, "node3": 1}),
                             "node 1 serves node 3's link only once node 2 died", 20)
            assert "UNPUBLISHED" not in await page.evaluate("window.sim.statuses('high')")
            assert "UNPUBLISHED" not in far.client.statuses(far.handle)

            # kill -9 node 1, the origin: node 3's players are told, naming the cause.
            killed_page = await page.evaluate("window.sim.now()")
            killed = time.monotonic()
            node1.kill9()
            status = await far.client.wait_status(far.handle, "UNPUBLISHED", 20)
            aiortc_ms = round((time.monotonic() - killed) * 1000)
            assert status.params.get("info") == ORIGIN_LOSS, status.params
            told = await poll(page, chromium_unpublished("high"), lambda u: u is not None, 20,
                              "node 3's Chromium player UNPUBLISHED")
            assert told["info"] == ORIGIN_LOSS, told
            figures({"links": links, "players": seen, "aiortcFrames": len(far.peer.frames),
                     "originKillToUnpublishedMs": {"aiortc": aiortc_ms,
                                                   "chromium": round(told["at"] - killed_page)}})

            # Published anew, on node 3 itself: the waiting player there gets the stream again
            # (once node 1's claim on the name has expired; until then 1003).
            async def publish_on_node3():
                try:
                    return await publish(node3.ws_url, stream, audio=False)
                except RpcError as e:
                    assert e.code == 1003, f"publish on node 3 after the origin died: {e.code} {e.message}"
                    return None
            anew = await poll_until(publish_on_node3, "the name free for node 3", 15, interval=0.3)
            sessions.append(anew)
            await poll_until(lambda: far.client.statuses(far.handle)[-1] == "PLAYING",
                             "node 3's waiting player PLAYING again", 20)
            count = len(far.peer.frames)
            await far.peer.wait_frames(count + 10, 20)
    finally:
        await close_all(*sessions)


UNAVAILABLE = (1013, "CLUSTER_UNAVAILABLE", "Cluster state unavailable")


def test_cluster_wait_and_faults(make_cluster, figures):
    asyncio.run(_wait_and_faults(make_cluster(3), figures))


async def _wait_and_faults(cluster, figures):
    """A `wait` player on node 3 gets a stream published later on node 2, as does a player on
    node 1; with Redis stopped node 3's player goes on while a new cross-node play is refused
    (1013), and plays work again when Redis returns; when the publisher stops, the players on
    both edges get UNPUBLISHED "Stopped by publisher stop" (its origin node lives: the control
    for the node-loss info of the test above), the waiting one stays, and the links go."""
    node1, node2, node3 = cluster.nodes
    redis = cluster.redis
    stream = "later"
    sessions = []
    try:
        waiting = await play(node3.ws_url, stream, wait=True)
        sessions.append(waiting)
        pub = await publish(node2.ws_url, stream)
        sessions.append(pub)
        await waiting.client.wait_status(waiting.handle, "PLAYING", 20)
        await waiting.peer.wait_frames(10, 20)
        near = await play(node1.ws_url, stream)
        sessions.append(near)
        await near.peer.wait_frames(10, 20)
        await poll_until(lambda: links_by_edge(node2) == {"node1": 1, "node3": 1}, "node 2 links to node 1 and node 3")

        # Redis stops: node 3's player goes on; a new play of another node's stream is refused.
        redis.stop()
        await poll_until(lambda: node3.cluster_view()["redisReachable"] is False, "node 3 sees Redis gone")
        count = len(waiting.peer.frames)
        await waiting.peer.wait_frames(count + 30, 15)
        await refused_play(node3, stream, *UNAVAILABLE)

        # Redis returns (empty): node 2 claims its stream again, and node 3 plays it anew.
        redis.start()

        async def play_again():
            try:
                return await play(node3.ws_url, stream)
            except RpcError as e:
                assert e.code in (1004, 1013), f"play after Redis returned: {e.code} {e.message}"
                return None
        again = await poll_until(play_again, "a new play on node 3 after Redis returned", 20, interval=0.5)
        sessions.append(again)
        await again.peer.wait_frames(10, 20)

        # The publisher stops (its node lives): every player on the other nodes is told so.
        await pub.client.stop(pub.handle)
        stopped = time.monotonic()
        for player in (again, near, waiting):
            status = await player.client.wait_status(player.handle, "UNPUBLISHED", 15)
            assert status.params.get("info") == "Stopped by publisher stop", status.params
        figures({"publisherStopToUnpublishedMs": round((time.monotonic() - stopped) * 1000)})
        await poll_until(lambda: links_by_edge(node2) in ({}, {"node1": 0, "node3": 0}),
                         "node 2's links are gone once no edge has a stream to relay")
    finally:
        await close_all(*sessions)
