"""Recording under faults (issue 10; docs/recording.md): what the file holds when the
publisher's path loses packets, when the server is killed with SIGKILL mid-recording, and
when the disk fills. Every file is read by Debian's ffprobe/ffmpeg and PyAV, and the frame
numbers the aiortc publisher drew (media.draw_frame_number) are read back from it."""

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import (ARTIFACTS, CRASH_MARKERS, WORKERS, SluiceServer, _free_tcp_port, _free_udp_range, _safe_name,
                      log_tail, require_binary, write_test_config)
from media import Publisher
from recording_check import decode_errors, decode_errors_at_file_times, probe, video_numbers, video_numbers_tolerant, wait_closed
from sessions import close_all, open_session, play

FPS = 30  # aiortc's pacing of the numbered track
LOSS_TABLE = "sluice_recloss"
LOSS_PERCENT = 5


def _started(client, timeout=15):
    return client.wait_notification(
        lambda n: n.method == "streamEvent" and n.params.get("type") == "recordingStarted", timeout, "recordingStarted")


async def _publish_recorded(ws_url: str, stream: str):
    client = await open_session(ws_url)
    peer = Publisher()
    result = await client.publish(stream, await peer.offer(), record=True)
    await peer.accept(result["sdp"])
    return client, peer, result["handle"]


def _sent_between(peer: Publisher, start: float, end: float) -> list[int]:
    return [number for at, number in peer.video.sent if start <= at <= end]


# --- a. loss on the publisher's path -------------------------------------------------------

@pytest.fixture
def server_config_overrides(request, tmp_path) -> dict:
    if "small_disk" in request.fixturenames:  # the DISK_FULL test: the folder on the small tmpfs
        return {"recording": {"folder": str(request.getfixturevalue("small_disk") / "recordings")}}
    return {"recording": {"folder": str(tmp_path / "recordings")}}


def _drop_upstream(ports) -> None:
    """Drops LOSS_PERCENT% of the datagrams to the server's media ports (what the publisher
    sends) on this namespace's input hook, as test_loss.py does."""
    match = f"udp dport {{ {', '.join(map(str, ports))} }}"
    for command in (f"add table inet {LOSS_TABLE}",
                    f"add chain inet {LOSS_TABLE} input {{ type filter hook input priority 0; }}",
                    f"add rule inet {LOSS_TABLE} input {match} numgen random mod 100 < {LOSS_PERCENT} counter drop"):
        subprocess.run(["nft", *command.split()], check=True)


def _dropped_packets() -> int:
    """What the rule's counter (after the random test, so only what it dropped) counted."""
    out = subprocess.run(["nft", "list", "table", "inet", LOSS_TABLE], capture_output=True, text=True).stdout.split()
    return next((int(out[i + 1]) for i, word in enumerate(out[:-1]) if word == "packets"), 0)


