"""The server as the Debian package installs it (scripts/check-package.sh runs this; conftest.py
leaves it out of every other run).

The .deb's /usr/bin/sluice with its /etc/sluice/sluice.json, extracted into a temporary root and
only the config's paths moved into it, run the way sluice.service runs it as far as a container
without systemd allows: as an unprivileged user, with no new privileges and no capabilities,
in the state folder. It must start (timed: exec until /health answers 200), serve the packaged
web root, make its call log and recording folder where the config says, carry an aiortc
publisher to a player, and exit 0 on SIGTERM.

Environment (set by scripts/check-package.sh):
  SLUICE_BINARY          the extracted usr/bin/sluice
  SLUICE_PACKAGE_CONFIG  the packaged config with its paths moved into the temporary root
  SLUICE_PACKAGE_STATE   what /var/lib/sluice became (owned by nobody, like sluice's own)
"""

import asyncio
import json
import os
import pwd
import statistics
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import ARTIFACTS, _check_clean_exit, _stop_server, log_tail, require_binary
from sessions import close_all, play, publish

CONFIG = Path(os.environ.get("SLUICE_PACKAGE_CONFIG", "/nonexistent"))
STATE = Path(os.environ.get("SLUICE_PACKAGE_STATE", "/nonexistent"))
START_RUNS = 3
WIDTH, HEIGHT = 640, 480
FRAMES = 60  # two seconds of the publisher's 30 fps


def _command(binary: Path) -> list:
    """What sluice.service's User=, NoNewPrivileges=yes and CapabilityBoundingSet= (empty) do,
    with util-linux's setpriv: the user is nobody (the test has no sluice user to become)."""
    user = pwd.getpwnam("nobody")
    return ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups",
            "--no-new-privs", "--bounding-set=-all", "--", str(binary), "--config", str(CONFIG)]


def _get(url: str):
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, ""


def _start(binary: Path, base: str, log_path: Path):
    """Starts the server; returns it and the milliseconds from exec to /health answering 200."""
    log = open(log_path, "wb")
    started = time.monotonic()
    process = subprocess.Popen(_command(binary), cwd=STATE, stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
    log.close()
    while True:
        if process.poll() is not None:
            pytest.fail(f"the packaged server exited with {process.returncode} before /health answered; "
                        f"log {log_path}:\n{log_tail(log_path)}", pytrace=False)
        try:
            if _get(base + "/health")[0] == 200:
                return process, (time.monotonic() - started) * 1000
        except OSError:
            pass  # not listening yet
        if time.monotonic() - started > 30:
            process.kill()
            process.wait()
            pytest.fail(f"the packaged server did not answer /health within 30 s; log {log_path}:\n"
                        f"{log_tail(log_path)}", pytrace=False)
        time.sleep(0.005)


def _stop(process, log_path: Path) -> None:
    _stop_server(process, log_path)
    _check_clean_exit(process, log_path)


def test_packaged_server(figures):
    binary = require_binary()
    config = json.loads(CONFIG.read_text())
    base = f"http://{config['server']['host']}:{config['server']['port']}"
    ws_url = base.replace("http://", "ws://") + "/ws"

    start_ms = []
    for run in range(START_RUNS):
        log_path = ARTIFACTS / f"server-package-{run}.log"
        process, ms = _start(binary, base, log_path)
        start_ms.append(round(ms, 1))
        if run < START_RUNS - 1:
            _stop(process, log_path)
    try:
        # The web root: the demo page and the SDK, from the extracted usr/share/sluice/web.
        status, page = _get(base + "/")
        assert status == 200 and "<html" in page.lower(), f"GET / answered {status}"
        status, sdk = _get(base + "/sdk/sluice.mjs")
        assert status == 200 and "export" in sdk, f"GET /sdk/sluice.mjs answered {status}"
        # The state the config puts under /var/lib/sluice, made by the unprivileged server.
        nobody = pwd.getpwnam("nobody").pw_uid
        for made in (Path(config["recording"]["folder"]), Path(config["calls"]["database"])):
            assert made.exists() and STATE in made.parents, f"{made} is missing or outside {STATE}"
            assert made.stat().st_uid == nobody, f"{made} belongs to uid {made.stat().st_uid}"
        decoded = asyncio.run(_publish_and_play(ws_url))
    finally:
        _stop(process, log_path)

    figures({"startMs": start_ms, "startMedianMs": statistics.median(start_ms), **decoded})


async def _publish_and_play(ws_url: str) -> dict:
    stream = "package"
    pub = player = None
    try:
        pub = await publish(ws_url, stream)
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        player = await play(ws_url, stream)
        await player.client.wait_status(player.handle, "PLAYING", 15)
        first = (await player.peer.wait_frames(1, 15, lambda f: f.number is not None))[0]
        await player.peer.wait_frames(FRAMES, 15, lambda f: f.number is not None)
        numbers = player.peer.numbers()
        assert all(b > a for a, b in zip(numbers, numbers[1:])), f"frames out of order: {numbers}"
        assert {(f.width, f.height) for f in player.peer.frames} == {(WIDTH, HEIGHT)}
        assert player.peer.audio_frames > 0, "the player received no audio"
        assert not player.peer.errors, player.peer.errors
        return {"framesDecoded": len(numbers),
                "playToFirstFrameMs": round((first.at - player.requested_at) * 1000, 1)}
    finally:
        await close_all(player, pub)
