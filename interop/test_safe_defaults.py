"""Safe defaults of the real binary: it refuses to start with the placeholder admin token when
it binds or announces an address outside loopback, unless `--insecure-dev`; and it reports its
open-file limit at start.

Announcing an address only writes it into answers' candidates: nothing is ever sent to
203.0.113.7 (TEST-NET-3), and no client connects here. Binding 0.0.0.0 inside the interop
namespace binds only `lo`, the one interface there."""

import json
import signal
import subprocess
import time
import urllib.request

from conftest import ARTIFACTS, REPO, _free_tcp_port, _free_udp_range, log_tail, require_binary, write_test_config

PLACEHOLDER = "change-me-admin-token"
ANNOUNCED = "203.0.113.7"


def _config(tmp_path, name: str, rtc=None, server=None, token=PLACEHOLDER):
    path = tmp_path / f"{name}.json"
    http_port, media_port = _free_tcp_port(), _free_udp_range(1)
    overrides = {"admin": {"token": token}}
    if rtc:
        overrides["rtc"] = rtc
    if server:
        overrides["server"] = server
    write_test_config(path, http_port, media_port, 1, overrides)
    return path, http_port


def _run(binary, path, *flags):
    return subprocess.run([str(binary), "--config", str(path), *flags], capture_output=True, text=True,
                          timeout=30, stdin=subprocess.DEVNULL, cwd=REPO)


def test_placeholder_token_on_an_exposed_server_is_refused(tmp_path):
    binary = require_binary()
    announced, _ = _config(tmp_path, "announced", rtc={"announcedAddresses": ["127.0.0.1", ANNOUNCED]})
    wildcard, _ = _config(tmp_path, "wildcard", server={"host": "0.0.0.0"}, rtc={"bindAddress": "0.0.0.0"})
    for path, named in [(announced, [f"rtc.announcedAddresses[1] {ANNOUNCED}"]),
                        (wildcard, ["server.host 0.0.0.0", "rtc.bindAddress 0.0.0.0"])]:
        for flags in [(), ("--check-config",)]:
            run = _run(binary, path, *flags)
            assert run.returncode == 2, f"{path.name} {flags}: exit {run.returncode}, wanted 2; {run.stdout}{run.stderr}"
            error = run.stderr
            assert "'admin.token' is still the placeholder \"change-me-admin-token\"" in error, error
            assert "openssl rand -hex 32" in error and "--insecure-dev" in error, error
            for key in named:
                assert key in error, f"the error does not name {key}: {error}"

    # The control: the same exposed configs with a token of their own are valid, and the
    # placeholder on loopback only (every other interop test's server) is too.
    for name, rtc, server in [("announced-token", {"announcedAddresses": [ANNOUNCED]}, None),
                              ("wildcard-token", {"bindAddress": "0.0.0.0"}, {"host": "0.0.0.0"})]:
        path, _ = _config(tmp_path, name, rtc=rtc, server=server, token="0f" * 32)
        run = _run(binary, path, "--check-config")
        assert run.returncode == 0, f"{name}: exit {run.returncode}; {run.stderr}"
    loopback, _ = _config(tmp_path, "loopback")
    assert json.loads(loopback.read_text())["admin"]["token"] == PLACEHOLDER
    run = _run(binary, loopback, "--check-config")
    assert run.returncode == 0, f"loopback with the placeholder: exit {run.returncode}; {run.stderr}"


def test_insecure_dev_starts_the_exposed_server(tmp_path):
    binary = require_binary()
    path, http_port = _config(tmp_path, "exposed", server={"host": "0.0.0.0"},
                              rtc={"bindAddress": "0.0.0.0", "announcedAddresses": [ANNOUNCED]})
    log_path = ARTIFACTS / "server-insecure-dev.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen([str(binary), "--config", str(path), "--insecure-dev"], cwd=REPO,
                                   stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            health = None
            while health is None:
                assert process.poll() is None, \
                    f"sluice --insecure-dev exited with {process.returncode}; log {log_path}:\n{log_tail(log_path)}"
                assert time.monotonic() < deadline, f"no /health within 30 s; log:\n{log_tail(log_path)}"
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/health", timeout=2) as response:
                        health = json.loads(response.read())
                except OSError:
                    time.sleep(0.1)
            assert health["status"] == "ok", health
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                code = process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                raise
    assert code == 0, f"exit {code} after SIGTERM; log:\n{log_tail(log_path)}"
    text = log_path.read_text(errors="replace")
    assert "--insecure-dev: starting with the placeholder admin.token, although this server is reachable" in text, text
    assert f"rtc.announcedAddresses[0] {ANNOUNCED}" in text, text
    # The open-file limit is reported at start (raised to the hard limit, or a warning).
    assert "open-file limit" in text, text
