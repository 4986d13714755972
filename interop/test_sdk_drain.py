"""The browser SDK and a draining server (docs/sdk-js.md, "Draining"): in Chromium, a session
on the test's server hears `serverDraining` (event and `session.draining`), a play on it is
refused with 1017, and `session.reconnect(url)` connects with the same credentials to a second
server the app names, where a play of a stream published there is decoded."""

import asyncio
import json
import subprocess
import time
import urllib.request

import pytest

from conftest import REPO, _free_tcp_port, _free_udp_range, require_binary, write_test_config
from sdk_pages import sdk_pages
from sessions import close_all, publish

DRAIN_SECONDS = 20


@pytest.fixture
def server_config_overrides():
    return {"server": {"drainSeconds": DRAIN_SECONDS}}


class SecondServer:
    """Another sluice on fresh loopback ports, for the session to move to."""

    def __init__(self, tmp_path):
        self.http_port = _free_tcp_port()
        config_path = tmp_path / "second.json"
        write_test_config(config_path, self.http_port, _free_udp_range(2), 2)
        self.log = open(tmp_path / "second.log", "wb")
        self.process = subprocess.Popen([str(require_binary()), "--config", str(config_path)], cwd=REPO,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        self.ws_url = f"ws://127.0.0.1:{self.http_port}/ws"
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/health", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            assert self.process.poll() is None and time.monotonic() < deadline, "the second server did not start"
            time.sleep(0.1)

    def stop(self) -> int:
        self.process.terminate()
        code = self.process.wait(15)
        self.log.close()
        return code


def _post_drain(server):
    token = json.loads(server.config_path.read_text())["admin"]["token"]
    request = urllib.request.Request(server.http_url + "/api/v1/drain", method="POST", data=b"",
                                     headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=5) as answer:
        return answer.status


PAGE_SCRIPT = """
async ([second]) => {
  const session = await Sluice.connect(null, {appKey: 'defaultApp'});
  const notice = await new Promise((resolve) => {
    session.on('serverDraining', resolve);
    window.drainReady = true;
  });
  const result = {notice, draining: session.draining};
  try { await session.play('sdk-drain-x'); result.play = 'played'; }
  catch (e) { result.play = {code: e.code, reason: e.reason}; }
  try { await session.reconnect(); result.nowhere = 'connected'; }
  catch (e) { result.nowhere = e.reason; }
  const moved = await session.reconnect(second);
  const stream = await moved.play('sdk-drain-cam');
  const video = document.createElement('video');
  video.muted = true; video.autoplay = true; video.playsInline = true;
  video.srcObject = stream.mediaStream;
  document.body.appendChild(video);
  const deadline = Date.now() + 20000;
  while (Date.now() < deadline && !(video.videoWidth > 0 && video.getVideoPlaybackQuality().totalVideoFrames >= 10)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  result.movedWidth = video.videoWidth;
  result.movedFrames = video.getVideoPlaybackQuality().totalVideoFrames;
  await moved.disconnect();
  await session.disconnect();
  return result;
}
"""


def test_the_sdk_hears_the_drain_and_reconnects_elsewhere(server, tmp_path):
    asyncio.run(_sdk_drain(server, tmp_path))


async def _sdk_drain(server, tmp_path):
    second = SecondServer(tmp_path)
    pub = None
    console: list[str] = []
    try:
        pub = await publish(second.ws_url, "sdk-drain-cam")
        await pub.client.wait_status(pub.handle, "PUBLISHING", 15)
        async with sdk_pages(server, 1, console) as (page,):
            running = asyncio.ensure_future(page.evaluate(PAGE_SCRIPT, [second.ws_url]))
            await page.wait_for_function("window.drainReady === true", timeout=15000)
            server.process.stopped_by_test = True
            assert await asyncio.to_thread(_post_drain, server) == 202
            result = await asyncio.wait_for(running, 60)
        print(f"sdk drain: {result}")
        assert 0 < result["notice"]["deadlineMs"] <= DRAIN_SECONDS * 1000, result
        assert result["notice"]["servers"] == [] and result["draining"] == result["notice"], result
        assert result["play"] == {"code": 1017, "reason": "SERVER_DRAINING"}, result
        assert result["nowhere"] == "CONNECT_FAILED", result
        assert result["movedWidth"] > 0 and result["movedFrames"] >= 10, result
        # Its only session gone, the drained server exits 0.
        assert await asyncio.to_thread(server.process.wait, 15) == 0
    finally:
        await close_all(pub)
        assert second.stop() == 0
