"""A cluster on a Redis with a password (issue 27, docs/cluster.md "Securing Redis"): Redis runs
with `requirepass`, and the nodes' `cluster.redis` carries the password. Two nodes with it form
the cluster (each lists both) and an aiortc player on node 2 decodes a stream published on
node 1 through their relay link; the admin API shows the URL with `***`. A third node without
the password, and one with a wrong password, do not start: each exits with Redis's words
(`NOAUTH`, `WRONGPASS`) and never the password. The password appears in no node's log."""

import asyncio
import json
import subprocess

from conftest import require_binary
from conftest_cluster import make_cluster, poll_until  # noqa: F401 (the fixture)
from sessions import close_all, play, publish

PASSWORD = "interop-redis-password-4e2a"


def test_nodes_with_the_password_form_the_cluster_and_others_refuse_to_start(make_cluster, tmp_path):
    asyncio.run(_auth(make_cluster(2, redis_password=PASSWORD), tmp_path))


async def _auth(cluster, tmp_path):
    node1, node2 = cluster.nodes
    for node in (node1, node2):
        await poll_until(lambda node=node: {n["nodeId"] for n in node.cluster_view()["nodes"]} == {"node1", "node2"},
                         f"{node.node_id} lists both nodes")
    view = node1.cluster_view()
    assert view["redis"].startswith("redis://:***@127.0.0.1:"), view["redis"]
    assert PASSWORD not in json.dumps(view)

    publisher = await publish(node1.ws_url, "auth-cam")
    player = None
    try:
        await poll_until(lambda: (cluster.redis.stream_record("auth-cam") or {}).get("codecs"),
                         "the stream's record in Redis (written through AUTH)")
        await poll_until(lambda: any(s["name"] == "auth-cam" for s in node2.cluster_view()["streams"]),
                         "node 2 lists the stream (read through AUTH)")
        player = await play(node2.ws_url, "auth-cam")
        frames = await player.peer.wait_frames(10, timeout=20)
        assert len(frames) >= 10
    finally:
        await close_all(player, publisher)

    for given, words in ((None, "NOAUTH"), ("not-the-password", "WRONGPASS")):
        config = json.loads(node2.config_path.read_text())
        credentials = f":{given}@" if given else ""
        config["cluster"]["redis"] = f"redis://{credentials}127.0.0.1:{cluster.redis.port}"
        config["cluster"]["nodeId"] = "node3"
        config["server"]["port"] = node2.http_port + 1000 if node2.http_port < 64000 else node2.http_port - 1000
        path = tmp_path / f"node3-{words}.json"
        path.write_text(json.dumps(config))
        ended = subprocess.run([str(require_binary()), "--config", str(path)], capture_output=True, text=True,
                               timeout=30)
        output = ended.stdout + ended.stderr
        assert ended.returncode != 0, f"a node Redis refuses must not start: {output}"
        assert "cluster.redis" in output and "refused" in output and words in output, output
        if given is not None:
            assert "redis://:***@" in output, output
        assert PASSWORD not in output and "not-the-password" not in output, output

    for node in (node1, node2):
        assert PASSWORD not in node.log_path.read_text(errors="replace"), f"{node.node_id}'s log shows the password"
