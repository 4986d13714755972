"""A page script for end-to-end encryption tests: a publisher whose encoded frames are encrypted
by an encoded transform (insertable streams) before packetization, and players that decrypt
them, or do not, each its own RTCPeerConnection and signaling session, in one Chromium page.

The cipher is a keyed XOR (its own inverse): the point is that the server cannot read what it
forwards, not secrecy. `clear` picks how many leading bytes of each frame stay readable:
'livekit' keeps VP8's 10 bytes of a key frame and 3 of a delta frame (LiveKit's and Jitsi's
choice), 'none' encrypts every byte, 'obu' every AV1 OBU's payload (Chromium's AV1 packetizer
reads the OBU headers).

`three_players` and `switch_ms` are the steps the E2EE tests share.
"""

import time

from page_parts import MAINTAIN_RESOLUTION_JS, OPEN_JS, PLAYERS_JS
from polling import poll

E2EE_SCRIPT = r"""
window.e2ee = (() => {
  const api = {players: {}, pub: null, encrypted: 0, decrypted: 0};

""" + OPEN_JS + MAINTAIN_RESOLUTION_JS + r"""
  const DD = 'https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension';
  // Offers the dependency descriptor (a receiver offers it only when asked), or, with `on`
  // false, leaves it out (a sender offers it unasked).
  const dependencyDescriptor = (transceiver, on) => {
    const extensions = transceiver.getHeaderExtensionsToNegotiate().map((e) =>
      e.uri === DD ? {...e, direction: on ? 'sendrecv' : 'stopped'} : e);
    transceiver.setHeaderExtensionsToNegotiate(extensions);
  };
  const only = (transceiver, mime) => {
    const codecs = RTCRtpReceiver.getCapabilities('video').codecs
      .filter((c) => c.mimeType === mime || c.mimeType === 'video/rtx');
    transceiver.setCodecPreferences(codecs);
  };

  // Odd in its first byte: a VP8 frame's key-frame bit flips, so a server that read it would
  // take every delta frame for a key frame, and every key frame for a delta.
  const KEY = [0x5b, 0x13, 0xc7, 0x2e, 0x91, 0x6b, 0xf0, 0x38];
  const clearBytes = (clear, frame) => clear === 'none' ? 0 : (frame.type === 'key' ? 10 : 3);
  // The key runs from `from`: a receiver's frame may place the same bytes elsewhere.
  const xorRange = (data, from, to) => { for (let i = from; i < to; i++) data[i] ^= KEY[(i - from) & 7]; };
  // AV1 ('obu'): Chromium's packetizer splits a frame at its OBUs, so their headers and sizes
  // stay in the clear and every OBU's payload is encrypted (an OBU without a size runs to the
  // end of the frame). The depacketizer rebuilds the frame with sizes of its own writing and
  // no temporal delimiter, so each payload is keyed from its own start.
  const xorObuPayloads = (data) => {
    let at = 0;
    while (at < data.length) {
      const header = data[at];
      let payload = at + 1 + ((header & 0x04) ? 1 : 0);
      let size = data.length - payload;
      if (header & 0x02) {
        size = 0;
        for (let i = 0; i < 8; i++) {
          const byte = data[payload++];
          size |= (byte & 0x7f) << (7 * i);
          if (!(byte & 0x80)) break;
        }
      }
      const end = Math.min(data.length, payload + size);
      xorRange(data, payload, end);
      at = end;
    }
  };
  // Encrypts (and, being its own inverse, decrypts) a frame in place past its clear bytes.
  const xorFrame = (clear, counter) => new TransformStream({
    transform(frame, controller) {
      const data = new Uint8Array(frame.data);
      if (clear === 'obu') xorObuPayloads(data);
      else if (clear !== 'identity') xorRange(data, clearBytes(clear, frame), data.length);
      frame.data = data.buffer;
      api[counter]++;
      controller.enqueue(frame);
    },
  });

  // encodings: the sendEncodings; dd: offer the dependency descriptor (else leave it out).
  // e2ee: the publish's flag, left out when undefined (the server then finds the encryption).
  api.publish = async (url, stream, {mime = 'video/VP8', encodings, clear = 'livekit', dd = false, e2ee,
                                     extra = {}} = {}) => {
    const client = await open(url);
    await client.call('connect', {appKey: 'defaultApp'});
    const media = await navigator.mediaDevices.getUserMedia(
      {video: {width: {exact: 1280}, height: {exact: 720}, frameRate: 30}, audio: false});
    const track = media.getVideoTracks()[0];
    track.contentHint = 'detail';
    const pc = new RTCPeerConnection({iceServers: [], encodedInsertableStreams: true});
    const transceiver = pc.addTransceiver(track, {direction: 'sendonly', streams: [media], sendEncodings: encodings});
    only(transceiver, mime);
    dependencyDescriptor(transceiver, dd);
    const streams = transceiver.sender.createEncodedStreams();
    streams.readable.pipeThrough(xorFrame(clear, 'encrypted')).pipeTo(streams.writable);
    await maintainResolution(transceiver.sender);
    await pc.setLocalDescription(await pc.createOffer());
    const params = {stream, sdp: pc.localDescription.sdp, ...extra};
    if (e2ee !== undefined) params.e2ee = e2ee;
    const result = await client.call('publish', params);
    await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
    api.pub = {client, pc, handle: result.handle, answer: result.sdp};
    return result.handle;
  };

  // Publish params alone, for the refusals: the answer or the error's text.
  api.tryPublish = async (url, stream, params, appKey = 'defaultApp') => {
    const client = await open(url);
    await client.call('connect', {appKey});
    const pc = new RTCPeerConnection({iceServers: []});
    pc.addTransceiver('video', {direction: 'sendonly'});
    await pc.setLocalDescription(await pc.createOffer());
    try {
      await client.call('publish', {stream, sdp: pc.localDescription.sdp, ...params});
      return 'published';
    } catch (e) {
      return String(e.message);
    } finally {
      client.ws.close();
      pc.close();
    }
  };

  api.canSend = (mime, mode) => RTCRtpSender.getCapabilities('video').codecs.some((c) => c.mimeType === mime
    && (!c.scalabilityModes || c.scalabilityModes.includes(mode)));

  api.outbound = async () => {
    const out = {};
    (await api.pub.pc.getStats()).forEach((s) => {
      if (s.type === 'outbound-rtp' && s.kind === 'video') {
        out[s.rid || '-'] = {frameWidth: s.frameWidth || 0, framesEncoded: s.framesEncoded || 0,
                             keyFramesEncoded: s.keyFramesEncoded || 0, bytesSent: s.bytesSent || 0};
      }
    });
    return out;
  };

  // decrypt false: a player that has not the key, and decodes what it gets as it is.
  api.play = async (url, stream, name, constraints, {mime = 'video/VP8', decrypt = true, clear = 'livekit',
                                                     dd = false} = {}) => {
    const client = await open(url);
    await client.call('connect', {appKey: 'defaultApp'});
    const pc = new RTCPeerConnection({iceServers: [], encodedInsertableStreams: decrypt});
    const transceiver = pc.addTransceiver('video', {direction: 'recvonly'});
    only(transceiver, mime);
    dependencyDescriptor(transceiver, dd);
    if (decrypt) {
      const streams = transceiver.receiver.createEncodedStreams();
      streams.readable.pipeThrough(xorFrame(clear, 'decrypted')).pipeTo(streams.writable);
    }
    await pc.setLocalDescription(await pc.createOffer());
    const result = await client.call('play', {stream, sdp: pc.localDescription.sdp, constraints});
    await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
    api.players[name] = {client, pc, handle: result.handle};
    return result.handle;
  };

""" + PLAYERS_JS + r"""
  api.events = (name) => api.players[name].client.notes.filter((n) => n.method === 'streamEvent');
  api.stats = (name) => api.players[name].client.call('getStats', {handle: api.players[name].handle});
  api.publisherStats = () => api.pub.client.call('getStats', {handle: api.pub.handle});
  return api;
})();
"""


