"""A page script for simulcast tests: one publisher with three encodings and any number of
players, each its own RTCPeerConnection and signaling session, in one Chromium page."""

from page_parts import MAINTAIN_RESOLUTION_JS, OPEN_JS

SIMULCAST_SCRIPT = r"""
window.sim = (() => {
  const api = {players: {}, pub: null};

""" + OPEN_JS + MAINTAIN_RESOLUTION_JS + r"""
  // extra: more publish params (record: true).
  api.publish = async (url, stream, extra = {}) => {
    const client = await open(url);
    await client.call('connect', {appKey: 'defaultApp'});
    const media = await navigator.mediaDevices.getUserMedia(
      {video: {width: {exact: 1280}, height: {exact: 720}, frameRate: 30}, audio: false});
    const track = media.getVideoTracks()[0];
    track.contentHint = 'detail';
    const pc = new RTCPeerConnection({iceServers: []});
    const transceiver = pc.addTransceiver(track, {direction: 'sendonly', streams: [media], sendEncodings: [
      {rid: 'q', scaleResolutionDownBy: 4, maxBitrate: 200000},
      {rid: 'h', scaleResolutionDownBy: 2, maxBitrate: 700000},
      {rid: 'f', scaleResolutionDownBy: 1, maxBitrate: 2000000}]});
    // A busy machine must not shrink the layers (the tests read the widths): drop fps instead.
    await maintainResolution(transceiver.sender);
    await pc.setLocalDescription(await pc.createOffer());
    const result = await client.call('publish', {stream, sdp: pc.localDescription.sdp, ...extra});
    await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
    api.pub = {client, pc, handle: result.handle};
    return result.handle;
  };

  // Width of what each rid currently encodes.
  api.outbound = async () => {
    const out = {};
    (await api.pub.pc.getStats()).forEach((s) => {
      if (s.type === 'outbound-rtp' && s.kind === 'video') {
        out[s.rid || '-'] = {frameWidth: s.frameWidth || 0, framesEncoded: s.framesEncoded || 0,
                             active: s.active, reason: s.qualityLimitationReason || ''};
      }
    });
    return out;
  };

  // offerRtx false: the offer leaves out video/rtx, so the server resends on the media SSRC.
  api.play = async (url, stream, name, constraints, offerRtx = true) => {
    const client = await open(url);
    await client.call('connect', {appKey: 'defaultApp'});
    const pc = new RTCPeerConnection({iceServers: []});
    const transceiver = pc.addTransceiver('video', {direction: 'recvonly'});
    if (!offerRtx) {
      transceiver.setCodecPreferences(
        RTCRtpReceiver.getCapabilities('video').codecs.filter((c) => c.mimeType !== 'video/rtx'));
    }
    await pc.setLocalDescription(await pc.createOffer());
    const result = await client.call('play', {stream, sdp: pc.localDescription.sdp, constraints});
    await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
    api.players[name] = {client, pc, handle: result.handle};
    return result.handle;
  };

  api.update = (name, constraints) => {
    const p = api.players[name];
    return p.client.call('update', {handle: p.handle, constraints});
  };

  api.inbound = async (name) => {
    let out = {framesDecoded: 0, frameWidth: 0, frameHeight: 0, packetsLost: 0, nackCount: 0,
               freezeCount: 0, pliCount: 0, retransmittedPacketsReceived: 0, keyFramesDecoded: 0,
               at: performance.now()};
    (await api.players[name].pc.getStats()).forEach((s) => {
      if (s.type === 'inbound-rtp' && s.kind === 'video') {
        out = {framesDecoded: s.framesDecoded || 0, frameWidth: s.frameWidth || 0,
               frameHeight: s.frameHeight || 0, packetsLost: s.packetsLost || 0,
               nackCount: s.nackCount || 0, freezeCount: s.freezeCount || 0,
               pliCount: s.pliCount || 0, framesPerSecond: s.framesPerSecond || 0,
               retransmittedPacketsReceived: s.retransmittedPacketsReceived || 0,
               keyFramesDecoded: s.keyFramesDecoded || 0, rtxSsrc: s.rtxSsrc || 0, at: performance.now()};
      }
    });
    return out;
  };

  api.answer = (name) => api.players[name].pc.remoteDescription.sdp;
  api.events = (name) => api.players[name].client.notes.filter((n) => n.method === 'streamEvent');
  api.statuses = (name) => api.players[name].client.notes
    .filter((n) => n.method === 'streamStatus').map((n) => n.params.status);
  api.now = () => performance.now();
  api.publisherStats = () => api.pub.client.call('getStats', {handle: api.pub.handle});
  return api;
})();
"""
