"""The pre-call test over plain HTTP (docs/protocol.md sections 2 and 6): `POST /precall` with
a headless Chromium's offer, the figures read with `GET` on the Location while it runs, the
report at the end; and the errors a plain HTTP client can make.

Chromium sends noise from a canvas (its fake camera compresses too well to fill a path), and
the server measures it, pads back, and reads Chromium's transport-cc feedback and reports.
"""

import asyncio
import json
import time

from chromium import chromium_page
from test_whip import error_of, http

# A canvas of full-frame noise, cycled through 8 frames generated once (so every frame costs
# the encoder bits), plus the fake microphone; video sendrecv, audio sendonly.
NOISE_OFFER = r"""
async () => {
  const c = document.createElement('canvas'); c.width = 640; c.height = 360;
  const g = c.getContext('2d'); const frames = [];
  for (let i = 0; i < 8; i++) {
    const im = g.createImageData(640, 360); const d = im.data;
    for (let j = 0; j < d.length; j += 4) {
      const v = Math.random() * 4294967296 >>> 0;
      d[j] = v & 255; d[j + 1] = (v >> 8) & 255; d[j + 2] = (v >> 16) & 255; d[j + 3] = 255;
    }
    frames.push(im);
  }
  let k = 0; g.putImageData(frames[0], 0, 0);
  setInterval(() => g.putImageData(frames[k++ % 8], 0, 0), 33);
  const mic = await navigator.mediaDevices.getUserMedia({audio: true, video: false});
  const pc = new RTCPeerConnection();
  window.precallPC = pc;
  pc.addTransceiver(c.captureStream(30).getVideoTracks()[0], {direction: 'sendrecv'});
  pc.addTransceiver(mic.getAudioTracks()[0], {direction: 'sendonly'});
  const offer = await pc.createOffer();
  await pc.setLocalDescription(offer);
  return offer.sdp;
}
"""


def test_precall_over_http(server, figures):
    asyncio.run(_precall_over_http(server, figures))


async def _precall_over_http(server, figures):
    async with chromium_page() as page:
        offer = await page.evaluate(NOISE_OFFER)
        started = time.monotonic()
        status, headers, answer = await http(server, "POST", "/precall?seconds=4", offer)
        assert status == 201, f"{status} {answer}"
        location = headers["location"]
        assert location.startswith("/precall/"), headers
        await page.evaluate("(sdp) => window.precallPC.setRemoteDescription({type: 'answer', sdp})", answer)

        states = []
        while time.monotonic() - started < 20:
            status, _, body = await http(server, "GET", location, content_type=None, token=None)
            assert status == 200, f"GET {location}: {status} {body}"
            state = json.loads(body)
            states.append(state)
            if state["state"] != "running":
                break
            await asyncio.sleep(0.5)
        took = time.monotonic() - started
        final = states[-1]
        assert final["state"] == "done", f"the last state: {final}"
        progress = [s["progress"] for s in states if s["state"] == "running" and s["progress"]]
        assert progress, f"no progress was readable while it ran: {states}"
        assert all(p["elapsedMs"] < 4000 for p in progress), progress
        report = final["report"]
        figures({"report": report, "seconds": round(took, 2)})
        assert report["durationMs"] >= 4000, report
        assert report["uplinkKbps"] > 300 and report["downlinkKbps"] > 300, report
        assert report["rttMs"] is not None and report["rttMs"] < 50, report
        assert report["lossUp"] < 0.02 and report["lossDown"] < 0.02, report
        assert report["quality"]["level"] == "excellent", report
        assert report["recommended"]["publish"]["bitrate"] <= report["uplinkKbps"], report

        # Still readable after the end, and DELETE ends nothing twice.
        status, _, body = await http(server, "GET", location, content_type=None, token=None)
        assert status == 200 and json.loads(body)["state"] == "done", body
        status, _, _ = await http(server, "DELETE", location, content_type=None, token=None)
        assert status == 200
    server.health()


def test_precall_http_errors(server):
    asyncio.run(_precall_http_errors(server))


async def _precall_http_errors(server):
    offer = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
    cases = [
        ("no bearer token", dict(token=None), 401),
        ("an unknown app key", dict(token="nobody"), 401),
        ("a wrong content type", dict(content_type="text/plain"), 415),
        ("an empty body", dict(body=""), 400),
        ("seconds over 10", dict(path="/precall?seconds=11"), 400),
        ("seconds not a number", dict(path="/precall?seconds=x"), 400),
        ("an unknown query parameter", dict(path="/precall?width=640"), 400),
        ("an offer with no media", dict(), 400),
    ]
    for name, change, expected in cases:
        path = change.get("path", "/precall")
        body = change.get("body", offer)
        kwargs = {k: v for k, v in change.items() if k in ("token", "content_type")}
        status, _, text = await http(server, "POST", path, body, **kwargs)
        assert status == expected, f"{name}: {status} {text}"
        assert error_of(status, text)["message"], f"{name}: no message in {text}"
    status, _, _ = await http(server, "GET", "/precall/0123456789abcdef", content_type=None, token=None)
    assert status == 404
    status, _, _ = await http(server, "PUT", "/precall", offer)
    assert status == 405
    # Nothing of it stays: no session is left, and the server still serves.
    server.health()