def _stop_dropping() -> None:
    subprocess.run(["nft", "delete", "table", "inet", LOSS_TABLE], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_recording_under_publisher_loss(server, tmp_path, figures):
    asyncio.run(_under_loss(server, figures))


async def _under_loss(server, figures):
    stream = "recorded-lossy"
    client, peer, handle = await _publish_recorded(server.ws_url, stream)
    try:
        started = await _started(client)
        path = started.params["data"]["path"]
        _drop_upstream(server.media_ports)
        try:
            await asyncio.sleep(10)
            dropped = _dropped_packets()
        finally:
            _stop_dropping()
        stats = await client.call("getStats", {"handle": handle})
        await client.stop(handle)
        await wait_closed(path)
    finally:
        await peer.close()
        await client.close()

    nacks = stats.get("video", {}).get("nacks", 0)
    # The control: the loss was really there (the server had to NACK the publisher).
    assert dropped >= 20, f"the rule dropped only {dropped} datagrams"
    assert nacks > 0, f"the server never NACKed the publisher: was any loss applied? {stats}"
    p = probe(path)
    assert p.stream("video") and p.stream("video")["codec_name"] == "vp8", p.streams
    errors = decode_errors_at_file_times(path)
    assert errors == "", f"ffmpeg found errors decoding the file recorded under {LOSS_PERCENT}% loss: {errors}"
    plain = decode_errors(path)  # shown only: see recording_check.decode_errors_at_file_times
    numbers, _ = video_numbers(path)
    readable = [n for n in numbers if n is not None]
    assert len(readable) >= 0.98 * len(numbers), f"{len(numbers) - len(readable)} of {len(numbers)} frames unreadable"
    assert readable == sorted(readable) and len(set(readable)) == len(readable), "frames out of order or repeated"
    sent = readable[-1] - readable[0] + 1
    # What a lost packet costs after its repair wait: the frames up to the next key frame
    # (asked for at once). Most loss is repaired by NACK, so most frames are there.
    assert len(readable) >= 0.8 * sent, f"{len(readable)} frames in the file of {sent} sent in that span"
    figures({"loss": f"{LOSS_PERCENT}% publisher to server", "framesInFile": len(numbers), "framesSentInSpan": sent,
             "serverNacksToPublisher": nacks, "durationS": p.duration_s, "datagramsDropped": dropped,
             "plainNullDecodeSays": plain[-200:]})


# --- b. kill -9 mid-recording ---------------------------------------------------------------

@pytest.fixture
def killable_server(request, tmp_path):
    """A `sluice` like conftest's `server`, for a test that ends it with SIGKILL: the teardown
    checks that the kill is what ended it (exit by signal 9) and that nothing crashed before
    it; a server the test did not kill must exit 0 on SIGTERM as usual."""
    binary = require_binary()
    http_port, media_port = _free_tcp_port(), _free_udp_range(WORKERS)
    config_path = tmp_path / "sluice.json"
    write_test_config(config_path, http_port, media_port, WORKERS,
                      {"recording": {"folder": str(tmp_path / "recordings")}})
    log_path = ARTIFACTS / f"server-{_safe_name(request.node.name)}.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen([str(binary), "--config", str(config_path)], cwd=Path(__file__).resolve().parents[1],
                                   stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        info = SluiceServer(f"ws://127.0.0.1:{http_port}/ws", f"http://127.0.0.1:{http_port}",
                            list(range(media_port, media_port + WORKERS)), config_path, log_path, process)
        try:
            deadline = time.monotonic() + 30
            while True:
                assert process.poll() is None, f"sluice exited with {process.returncode}:\n{log_tail(log_path)}"
                try:
                    info.health()
                    break
                except (OSError, AssertionError):
                    if time.monotonic() > deadline:
                        raise
                time.sleep(0.1)
            yield info
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
    killed = getattr(process, "killed_by_test", False)
    if killed:
        assert process.returncode == -signal.SIGKILL, f"sluice ended with {process.returncode}, not by the kill"
    else:
        assert process.returncode == 0, f"sluice exited with {process.returncode}:\n{log_tail(log_path)}"
    crash = [line for line in log_path.read_text(errors="replace").splitlines() if CRASH_MARKERS.search(line)]
    assert not crash, "sluice log shows a crash:\n" + "\n".join(crash[:20])


def test_killed_server_leaves_a_playable_part(killable_server, tmp_path, figures):
    asyncio.run(_killed(killable_server, tmp_path, figures))


async def _killed(server, tmp_path, figures):
    stream = "recorded-killed"
    client, peer, _ = await _publish_recorded(server.ws_url, stream)
    try:
        started = await _started(client)
        path = started.params["data"]["path"]
        await asyncio.sleep(6)
        killed_at = time.monotonic()
        server.process.killed_by_test = True
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=10)
        last_sent = peer.video.last_sent()
        sent = _sent_between(peer, started.received_at, killed_at)
    finally:
        await peer.close()
        await client.close()

    part = path + ".part"
    # The control: the kill really cut the recording (no trailer, no rename).
    assert os.path.exists(part) and not os.path.exists(path), os.listdir(os.path.dirname(path))
    p = probe(part)
    video = p.stream("video")
    assert video and video["codec_name"] == "vp8" and (video["width"], video["height"]) == (640, 480), p.streams
    numbers, stopped = video_numbers_tolerant(part)
    readable = [n for n in numbers if n is not None]
    assert readable, f"nothing decoded from {part} ({stopped})"
    assert len(readable) >= 0.98 * len(numbers), f"{len(numbers) - len(readable)} of {len(numbers)} frames unreadable"
    assert readable == sorted(readable), "frames out of order in the .part"
    # A cluster is written when it ends (at most 1 s), after the assembler's repair wait: the
    # file holds all but about the last second and a half before the kill.
    assert len(readable) >= len(sent) - 1.5 * FPS, \
        f"{len(readable)} frames decoded of {len(sent)} sent from recordingStarted to the kill"
    assert len(readable) >= 0.8 * len(sent) - FPS // 2, (len(readable), len(sent))
    errors = decode_errors_at_file_times(part)
    # Shown, not asserted: ffmpeg may say the last cluster is cut; the frame counts above are
    # what shows the file plays up to near the kill.
    figures({"container": "webm", "framesSentBeforeKill": len(sent), "framesDecodedFromPart": len(readable),
             "framesLostAtTail": (last_sent or 0) - readable[-1], "partBytes": os.path.getsize(part),
             "ffmpegSays": errors[-300:], "pyavStopped": stopped[-200:]})