async def three_players(page, url, stream, play):
    """Plays `stream` at `url` three times with the page options `play`: `low` and `high`, which
    decrypt, until they decode 320 and 1280 wide, and `plain` (quality high), which does not,
    until it got 100 kB: it must have decoded nothing. Returns the three's inbound stats."""
    for name, quality, decrypt in (("low", "low", True), ("high", "high", True), ("plain", "high", False)):
        await page.evaluate("([url, s, n, c, o]) => window.e2ee.play(url, s, n, c, o)",
                            [url, stream, name, {"video": {"quality": quality}}, {**play, "decrypt": decrypt}])
    low = await poll(page, "window.e2ee.inbound('low')", lambda s: s["frameWidth"] == 320 and s["framesDecoded"] >= 20,
                     40, "the low player decoding 320 wide")
    high = await poll(page, "window.e2ee.inbound('high')", lambda s: s["frameWidth"] == 1280 and s["framesDecoded"] >= 20,
                      40, "the high player decoding 1280 wide")
    plain = await poll(page, "window.e2ee.inbound('plain')", lambda s: s["bytesReceived"] > 100_000, 20,
                       "the player without the key receiving 100 kB")
    assert plain["framesDecoded"] == 0, f"a player without the key decoded frames: the payload was not encrypted: {plain}"
    return low, high, plain


async def switch_ms(page, name, quality, width):
    """`update` of player `name` to `quality`; ms until it decodes `width` wide."""
    start = time.monotonic()
    await page.evaluate("([n, c]) => window.e2ee.update(n, c)", [name, {"video": {"quality": quality}}])
    try:
        await poll(page, f"window.e2ee.inbound('{name}')", lambda s: s["frameWidth"] == width, 20,
                   f"player {name} decoding {width} wide after update to {quality}", interval=0.05)
    except AssertionError as failure:
        # What the server says it sent that player, beside what the player decoded.
        sent = (await page.evaluate(f"window.e2ee.stats('{name}')")).get("video", {})
        raise AssertionError(f"{failure}; the server's stats of it: "
                             f"{ {k: v for k, v in sent.items() if k not in ('layers', 'spatialLayers')} }") from None
    return round((time.monotonic() - start) * 1000)
