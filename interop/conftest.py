"""Fixtures for the interop suite: the loopback-only guard, a real `sluice` server per test,
and the figures file.

Environment:
  SLUICE_BINARY        server binary (default .build/release/sluice)
  SLUICE_ARTIFACTS     where logs, screenshots and figures.json go (default artifacts/)
  SLUICE_TEST_WORKERS  rtc.workers for the test server (default 2; media ports are port..port+n-1)
"""

import datetime
import json
from typing import Optional
import os
import random
import re
import signal
import socket
import ssl
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from loopback import loopback_is_up, non_loopback_addresses, patch_aioice

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = Path(os.environ.get("SLUICE_ARTIFACTS", REPO / "artifacts"))
BINARY = Path(os.environ.get("SLUICE_BINARY", REPO / ".build" / "release" / "sluice"))
DEFAULT_CONFIG = REPO / "conf" / "sluice.json"
WORKERS = int(os.environ.get("SLUICE_TEST_WORKERS", "2"))
FIGURES = ARTIFACTS / "figures.json"
# test_package.py runs only from scripts/check-package.sh, which hands it the server and config
# extracted from the .deb; elsewhere it is not collected (a skip would count as a failure).
collect_ignore = [] if os.environ.get("SLUICE_PACKAGE_CONFIG") else ["test_package.py"]

# What a crashed or aborting server leaves in its output. DTLS "fatal alert" lines are not crashes.
CRASH_MARKERS = re.compile(
    r"Fatal error|Segmentation fault|Illegal instruction|AddressSanitizer|Current stack trace|"
    r"Stack dump|\bSIGSEGV\b|\bSIGILL\b|\bSIGABRT\b", re.IGNORECASE)
FATAL_WORD = re.compile(r"\bfatal\b", re.IGNORECASE)


def pytest_configure(config):
    patch_aioice()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # A skipped interop test proves nothing, so it counts as a failure.
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"interop tests must not skip: {report.longrepr}"


_session_figures: dict = {}


def pytest_terminal_summary(terminalreporter):
    if _session_figures:
        terminalreporter.section("measured figures (also in artifacts/figures.json)")
        for name, data in _session_figures.items():
            terminalreporter.write_line(f"{name}: {json.dumps(data, sort_keys=True)}")


@pytest.fixture
def figures(request):
    """record(data): merges data under this test's name into artifacts/figures.json and prints it."""
    def record(data: dict) -> None:
        entry = _session_figures.setdefault(request.node.name, {})
        entry.update(data)
        entry["recordedAt"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        try:
            existing = json.loads(FIGURES.read_text())
        except (OSError, ValueError):
            existing = {}
        existing[request.node.name] = entry
        FIGURES.write_text(json.dumps(existing, indent=2, sort_keys=True) + "\n")
        print(f"figures {request.node.name}: {json.dumps(data, sort_keys=True)}")
    return record


@pytest.fixture(scope="session", autouse=True)
def loopback_only():
    """Refuses to run unless this network namespace has no address outside loopback."""
    outside = non_loopback_addresses()
    if outside:
        pytest.fail("interop tests run only in a private network namespace with just `lo` "
                    f"(found {outside}); run: unshare -n bash -c 'ip link set lo up && ...' "
                    "(see interop/README.md)", pytrace=False)
    if not loopback_is_up():
        pytest.fail("`lo` is down or has no 127.0.0.1: run `ip link set lo up` first", pytrace=False)


@pytest.fixture
def artifacts(request) -> Path:
    return ARTIFACTS


# Ports Chromium refuses to open (its restricted-port list; ERR_UNSAFE_PORT): a page's
# WebSocket to a server on one fails at once ("websocket error"). 10080 is the only one in
# 10000-19999; a CI run drew it.
CHROMIUM_BLOCKED_PORTS = {10080}


def _free_tcp_port() -> int:
    """A free TCP port in 10000-19999: outside the media ranges `_free_udp_range` hands out
    (a server's ICE-TCP ports follow rtc.port, and an HTTP port the kernel picked once fell
    inside them) and outside the kernel's ephemeral range, where clients' ports come from."""
    for _ in range(500):
        port = random.randrange(10000, 20000)
        if port in CHROMIUM_BLOCKED_PORTS:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free TCP port in 10000-19999 on 127.0.0.1")


def _free_udp_range(count: int) -> int:
    """A base port whose `count` ports are free for UDP and for TCP (ICE-TCP listens on the
    same numbers by default)."""
    for _ in range(200):
        base = random.randrange(20000, 60000 - count)
        sockets = []
        try:
            for port in range(base, base + count):
                for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
                    s = socket.socket(socket.AF_INET, kind)
                    sockets.append(s)
                    s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise RuntimeError("no free UDP port range on 127.0.0.1")


def write_test_config(path: Path, http_port: int, media_port: int, workers: int,
                      overrides: Optional[dict] = None) -> dict:
    """The default config with fresh ports, debug logging, no drain (SIGTERM stops at once, as
    the teardown expects) and loopback addresses only;
    `overrides` maps a section to keys that replace the default's (e.g. {"rtc": {...}}); a
    section given as a list (e.g. {"apps": [...]}) replaces the default's list. A `defaultApp`
    without hooks is added when the apps do not name it."""
    config = json.loads(DEFAULT_CONFIG.read_text())
    config.setdefault("server", {}).update({"host": "127.0.0.1", "port": http_port, "drainSeconds": 0})
    config.setdefault("rtc", {}).update({"bindAddress": "127.0.0.1", "port": media_port, "workers": workers,
                                         "announcedAddresses": ["127.0.0.1"]})
    config.setdefault("log", {})["level"] = "debug"
    for section, values in (overrides or {}).items():
        if isinstance(values, dict):
            config.setdefault(section, {}).update(values)
        else:
            config[section] = values
    apps = config.setdefault("apps", [])
    if not any(app.get("key") == "defaultApp" for app in apps):
        apps.append({"key": "defaultApp"})
    path.write_text(json.dumps(config, indent=2) + "\n")
    return config


def log_tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join(text[-lines:])


def require_binary() -> Path:
    if not BINARY.is_file() or not os.access(BINARY, os.X_OK):
        pytest.fail(f"server binary {BINARY} is missing: build it first with `swift build -c release` "
                    "(scripts/test.sh does), or set SLUICE_BINARY", pytrace=False)
    return BINARY


@dataclass
class SluiceServer:
    ws_url: str
    http_url: str
    media_ports: list
    config_path: Path
    log_path: Path
    process: subprocess.Popen
    # With server.tls: the context `get` uses (it checks no certificate: tests that care bring their own).
    ssl_context: Optional[ssl.SSLContext] = None

    @property
    def media_port(self) -> int:
        return self.media_ports[0]

    def get(self, path: str, timeout: float = 5.0):
        """(status, parsed JSON or text) of a GET on the server's HTTP port."""
        try:
            with urllib.request.urlopen(self.http_url + path, timeout=timeout, context=self.ssl_context) as response:
                body = response.read().decode()
                status = response.status
        except urllib.error.HTTPError as e:
            body, status = e.read().decode(errors="replace"), e.code
        try:
            return status, json.loads(body)
        except ValueError:
            return status, body

    def health(self) -> dict:
        status, body = self.get("/health")
        assert status == 200 and isinstance(body, dict) and body.get("status") == "ok", \
            f"/health answered {status} {body!r}"
        return body


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:100]


