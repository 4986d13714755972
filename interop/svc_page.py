"""A page script for SVC tests: one publisher that sends one encoding with its own layers
(`scalabilityMode`, in VP9 or AV1) and any number of players, each its own RTCPeerConnection and
signaling session, in one Chromium page."""

from page_parts import MAINTAIN_RESOLUTION_JS, OPEN_JS, PLAYERS_JS

SVC_SCRIPT = r"""
window.svc = (() => {
  const api = {players: {}, pub: null};

""" + OPEN_JS + MAINTAIN_RESOLUTION_JS + r"""
  // One codec and its retransmissions.
  const only = (transceiver, mime) => {
    const codecs = RTCRtpReceiver.getCapabilities('video').codecs
      .filter((c) => c.mimeType === mime || c.mimeType === 'video/rtx');
    transceiver.setCodecPreferences(codecs);
  };

  // Chromium offers the dependency descriptor on a receive-only transceiver only when asked
  // (the header extension control API); without it the player could not decode AV1 SVC.
  const DD = 'https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension';
  const negotiateDependencyDescriptor = (transceiver, direction) => {
    if (!transceiver.getHeaderExtensionsToNegotiate) return;
    const extensions = transceiver.getHeaderExtensionsToNegotiate().map((e) =>
      e.uri === DD ? {...e, direction} : e);
    transceiver.setHeaderExtensionsToNegotiate(extensions);
  };
  const offerDependencyDescriptor = (transceiver) => negotiateDependencyDescriptor(transceiver, 'sendrecv');

  // A 1280x720 picture at 30 fps with fine detail that moves every frame (the fake camera's
  // is so plain that an SVC encoder spends almost as much on its lowest layer as on its top
  // one): squares of random colour over a drifting gradient.
  const busyPicture = () => {
    const canvas = document.createElement('canvas');
    canvas.width = 1280;
    canvas.height = 720;
    const g = canvas.getContext('2d');
    let frame = 0;
    const draw = () => {
      frame++;
      const gradient = g.createLinearGradient((frame * 7) % 1280, 0, 1280 - (frame * 5) % 1280, 720);
      gradient.addColorStop(0, '#204080');
      gradient.addColorStop(1, '#e0c040');
      g.fillStyle = gradient;
      g.fillRect(0, 0, 1280, 720);
      for (let i = 0; i < 400; i++) {
        g.fillStyle = `rgb(${(Math.random() * 255) | 0},${(Math.random() * 255) | 0},${(Math.random() * 255) | 0})`;
        g.fillRect((Math.random() * 1272) | 0, (Math.random() * 712) | 0, 8, 8);
      }
      g.fillStyle = '#fff';
      g.font = '48px sans-serif';
      g.fillText(`frame ${frame}`, 40 + (frame * 3) % 900, 360);
    };
    draw();
    setInterval(draw, 33);
    return canvas.captureStream(30);
  };

  api.canSend = (mime, mode) => RTCRtpSender.getCapabilities('video').codecs.some((c) => c.mimeType === mime
    && (!c.scalabilityModes || c.scalabilityModes.includes(mode)));

  // One encoding in `mime` with `mode` (L3T3_KEY, L1T3, ...) of a busy 1280x720 picture, or of
  // the fake camera (`camera`: cheap to encode, so a steady frame rate on a busy machine).
  // `mode` may instead be the sendEncodings themselves (simulcast, for a comparison).
  // withDD false: the publisher offers no dependency descriptor (VP9 then carries its layers in
  // its payload descriptor alone).
  api.publish = async (url, stream, mime, mode, maxKbps = 2500, camera = false, withDD = true, record = false) => {
    const client = await open(url);
    await client.call('connect', {appKey: 'defaultApp'});
    const media = camera ? await navigator.mediaDevices.getUserMedia(
      {video: {width: {exact: 1280}, height: {exact: 720}, frameRate: 30}, audio: false}) : busyPicture();
    const track = media.getVideoTracks()[0];
    // 'detail' keeps the encoder from shrinking the picture; but Chromium takes a VP9 track
    // with it for screen content, whose SVC encoder sends nothing for L2/L3 modes (peer to
    // peer too), so VP9 relies on the degradation preference alone.
    if (mime !== 'video/VP9') track.contentHint = 'detail';
    const pc = new RTCPeerConnection({iceServers: []});
    const transceiver = pc.addTransceiver(track, {direction: 'sendonly', streams: [media],
      sendEncodings: Array.isArray(mode) ? mode : [{scalabilityMode: mode, maxBitrate: maxKbps * 1000}]});
    only(transceiver, mime);
    if (!withDD) negotiateDependencyDescriptor(transceiver, 'stopped');
    await maintainResolution(transceiver.sender);
    await pc.setLocalDescription(await pc.createOffer());
    // The declared rate is the answer's start bitrate: every spatial layer has its share at once.
    const result = await client.call('publish', {stream, sdp: pc.localDescription.sdp, record,
      constraints: {audio: false, video: {maxBitrate: maxKbps}}});
    await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
    api.pub = {client, pc, handle: result.handle, offer: pc.localDescription.sdp, answer: result.sdp};
    return result.handle;
  };

  // The widest encoding's figures, with `bytesSent` summed over every encoding (simulcast).
  api.outbound = async () => {
    let out = {frameWidth: 0, framesEncoded: 0, bytesSent: 0, at: performance.now()};
    let sent = 0;
    (await api.pub.pc.getStats()).forEach((s) => {
      if (s.type === 'outbound-rtp' && s.kind === 'video') sent += s.bytesSent || 0;
      if (s.type === 'outbound-rtp' && s.kind === 'video' && (s.frameWidth || 0) >= out.frameWidth) {
        out = {frameWidth: s.frameWidth || 0, framesEncoded: s.framesEncoded || 0, bytesSent: s.bytesSent || 0,
               scalabilityMode: s.scalabilityMode || '', keyFramesEncoded: s.keyFramesEncoded || 0,
               encoder: s.encoderImplementation || '', targetBitrate: s.targetBitrate || 0,
               limitation: s.qualityLimitationReason || '', fps: s.framesPerSecond || 0, at: performance.now()};
      }
    });
    out.bytesSent = sent;
    return out;
  };

  // offerDD false: the player leaves the dependency descriptor out, as Chromium does unasked.
  api.play = async (url, stream, name, constraints, mime, offerDD = true) => {
    const client = await open(url);
    await client.call('connect', {appKey: 'defaultApp'});
    const pc = new RTCPeerConnection({iceServers: []});
    const transceiver = pc.addTransceiver('video', {direction: 'recvonly'});
    only(transceiver, mime);
    if (offerDD) offerDependencyDescriptor(transceiver);
    await pc.setLocalDescription(await pc.createOffer());
    const result = await client.call('play', {stream, sdp: pc.localDescription.sdp, constraints});
    await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
    api.players[name] = {client, pc, handle: result.handle, answer: result.sdp, offer: pc.localDescription.sdp};
    return result.handle;
  };

""" + PLAYERS_JS + r"""
  api.answer = (name) => api.players[name].answer;
  api.events = (name) => api.players[name].client.notes.filter((n) => n.method === 'streamEvent');
  api.publisherStats = () => api.pub.client.call('getStats', {handle: api.pub.handle});
  api.now = () => performance.now();
  return api;
})();
"""
