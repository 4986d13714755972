"""A page for the call tests (test_calls_chromium.py): served at the server's own origin, so
it loads the SDK from the server (/sdk/sluice.js) and is a secure context (127.0.0.1), with
the fake camera and microphone. `window.callPage` keeps one session, its current Call and
every call event, and reads what the call's play decoded from its RTCPeerConnection.

Times are epoch milliseconds (performance.timeOrigin + performance.now()), so two pages of
one machine can be compared.
"""

PAGE_PATH = "/calls-test.html"

PAGE_HTML = """<!doctype html><title>sluice calls test</title><body>
<video id="local" autoplay playsinline muted width="320" height="240"></video>
<video id="remote" autoplay playsinline muted width="320" height="240"></video>
<script src="/sdk/sluice.js"></script></body>"""

CALL_SCRIPT = r"""
window.callPage = (() => {
  const now = () => performance.timeOrigin + performance.now();
  const api = {session: null, call: null, camera: null, events: [], errors: [], firstDecodedAt: null};

  const watch = (call) => {
    api.call = call;
    // A muted event's own `type` (videoMuted, ...) is kept as `eventType`.
    const push = (type) => (detail) => api.events.push({...detail, eventType: detail.type, type, callId: call.id, at: now()});
    call.on('status', push('status'));
    call.on('muted', push('muted'));
    call.on('unmuted', push('unmuted'));
    call.on('ended', push('ended'));
    call.on('error', (e) => api.errors.push({code: e.code, reason: e.reason, message: e.message}));
    call.on('remoteStream', ({stream}) => {
      document.getElementById('remote').srcObject = stream;
      watchFirstDecoded(call);
    });
  };

  // Polls the play's inbound video every 20 ms until it has decoded a frame.
  const watchFirstDecoded = (call) => {
    const timer = setInterval(async () => {
      if (!call.player || call.ended) { clearInterval(timer); return; }
      const figures = await api.decoded();
      if (figures.video.framesDecoded > 0 && api.firstDecodedAt === null) {
        api.firstDecodedAt = now();
        clearInterval(timer);
      }
    }, 20);
  };

  api.connect = async (user) => {
    api.camera = await navigator.mediaDevices.getUserMedia({video: {width: 640, height: 480}, audio: true});
    document.getElementById('local').srcObject = api.camera;
    api.session = await Sluice.connect(null, {appKey: 'callApp', user});
    // Every streamEvent of the session, of either call handle, for the test to read.
    api.session.on('streamEvent', (e) => api.events.push({type: 'streamEvent', at: now(), event: e}));
    api.session.on('incomingCall', (call) => {
      api.events.push({type: 'incomingCall', callId: call.id, from: call.from, at: now()});
      watch(call);
    });
    return api.session.identity;
  };

  api.dial = async (to) => {
    api.dialedAt = now();
    const call = await api.session.call(to, {localStream: api.camera});
    watch(call);
    return call.id;
  };

  api.accept = async () => {
    const result = await api.call.accept({localStream: api.camera});
    return {result, publishName: api.call.publishName, playName: api.call.playName};
  };

  // What the call's play decoded so far: the browser's own inbound-rtp figures. Audio counts
  // samples that came from packets (received minus concealed), since a jitter buffer with
  // nothing to play conceals and so counts received samples too.
  api.decoded = async () => {
    const out = {video: {framesDecoded: 0, frameWidth: 0, frameHeight: 0},
                 audio: {samples: 0, concealed: 0, packetsReceived: 0}};
    const player = api.call && api.call.player;
    if (!player) return out;
    const report = await player.peerConnection.getStats();
    report.forEach((s) => {
      if (s.type !== 'inbound-rtp') return;
      if (s.kind === 'video') {
        out.video = {framesDecoded: s.framesDecoded || 0, frameWidth: s.frameWidth || 0,
                     frameHeight: s.frameHeight || 0};
      } else if (s.kind === 'audio') {
        const received = s.totalSamplesReceived || 0;
        const concealed = s.concealedSamples || 0;
        out.audio = {samples: received - concealed, concealed, packetsReceived: s.packetsReceived || 0};
      }
    });
    return out;
  };

  api.statuses = () => api.events.filter((e) => e.type === 'status').map((e) => e.status);
  api.ofType = (type) => api.events.filter((e) => e.type === type);
  api.state = () => {
    const call = api.call;
    return call && {id: call.id, status: call.status, endResult: call.endResult, by: call.by,
                    direction: call.direction, from: call.from, to: call.to,
                    openStreams: api.session.streams.size, openCalls: api.session.calls.size,
                    playConnection: call.player ? call.player.peerConnection.connectionState : null,
                    publishConnection: call.publisher ? call.publisher.peerConnection.connectionState : null};
  };
  return api;
})();
"""


async def open_call_page(browser, server, console: list, tag: str):
    """A page in its own browser context at the server's origin, with `window.callPage`."""
    context = await browser.new_context(viewport={"width": 680, "height": 300})
    page = await context.new_page()
    page.on("console", lambda m: console.append(f"{tag}{m.type}: {m.text}"))
    page.on("pageerror", lambda e: console.append(f"{tag}pageerror: {e}"))
    await page.route(server.http_url + PAGE_PATH, lambda route: route.fulfill(
        status=200, content_type="text/html", body=PAGE_HTML))
    await page.goto(server.http_url + PAGE_PATH)
    await page.wait_for_function("!!window.Sluice")
    await page.evaluate(CALL_SCRIPT)
    return page