@pytest.fixture
def server_config_overrides() -> dict:
    """Config sections a test module wants changed; override this fixture in the module."""
    return {}


@pytest.fixture
def server(request, tmp_path, server_config_overrides) -> SluiceServer:
    """A fresh `sluice` on fresh loopback ports; on teardown it must exit 0 on SIGTERM, uncrashed."""
    binary = require_binary()
    http_port = _free_tcp_port()
    media_port = _free_udp_range(WORKERS)
    config_path = tmp_path / "sluice.json"
    config = write_test_config(config_path, http_port, media_port, WORKERS, server_config_overrides)
    host = config["server"]["host"]
    log_path = ARTIFACTS / f"server-{_safe_name(request.node.name)}.log"
    log = open(log_path, "wb")
    process = subprocess.Popen([str(binary), "--config", str(config_path)], cwd=REPO,
                               stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    tls = bool(config["server"].get("tls"))
    info = SluiceServer(f"{'wss' if tls else 'ws'}://{host}:{http_port}/ws", f"{'https' if tls else 'http'}://{host}:{http_port}",
                        list(range(media_port, media_port + WORKERS)), config_path, log_path, process)
    if tls:
        info.ssl_context = ssl._create_unverified_context()
    try:
        deadline = time.monotonic() + 30
        last = None
        while True:
            if process.poll() is not None:
                pytest.fail(f"sluice exited with {process.returncode} before /health answered; "
                            f"log {log_path}:\n{log_tail(log_path)}", pytrace=False)
            try:
                info.health()
                break
            except (OSError, AssertionError) as e:
                last = e
            if time.monotonic() > deadline:
                pytest.fail(f"sluice /health did not answer ok within 30 s ({last}); log {log_path}:\n"
                            f"{log_tail(log_path)}", pytrace=False)
            time.sleep(0.1)
        yield info
    finally:
        _stop_server(process, log_path)
        log.close()
    _check_clean_exit(process, log_path)


def _stop_server(process: subprocess.Popen, log_path: Path) -> None:
    if getattr(process, "stopped_by_test", False):
        # The test signalled the server itself and checked how it ended.
        process.wait()
        process.died_early = False
        process.killed = False
        return
    if process.poll() is not None:
        process.died_early = True
        return
    process.died_early = False
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
        process.killed = False
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        process.killed = True


def _check_clean_exit(process: subprocess.Popen, log_path: Path) -> None:
    if process.died_early:
        pytest.fail(f"sluice died during the test with exit status {process.returncode}; "
                    f"log {log_path}:\n{log_tail(log_path)}", pytrace=False)
    if process.killed:
        pytest.fail(f"sluice did not exit within 15 s of SIGTERM; log {log_path}:\n{log_tail(log_path)}",
                    pytrace=False)
    assert process.returncode == 0, \
        f"sluice exited with {process.returncode} after SIGTERM; log {log_path}:\n{log_tail(log_path)}"
    text = log_path.read_text(errors="replace")
    crash = [line for line in text.splitlines()
             if CRASH_MARKERS.search(line) or (FATAL_WORD.search(line) and "alert" not in line.lower())]
    assert not crash, f"sluice log {log_path} shows a crash or fatal error:\n" + "\n".join(crash[:20])
