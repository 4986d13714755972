"""A page script for the instant-join tests (test_instant_join.py): a single-layer VP8
publisher of the fake camera, and any number of players, each its own RTCPeerConnection and
signaling session, in one Chromium page.

A player is prepared first (session, connect, recvonly offer with its ICE candidates), so that
`join` is the play request alone and joins can be spaced exactly. From its play request on, a
player reads its track's first decoded frame (the join time, `frameAt`) and polls its inbound
video every 10 ms until getStats shows it (up to 50 ms later: Chromium caches stats), then
samples it every SAMPLE_MS: the tests read framesDecoded, keyFramesDecoded, freezeCount and the
jitter buffer's cumulative delay and emitted count from those samples.
"""

from page_parts import MAINTAIN_RESOLUTION_JS, OPEN_JS

IJ_SCRIPT = r"""
window.ij = (() => {
  const api = {players: {}, pub: null};
  const SAMPLE_MS = 250;

""" + OPEN_JS + MAINTAIN_RESOLUTION_JS + r"""
  const gathered = (pc) => new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve();
    const timer = setTimeout(resolve, 3000);
    pc.addEventListener('icegatheringstatechange', () => {
      if (pc.iceGatheringState === 'complete') { clearTimeout(timer); resolve(); }
    });
  });

  // One codec (VP8 unless named) and its retransmissions.
  const only = (transceiver, kind, mime = 'video/VP8') => {
    const codecs = RTCRtpReceiver.getCapabilities(kind).codecs
      .filter((c) => c.mimeType === mime || c.mimeType === 'video/rtx');
    transceiver.setCodecPreferences(codecs);
  };

  // The fake camera at width x height, one layer (VP8 unless `mime`) of at most maxKbps, no audio.
  api.publish = async (url, stream, width, height, maxKbps, mime = 'video/VP8') => {
    const client = await open(url);
    await client.call('connect', {appKey: 'defaultApp'});
    const media = await navigator.mediaDevices.getUserMedia(
      {video: {width: {exact: width}, height: {exact: height}, frameRate: 30}, audio: false});
    const track = media.getVideoTracks()[0];
    // Keep the size on a busy machine: a resolution change would be a key frame of its own.
    track.contentHint = 'detail';
    const pc = new RTCPeerConnection({iceServers: []});
    const transceiver = pc.addTransceiver(track, {direction: 'sendonly', streams: [media],
                                                   sendEncodings: [{maxBitrate: maxKbps * 1000}]});
    only(transceiver, 'video', mime);
    await maintainResolution(transceiver.sender);
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc);
    const result = await client.call('publish', {stream, sdp: pc.localDescription.sdp});
    await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
    api.pub = {client, pc, handle: result.handle};
    return result.handle;
  };

  api.publishing = () => api.pub.client.notes.some(
    (n) => n.method === 'streamStatus' && n.params.status === 'PUBLISHING');

  api.outbound = async () => {
    const out = {framesEncoded: 0, keyFramesEncoded: 0, frameWidth: 0, frameHeight: 0, pliCount: 0,
                 firCount: 0, at: performance.now()};
    (await api.pub.pc.getStats()).forEach((s) => {
      if (s.type === 'outbound-rtp' && s.kind === 'video') {
        Object.assign(out, {framesEncoded: s.framesEncoded || 0, keyFramesEncoded: s.keyFramesEncoded || 0,
                            frameWidth: s.frameWidth || 0, frameHeight: s.frameHeight || 0,
                            pliCount: s.pliCount || 0, firCount: s.firCount || 0});
      }
    });
    return out;
  };

  const inbound = async (pc) => {
    const out = {at: performance.now(), framesDecoded: 0, keyFramesDecoded: 0, freezeCount: 0,
                 totalFreezesDuration: 0, jitterBufferDelay: 0, jitterBufferEmittedCount: 0,
                 jitterBufferTargetDelay: 0, pliCount: 0, nackCount: 0, packetsLost: 0,
                 packetsReceived: 0, framesDropped: 0, frameWidth: 0};
    (await pc.getStats()).forEach((s) => {
      if (s.type === 'inbound-rtp' && s.kind === 'video') {
        for (const key of Object.keys(out)) {
          if (key !== 'at' && s[key] !== undefined) out[key] = s[key];
        }
      }
    });
    return out;
  };

  // A session, connected, with a recvonly video offer ready: the join is its play request.
  api.prepare = async (url, name, mime = 'video/VP8') => {
    const client = await open(url);
    await client.call('connect', {appKey: 'defaultApp'});
    const pc = new RTCPeerConnection({iceServers: []});
    only(pc.addTransceiver('video', {direction: 'recvonly'}), 'video', mime);
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc);
    api.players[name] = {client, pc, handle: null, requested: null, answered: null, first: null,
                         frameAt: null, samples: [], error: null};
  };

  const watch = (p) => {
    const firstPoll = async () => {
      const s = await inbound(p.pc);
      if (s.framesDecoded > 0) {
        p.first = s;
        p.samples.push(s);
        setTimeout(sample, SAMPLE_MS);
      } else {
        setTimeout(firstPoll, 10);
      }
    };
    const sample = async () => {
      if (p.stopped) return;
      p.samples.push(await inbound(p.pc));
      setTimeout(sample, SAMPLE_MS);
    };
    firstPoll();
  };

  // The first decoded frame as the track delivers it (MediaStreamTrackProcessor): getStats
  // is cached for 50 ms per connection in Chromium (RTCStatsCollector), so the polled
  // framesDecoded shows a frame up to 50 ms after it was decoded. The reader lets go after one
  // frame; the processor then drops what nobody reads (its queue holds one frame).
  const firstFrame = (p) => {
    const reader = new MediaStreamTrackProcessor({track: p.pc.getReceivers()[0].track}).readable.getReader();
    reader.read().then(({value}) => {
      if (value) { p.frameAt = performance.now(); value.close(); }
      reader.releaseLock();
    }).catch(() => {});
  };

  api.join = async (name, stream) => {
    const p = api.players[name];
    try {
      firstFrame(p);
      p.requested = performance.now();
      const result = await p.client.call('play', {stream, sdp: p.pc.localDescription.sdp});
      p.answered = performance.now();
      p.handle = result.handle;
      await p.pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
      watch(p);
    } catch (e) {
      p.error = String(e);
    }
  };

  // Starts the joins of `names`, `spacingMs` apart, on the page's own clock; returns at once.
  api.joinAll = (names, stream, spacingMs) => {
    names.forEach((name, i) => setTimeout(() => api.join(name, stream), i * spacingMs));
  };

  api.report = (name) => {
    const p = api.players[name];
    return {requested: p.requested, answered: p.answered, first: p.first, frameAt: p.frameAt,
            samples: p.samples, error: p.error, handle: p.handle};
  };

  api.stopSampling = () => { for (const p of Object.values(api.players)) p.stopped = true; };
  api.serverStats = (name) => {
    const p = name === null ? api.pub : api.players[name];
    return p.client.call('getStats', {handle: p.handle});
  };
  api.now = () => performance.now();
  return api;
})();
"""
