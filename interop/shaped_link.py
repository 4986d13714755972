"""A peer in a network namespace of its own, joined to the test's namespace by a veth pair that
carries only 127.0.0.x/32 addresses (IPv6 off), so every packet still goes to 127.0.0.0/8; and
the shaping of that pair's UDP: a rate cap (tc tbf) or random loss (nftables numgen) on either
direction.

The test's namespace (the server's side) holds `server_dev` with `server_addr`; the peer's
namespace holds `peer_dev` with `peer_addr`. What the server sends the peer leaves through
`server_dev` ("down"); what the peer sends the server leaves through `peer_dev` ("up").
Only UDP is shaped: signaling over TCP must not queue behind a full cap (a TCP stream through a
full tbf backs its retransmissions off for tens of seconds).

This kernel has no sch_netem, so loss is an nftables rule; there is no kernel delay here at all
(see delay_line.py for a userspace one).
"""

import contextlib
import stat
import subprocess
from pathlib import Path

from chromium import CHROMIUM


def run(*args: str) -> None:
    subprocess.run(list(args), check=True)


def _quiet(*args: str) -> None:
    subprocess.run(list(args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


class ShapedLink:
    def __init__(self, netns: str = "sluice-player", server_dev: str = "sl-srv", peer_dev: str = "sl-ply",
                 server_addr: str = "127.0.0.2", peer_addr: str = "127.0.0.3"):
        self.netns, self.server_dev, self.peer_dev = netns, server_dev, peer_dev
        self.server_addr, self.peer_addr = server_addr, peer_addr
        self.inside = ["ip", "netns", "exec", netns]

    # The namespace and the pair.

    def up(self) -> None:
        self.down()
        run("ip", "netns", "add", self.netns)
        run("ip", "link", "add", self.server_dev, "type", "veth", "peer", "name", self.peer_dev)
        run("ip", "link", "set", self.peer_dev, "netns", self.netns)
        run("sysctl", "-qw", f"net.ipv6.conf.{self.server_dev}.disable_ipv6=1",
            f"net.ipv4.conf.{self.server_dev}.route_localnet=1", "net.ipv4.conf.all.route_localnet=1")
        run("ip", "addr", "add", f"{self.server_addr}/32", "dev", self.server_dev)
        run("ip", "link", "set", self.server_dev, "up")
        run("ip", "route", "add", f"{self.peer_addr}/32", "dev", self.server_dev, "src", self.server_addr)
        run(*self.inside, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv4.conf.all.route_localnet=1")
        run(*self.inside, "ip", "link", "set", "lo", "up")
        run(*self.inside, "sysctl", "-qw", f"net.ipv4.conf.{self.peer_dev}.route_localnet=1")
        run(*self.inside, "ip", "addr", "add", f"{self.peer_addr}/32", "dev", self.peer_dev)
        run(*self.inside, "ip", "link", "set", self.peer_dev, "up")
        run(*self.inside, "ip", "route", "add", f"{self.server_addr}/32", "dev", self.peer_dev, "src", self.peer_addr)

    def down(self) -> None:
        self.clear()
        _quiet("ip", "link", "del", self.server_dev)
        _quiet("ip", "netns", "del", self.netns)

    def launcher(self, directory: Path, executable: str = CHROMIUM) -> str:
        """A script that runs `executable` (Chromium) inside the peer's namespace, for
        playwright's `executable_path`."""
        wrapper = Path(directory) / f"{Path(executable).name}-in-{self.netns}"
        wrapper.write_text(f'#!/bin/sh\nexec ip netns exec {self.netns} "{executable}" "$@"\n')
        wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
        return str(wrapper)

    # Shaping. `direction` is "down" (server to peer) or "up" (peer to server).

    def _where(self, direction: str) -> tuple[list[str], str, str]:
        """(command prefix, egress device, destination address) of `direction`."""
        if direction == "down":
            return [], self.server_dev, self.peer_addr
        if direction == "up":
            return self.inside, self.peer_dev, self.server_addr
        raise ValueError(f"direction is 'up' or 'down', not {direction!r}")

    def cap_udp(self, direction: str, rate: str, burst: str = "20kb", latency: str = "150ms") -> None:
        """Caps the UDP of `direction` at `rate` (tc rate syntax, e.g. "1mbit").

        htb only sorts UDP into a class of its own (both classes far above any rate here); the
        tbf under it is the cap, with a queue of `latency` so a sender sees delay grow before
        loss. (sch_prio is not in every kernel these tests run on.)"""
        prefix, dev, _ = self._where(direction)
        run(*prefix, "tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1")
        for leaf in ("1:1", "1:2"):
            run(*prefix, "tc", "class", "add", "dev", dev, "parent", "1:", "classid", leaf, "htb",
                "rate", "1gbit", "quantum", "1514")
        run(*prefix, "tc", "qdisc", "add", "dev", dev, "parent", "1:2", "handle", "20:", "tbf", "rate", rate,
            "burst", burst, "latency", latency)
        run(*prefix, "tc", "filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "u32",
            "match", "ip", "protocol", "17", "0xff", "flowid", "1:2")

    def uncap(self, direction: str) -> None:
        prefix, dev, _ = self._where(direction)
        _quiet(*prefix, "tc", "qdisc", "del", "dev", dev, "root")

    def drop_udp(self, direction: str, percent: int) -> None:
        """Drops `percent` % of the UDP of `direction` at random (each packet on its own), as it
        arrives on the receiving side: a drop on the sender's output hook would fail its
        sendto with EPERM, which no real path does."""
        prefix, _, daddr = self._receiver(direction)
        table = f"sl_{direction}"
        run(*prefix, "nft", "add", "table", "ip", table)
        run(*prefix, "nft", "add", "chain", "ip", table, "in", "{ type filter hook prerouting priority 0; }")
        run(*prefix, "nft", "add", "rule", "ip", table, "in", "ip", "daddr", daddr, "meta", "l4proto", "udp",
            "numgen", "random", "mod", "100", "<", str(percent), "counter", "drop")

    def _receiver(self, direction: str) -> tuple[list[str], str, str]:
        """(command prefix, ingress device, destination address) of `direction`'s receiver."""
        if direction == "down":
            return self.inside, self.peer_dev, self.peer_addr
        if direction == "up":
            return [], self.server_dev, self.server_addr
        raise ValueError(f"direction is 'up' or 'down', not {direction!r}")

    def dropped(self, direction: str) -> int:
        """Packets the loss rule of `direction` dropped so far (0 without one)."""
        prefix, _, _ = self._receiver(direction)
        out = subprocess.run([*prefix, "nft", "list", "table", "ip", f"sl_{direction}"],
                             capture_output=True, text=True, check=False).stdout
        for word_at, word in enumerate(out.split()):
            if word == "packets":
                return int(out.split()[word_at + 1])
        return 0

    def undrop(self, direction: str) -> None:
        prefix, _, _ = self._receiver(direction)
        _quiet(*prefix, "nft", "delete", "table", "ip", f"sl_{direction}")

    def clear(self) -> None:
        """Every cap and loss rule off, both directions (the namespace stays)."""
        for direction in ("down", "up"):
            self.uncap(direction)
            self.undrop(direction)


@contextlib.contextmanager
def shaped_link(**names):
    """A ShapedLink that is up for the block and gone after it, whatever happened."""
    link = ShapedLink(**names)
    try:
        link.up()
        yield link
    finally:
        link.down()
