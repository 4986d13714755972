"""Debian's coturn (`turnserver`), started by a test on loopback with the shared-secret REST
scheme (`--use-auth-secret`), the one Sluice mints credentials for. Its log goes to the
artifacts; it is stopped when the context ends, whatever happened."""

import contextlib
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from conftest import _free_tcp_port, _free_udp_range, log_tail

TURNSERVER = os.environ.get("SLUICE_TURNSERVER", "/usr/bin/turnserver")
REALM = "sluice.test"
RELAY_PORTS = 100


@dataclass
class Coturn:
    port: int
    log_path: Path
    process: subprocess.Popen

    @property
    def url(self) -> str:
        return f"turn:127.0.0.1:{self.port}?transport=udp"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def _answers_stun(port: int) -> bool:
    """Whether a STUN Binding request (RFC 5389, no auth needed) to the port gets a reply."""
    request = bytes([0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xA4, 0x42]) + os.urandom(12)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(0.2)
        s.sendto(request, ("127.0.0.1", port))
        try:
            reply, _ = s.recvfrom(2048)
        except OSError:
            return False
    return reply[:2] == b"\x01\x01" and reply[8:20] == request[8:20]


@contextlib.contextmanager
def coturn(secret: str, log_path: Path, workdir: Path):
    """A turnserver on 127.0.0.1 that relays only from 127.0.0.1 and accepts loopback peers
    (it refuses them unless told otherwise). No TLS or DTLS listeners, no telnet CLI."""
    if not os.access(TURNSERVER, os.X_OK):
        raise AssertionError(f"{TURNSERVER} is missing: run scripts/install-deps.sh --test (Debian package coturn)")
    port = _free_tcp_port()
    relay = _free_udp_range(RELAY_PORTS)
    args = [TURNSERVER, "-n", "--verbose", "--fingerprint",
            "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", f"--listening-port={port}",
            f"--min-port={relay}", f"--max-port={relay + RELAY_PORTS - 1}",
            "--use-auth-secret", f"--static-auth-secret={secret}", f"--realm={REALM}",
            "--allow-loopback-peers", "--no-tls", "--no-dtls", "--no-cli",
            f"--pidfile={workdir / 'turnserver.pid'}", f"--log-file={log_path}", "--simple-log", "--no-stdout-log"]
    log_path.unlink(missing_ok=True)
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    server = Coturn(port, log_path, process)
    try:
        deadline = time.monotonic() + 15
        while not _answers_stun(port):
            if process.poll() is not None:
                raise AssertionError(f"turnserver exited with {process.returncode}; log {log_path}:\n{log_tail(log_path)}")
            if time.monotonic() > deadline:
                raise AssertionError(f"turnserver did not answer STUN on {port} within 15 s; log:\n{log_tail(log_path)}")
            time.sleep(0.1)
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
