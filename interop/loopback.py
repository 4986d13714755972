"""Loopback-only guards (docs/design.md "Loopback only").

Every interop test runs inside a private network namespace that has only `lo`, so no packet
can leave 127.0.0.0/8. aiortc needs two adjustments to work there: aioice skips 127.0.0.1 when
it gathers host candidates, and aiortc's default configuration names a STUN server on the
internet.
"""

import ipaddress
import json
import subprocess

import aioice.ice
from aiortc import RTCConfiguration, RTCPeerConnection

LOOPBACK = "127.0.0.1"


def _loopback_host_addresses(use_ipv4: bool, use_ipv6: bool) -> list[str]:
    return [LOOPBACK]


def patch_aioice() -> None:
    """Makes aioice gather exactly one host candidate, 127.0.0.1."""
    aioice.ice.get_host_addresses = _loopback_host_addresses


def new_peer_connection() -> RTCPeerConnection:
    """An aiortc peer connection that gathers only 127.0.0.1 and asks no STUN server."""
    patch_aioice()
    return RTCPeerConnection(RTCConfiguration(iceServers=[]))


def non_loopback_addresses() -> list[str]:
    """Every address on any interface outside 127.0.0.0/8 and ::1, as 'ifname addr'."""
    out = subprocess.run(["ip", "-j", "addr", "show"], check=True, capture_output=True, text=True).stdout
    found = []
    for link in json.loads(out or "[]"):
        for info in link.get("addr_info", []):
            addr = ipaddress.ip_address(info["local"])
            if not addr.is_loopback:
                found.append(f"{link.get('ifname')} {addr}")
    return found


def loopback_is_up() -> bool:
    out = subprocess.run(["ip", "-j", "addr", "show", "lo"], check=True, capture_output=True, text=True).stdout
    links = json.loads(out or "[]")
    return any(
        info.get("local") == LOOPBACK for link in links for info in link.get("addr_info", [])
    ) and all("UP" in link.get("flags", []) for link in links)
