"""Debian's Prometheus (`/usr/bin/prometheus`), started by a test on 127.0.0.1 with a config
of the test's own and its storage in a temp folder, and a small client of its HTTP API. Its
log goes to the artifacts; it is stopped when the context ends, whatever happened."""

import contextlib
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from conftest import _free_tcp_port, log_tail

PROMETHEUS = os.environ.get("SLUICE_PROMETHEUS", "/usr/bin/prometheus")
PROMTOOL = os.environ.get("SLUICE_PROMTOOL", "/usr/bin/promtool")


@dataclass
class Prometheus:
    url: str
    log_path: Path
    process: subprocess.Popen

    def api(self, path: str, **params) -> dict:
        """The decoded answer of GET /api/v1/<path>; an error answer (400, 422) is returned
        too, as its JSON says what was wrong."""
        query = ("?" + urllib.parse.urlencode(params)) if params else ""
        try:
            with urllib.request.urlopen(f"{self.url}/api/v1/{path}{query}", timeout=10) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as e:
            return json.loads(e.read() or b"{}")

    def query(self, expr: str) -> dict:
        return self.api("query", query=expr)

    def log(self) -> str:
        return log_tail(self.log_path, 30)


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/-/ready", timeout=1) as response:
            return response.status == 200
    except OSError:
        return False


@contextlib.contextmanager
def prometheus(config_path: Path, storage: Path, log_path: Path):
    """A prometheus on a free loopback port, ready to answer queries."""
    if not os.access(PROMETHEUS, os.X_OK):
        raise AssertionError(f"{PROMETHEUS} is missing: run scripts/install-deps.sh --test (Debian package prometheus)")
    port = _free_tcp_port()
    url = f"http://127.0.0.1:{port}"
    args = [PROMETHEUS, f"--config.file={config_path}", f"--storage.tsdb.path={storage}",
            f"--web.listen-address=127.0.0.1:{port}", "--log.level=info"]
    log = open(log_path, "wb")
    process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not _ready(url):
            if process.poll() is not None:
                raise AssertionError(f"prometheus exited with {process.returncode}; log {log_path}:\n{log_tail(log_path)}")
            if time.monotonic() > deadline:
                raise AssertionError(f"prometheus was not ready on {port} within 30 s; log:\n{log_tail(log_path)}")
            time.sleep(0.1)
        yield Prometheus(url, log_path, process)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()


def promtool(*args: str) -> subprocess.CompletedProcess:
    if not os.access(PROMTOOL, os.X_OK):
        raise AssertionError(f"{PROMTOOL} is missing: run scripts/install-deps.sh --test (Debian package prometheus)")
    return subprocess.run([PROMTOOL, *args], capture_output=True, text=True, timeout=30)