# --- c. a full disk ---------------------------------------------------------------------------

DISK_BYTES = 4 * 1024 * 1024
FREE_BYTES = 384 * 1024  # ~5 s of aiortc's VP8 and Opus


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs, filled but for FREE_BYTES, mounted under tmp_path (unmounted after)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES}", "tmpfs", str(mount)], check=True)
    try:
        with open(mount / "filler", "wb") as f:
            f.write(b"\0" * (DISK_BYTES - FREE_BYTES))
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _is_tmpfs(path: Path) -> bool:
    with open("/proc/mounts") as mounts:
        return any(line.split()[1] == str(path) and line.split()[2] == "tmpfs" for line in mounts)




def test_full_disk_fails_the_recording_not_the_stream(small_disk, server, figures):
    asyncio.run(_full_disk(server, small_disk, figures))


async def _full_disk(server, disk: Path, figures):
    stream = "recorded-disk-full"
    # The control: the folder really is on the small tmpfs, with little room left.
    assert _is_tmpfs(disk), f"{disk} is not a tmpfs mount"
    free_before = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
    assert free_before <= FREE_BYTES + 64 * 1024, f"{free_before} bytes free on the small disk"
    client, peer, handle = await _publish_recorded(server.ws_url, stream)
    player = None
    try:
        started = await _started(client)
        path = started.params["data"]["path"]
        assert path.startswith(str(disk)), path
        player = await play(server.ws_url, stream)
        await player.peer.wait_frames(10, 20, lambda f: f.number is not None)
        failed = await client.wait_notification(
            lambda n: n.method == "streamEvent" and n.params.get("type") == "recordingFailed", 40, "recordingFailed")
        data = failed.params["data"]
        assert data.get("reason") == "DISK_FULL", f"recordingFailed {data}"
        assert data.get("path") == path, data
        free_at_failure = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize
        part_bytes = os.path.getsize(path + ".part")
        # After the failure the stream goes on: the player keeps decoding new frames.
        at_failure = len(player.peer.frames)
        last_number = max(player.peer.numbers())
        await asyncio.sleep(1.5)
        middle = len(player.peer.frames)
        await asyncio.sleep(1.5)
        after = len(player.peer.frames)
        newer = [n for n in player.peer.numbers() if n > last_number]
        assert middle > at_failure and after > middle, \
            f"the player stopped decoding after the failure: {at_failure}, {middle}, {after} frames"
        assert len(newer) >= 30, f"only {len(newer)} new frames decoded in 3 s after the failure"
        assert not player.peer.errors, player.peer.errors
        assert client.statuses(handle)[-1] == "PUBLISHING", client.statuses(handle)
        server.health()
        # Nothing more is written once the recording failed, and no second file is started.
        await asyncio.sleep(0.5)
        assert os.path.getsize(path + ".part") == part_bytes
        events = [n.params.get("type") for n in client.notifications if n.method == "streamEvent"]
        assert events.count("recordingStarted") == 1 and events.count("recordingFailed") == 1, events
    finally:
        await close_all(player)
        await peer.close()
        await client.close()
    # The control, after: the disk really was full when the failure came.
    assert free_at_failure < 64 * 1024, f"{free_at_failure} bytes still free at the failure"
    figures({"freeBytesBefore": free_before, "freeBytesAtFailure": free_at_failure, "partBytes": part_bytes,
             "playerFramesIn3sAfterFailure": after - at_failure, "message": data.get("message")})
