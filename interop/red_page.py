"""A Chromium player for the Opus RED test: it plays with or without `red/48000/2` in its
offer (setCodecPreferences leaves RED out), and reads its inbound audio: the samples it
received and concealed, the codec it decoded, and its own port, which the test's loss rule
matches."""

RED_PLAY_SCRIPT = r"""
window.red = (() => {
  let pc = null;
  const api = {};

  api.play = async (url, stream, withRED) => {
    await window.sluice.open(url);
    await window.sluice.call('connect', {appKey: 'defaultApp'});
    pc = new RTCPeerConnection({iceServers: []});
    const audio = pc.addTransceiver('audio', {direction: 'recvonly'});
    if (!withRED) {
      const codecs = RTCRtpReceiver.getCapabilities('audio').codecs
        .filter((c) => c.mimeType.toLowerCase() !== 'audio/red');
      audio.setCodecPreferences(codecs);
    }
    const remote = new MediaStream();
    pc.ontrack = (ev) => {
      remote.addTrack(ev.track);
      const el = document.createElement('audio');
      el.autoplay = true; el.srcObject = remote;
      document.body.appendChild(el);
    };
    await pc.setLocalDescription(await pc.createOffer());
    await window.sluice.gathered(pc);
    const offer = pc.localDescription.sdp;
    const result = await window.sluice.call('play', {stream, sdp: offer});
    await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
    return {handle: result.handle, offerHasRED: /red\/48000/i.test(offer), answer: result.sdp};
  };

  // The inbound audio as Chromium counts it, the codec it decodes, and the local port of
  // the selected candidate pair.
  api.audio = async () => {
    const report = await pc.getStats();
    const out = {totalSamplesReceived: 0, concealedSamples: 0, packetsReceived: 0, packetsLost: 0,
                 codec: null, port: null};
    let pair = null;
    report.forEach((s) => {
      if (s.type === 'inbound-rtp' && s.kind === 'audio') {
        out.totalSamplesReceived = s.totalSamplesReceived || 0;
        out.concealedSamples = s.concealedSamples || 0;
        out.packetsReceived = s.packetsReceived || 0;
        out.packetsLost = s.packetsLost || 0;
        const codec = s.codecId && report.get(s.codecId);
        out.codec = codec ? codec.mimeType : null;
      }
      if (s.type === 'transport' && s.selectedCandidatePairId) pair = report.get(s.selectedCandidatePairId);
    });
    const local = pair && report.get(pair.localCandidateId);
    out.port = local ? local.port : null;
    return out;
  };
  return api;
})();
"""
