"""The page script of the pre-call test (test_precall.py): a raw RTCPeerConnection that talks
JSON-RPC over its own WebSocket (not the JS SDK), runs one `precall` and keeps every
`streamEvent` of its handle.

Video is a canvas of full-noise frames, not the fake camera: Chromium's fake camera compresses
so well that its encoder sends ~350 kbit/s against a 2 Mbit/s target, which cannot fill even a
1 Mbit/s uplink, so the uplink reading would measure the camera, not the path. Eight noise frames
drawn in turn defeat VP8's reference frames, so every frame costs bits. The camera
(getUserMedia 1280x720) stays an option (`source: 'camera'`). Audio is the fake microphone,
`sendonly`; video `sendrecv` (the server's downlink probe comes back on it).
"""

PRECALL_SCRIPT = r"""
window.pre = (() => {
  const api = {events: [], notes: [], errors: [], times: {}};
  let ws = null, nextId = 1, pc = null;
  const pending = new Map();

  const open = (url) => new Promise((resolve, reject) => {
    ws = new WebSocket(url);
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error('websocket error'));
    ws.onclose = (ev) => api.notes.push({method: '_close', code: ev.code});
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.id !== undefined && msg.id !== null && pending.has(msg.id)) {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error) p.reject(new Error('rpc error ' + JSON.stringify(msg.error)));
        else p.resolve(msg.result);
      } else if (msg.method === 'streamEvent') {
        api.events.push({at: performance.now(), ...(msg.params || {})});
      } else if (msg.method) {
        api.notes.push({method: msg.method, params: msg.params || {}});
      }
    };
  });

  const call = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, {resolve, reject});
    ws.send(JSON.stringify({jsonrpc: '2.0', id, method, params}));
  });

  const gathered = () => new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve();
    const timer = setTimeout(resolve, 3000);
    pc.addEventListener('icegatheringstatechange', () => {
      if (pc.iceGatheringState === 'complete') { clearTimeout(timer); resolve(); }
    });
  });

  // A 640x360 canvas at 30 fps cycling through eight frames of random pixels.
  const noiseTrack = () => {
    const canvas = document.createElement('canvas');
    canvas.width = 640; canvas.height = 360;
    const ctx = canvas.getContext('2d');
    const frames = [];
    for (let f = 0; f < 8; f++) {
      const image = ctx.createImageData(canvas.width, canvas.height);
      const words = new Uint32Array(image.data.buffer);
      for (let i = 0; i < words.length; i++) words[i] = (Math.random() * 0x1000000) | 0xff000000;
      frames.push(image);
    }
    let n = 0;
    api.drawTimer = setInterval(() => ctx.putImageData(frames[n++ % frames.length], 0, 0), 33);
    document.body.appendChild(canvas);
    return canvas.captureStream(30).getVideoTracks()[0];
  };

  // Connects, offers, sends `precall {sdp, seconds}` and sets the answer; the test then reads
  // api.events. Times are performance.now() in ms.
  api.run = async (url, appKey, seconds, source) => {
    await open(url);
    await call('connect', {appKey});
    const camera = source === 'camera';
    const media = await navigator.mediaDevices.getUserMedia(
      {audio: true, video: camera ? {width: {exact: 1280}, height: {exact: 720}} : false});
    const video = camera ? media.getVideoTracks()[0] : noiseTrack();
    video.contentHint = 'detail';
    pc = new RTCPeerConnection({iceServers: []});
    pc.onconnectionstatechange = () => api.notes.push({method: '_pc', state: pc.connectionState});
    const videoSender = pc.addTransceiver(video, {direction: 'sendrecv'}).sender;
    pc.addTransceiver(media.getAudioTracks()[0], {direction: 'sendonly'});
    await pc.setLocalDescription(await pc.createOffer());
    await gathered();
    api.times.requested = performance.now();
    const result = await call('precall', {sdp: pc.localDescription.sdp, seconds});
    api.times.answered = performance.now();
    await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
    try {
      // Nothing on this side should cap what the path can carry.
      const params = videoSender.getParameters();
      params.encodings[0].maxBitrate = 8000000;
      params.degradationPreference = 'maintain-resolution';
      await videoSender.setParameters(params);
    } catch (e) { api.errors.push(String(e)); }
    api.handle = result.handle;
    return {handle: result.handle, offerHasVideoSendrecv: /a=sendrecv/.test(pc.localDescription.sdp)};
  };

  // The end of the test: {type, data, msFromRequest} of the report or failure, or null.
  api.end = () => {
    const e = api.events.find((ev) => ev.type === 'precallReport' || ev.type === 'precallFailed');
    return e ? {type: e.type, data: e.data, msFromRequest: Math.round(e.at - api.times.requested)} : null;
  };

  api.progress = () => api.events.filter((ev) => ev.type === 'precallProgress').map((ev) => ev.data);

  api.close = () => {
    clearInterval(api.drawTimer);
    if (pc) pc.close();
    if (ws) ws.close();
  };
  return api;
})();
"""
