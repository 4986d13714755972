"""How streams end when the server stops or a peer vanishes (issue: the skeleton's lifecycle)."""

import asyncio
import signal
import subprocess

import pytest

from sessions import close_all, play, publish

CONSENT_SECONDS = 2


def test_shutdown_tells_everyone(server):
    asyncio.run(_shutdown_tells_everyone(server))


async def _shutdown_tells_everyone(server):
    stream = "lifecycle-shutdown"
    pub = player = None
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        player = await play(server.ws_url, stream)
        await player.client.wait_status(player.handle, "PLAYING", 15)

        server.process.stopped_by_test = True
        server.process.send_signal(signal.SIGTERM)

        # The publisher's stream is UNPUBLISHED and each session is told DISCONNECTED.
        ended = await pub.client.wait_status(pub.handle, "UNPUBLISHED", 10)
        assert ended.params.get("info") == "Stopped by session disconnect", ended.params
        for client in (pub.client, player.client):
            await client.wait_notification(
                lambda n: n.method == "session" and n.params.get("status") == "DISCONNECTED", 10,
                "session DISCONNECTED")
        # The player's handle ended too, one way or the other (its publisher went, or its session).
        statuses = player.client.statuses(player.handle)
        assert statuses[-1] in ("UNPUBLISHED", "STOPPED"), statuses

        exit_code = await asyncio.to_thread(server.process.wait, 15)
        assert exit_code == 0, f"sluice exited with {exit_code} after SIGTERM"
    finally:
        await close_all(pub, player)


@pytest.fixture
def server_config_overrides():
    return {"rtc": {"iceConsentTimeoutSeconds": CONSENT_SECONDS}}


def _local_udp_ports(pc) -> set[int]:
    ports = set()
    for transceiver in pc.getTransceivers():
        ice = transceiver.sender.transport.transport
        for candidate in ice.iceGatherer.getLocalCandidates():
            ports.add(candidate.port)
    return ports


def test_vanished_publisher_fails_by_ice_timeout(server):
    asyncio.run(_vanished_publisher(server))


async def _vanished_publisher(server):
    """The publisher's packets stop reaching the server (an nftables drop on the input hook, in
    the test's own namespace): after rtc.iceConsentTimeoutSeconds its handle FAILS with
    "Failed by ICE timeout" and its player is told UNPUBLISHED "Stopped by publisher stop"."""
    stream = "lifecycle-vanish"
    pub = player = None
    table = "sluice_interop"
    try:
        pub = await publish(server.ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        player = await play(server.ws_url, stream)
        await player.client.wait_status(player.handle, "PLAYING", 15)

        ports = _local_udp_ports(pub.peer.pc)
        assert ports, "the publisher has no local UDP candidate"
        port_set = ", ".join(str(p) for p in sorted(ports))
        for command in (f"add table inet {table}",
                        f"add chain inet {table} input {{ type filter hook input priority 0; }}",
                        f"add rule inet {table} input udp sport {{ {port_set} }} drop"):
            subprocess.run(["nft", *command.split()], check=True)

        failed = await pub.client.wait_status(pub.handle, "FAILED", CONSENT_SECONDS + 10)
        assert failed.params.get("info") == "Failed by ICE timeout", failed.params
        gone = await player.client.wait_status(player.handle, "UNPUBLISHED", 5)
        assert gone.params.get("info") == "Stopped by publisher stop", gone.params
        # The player keeps a usable session: the name is free again.
        await player.client.ping()
    finally:
        subprocess.run(["nft", "delete", "table", "inet", table], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await close_all(pub, player)
