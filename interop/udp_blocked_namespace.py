"""A network namespace for a client that cannot use UDP, as behind an office or hotel firewall.

The namespace is joined to the test's namespace by a veth pair that carries only 127.0.0.x/32
addresses (IPv6 off, route_localnet on), so every packet still goes to 127.0.0.0/8, as in
test_bandwidth.py. Inside it an nftables table drops every UDP packet, in and out; the test's
own namespace (the server's) is untouched, so other clients there keep UDP.

Why a namespace of its own rather than a rule in the test's namespace: a rule there would drop
the server's UDP too, and nft cannot tell one local process's packets from another's on `lo`;
here only the client's packets pass the rule, and a UDP client in the same test (the figure's
baseline) runs beside it.
"""

import contextlib
import stat
import subprocess
from pathlib import Path

from chromium import CHROMIUM

NETNS = "sluice-no-udp"
SERVER_ADDR = "127.0.0.5"
CLIENT_ADDR = "127.0.0.6"
SERVER_LINK = "sl-nu-srv"
CLIENT_LINK = "sl-nu-cli"

NFT_RULES = """
table inet sluice_no_udp {
    chain input { type filter hook input priority 0; policy accept; meta l4proto udp counter drop; }
    chain output { type filter hook output priority 0; policy accept; meta l4proto udp counter drop; }
}
"""


def _run(*args: str, input: str | None = None) -> str:
    return subprocess.run(list(args), check=True, capture_output=True, text=True, input=input).stdout


def _cleanup() -> None:
    subprocess.run(["ip", "link", "del", SERVER_LINK], stderr=subprocess.DEVNULL, check=False)
    subprocess.run(["ip", "netns", "del", NETNS], stderr=subprocess.DEVNULL, check=False)


@contextlib.contextmanager
def udp_blocked_namespace():
    """Makes the namespace (veth, addresses, routes, the nft table); removes it all afterwards."""
    _cleanup()
    _run("ip", "netns", "add", NETNS)
    try:
        inside = ["ip", "netns", "exec", NETNS]
        _run("ip", "link", "add", SERVER_LINK, "type", "veth", "peer", "name", CLIENT_LINK)
        _run("ip", "link", "set", CLIENT_LINK, "netns", NETNS)
        _run("sysctl", "-qw", f"net.ipv6.conf.{SERVER_LINK}.disable_ipv6=1",
             f"net.ipv4.conf.{SERVER_LINK}.route_localnet=1", "net.ipv4.conf.all.route_localnet=1")
        _run("ip", "addr", "add", f"{SERVER_ADDR}/32", "dev", SERVER_LINK)
        _run("ip", "link", "set", SERVER_LINK, "up")
        _run("ip", "route", "add", f"{CLIENT_ADDR}/32", "dev", SERVER_LINK, "src", SERVER_ADDR)
        _run(*inside, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv4.conf.all.route_localnet=1")
        _run(*inside, "ip", "link", "set", "lo", "up")
        _run(*inside, "sysctl", "-qw", f"net.ipv4.conf.{CLIENT_LINK}.route_localnet=1")
        _run(*inside, "ip", "addr", "add", f"{CLIENT_ADDR}/32", "dev", CLIENT_LINK)
        _run(*inside, "ip", "link", "set", CLIENT_LINK, "up")
        _run(*inside, "ip", "route", "add", f"{SERVER_ADDR}/32", "dev", CLIENT_LINK, "src", CLIENT_ADDR)
        _run(*inside, "nft", "-f", "-", input=NFT_RULES)
        yield
    finally:
        subprocess.run(["ip", "netns", "exec", NETNS, "nft", "delete", "table", "inet", "sluice_no_udp"],
                       stderr=subprocess.DEVNULL, check=False)
        _cleanup()


def dropped_udp_packets() -> int:
    """UDP packets the namespace's rule dropped so far (both directions)."""
    out = _run("ip", "netns", "exec", NETNS, "nft", "list", "table", "inet", "sluice_no_udp")
    total = 0
    for line in out.splitlines():
        if "counter packets" in line:
            total += int(line.split("counter packets")[1].split()[0])
    return total


def chromium_in_namespace(directory: Path) -> str:
    """A launcher that runs Debian's Chromium inside the namespace (for `chromium_page`)."""
    wrapper = directory / "chromium-no-udp"
    wrapper.write_text(f'#!/bin/sh\nexec ip netns exec {NETNS} "{CHROMIUM}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return str(wrapper)
