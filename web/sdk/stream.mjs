// Publish and play: a Stream is one handle (docs/protocol.md section 3) with its own
// RTCPeerConnection. The Session makes and negotiates it; the Stream keeps its state, forwards
// its handle's notifications, and reads the browser's own RTP figures.
import {openDataChannels} from './data.mjs';
import {SluiceError, clientError} from './errors.mjs';
import {Emitter} from './events.mjs';

// The dependency descriptor (AV1 RTP specification, appendix A) carries an SVC stream's layers.
// Chromium offers it on a receive-only transceiver only when asked (the header extension
// control API); without it, Chromium decodes no AV1 SVC stream (it needs the descriptor).
const DEPENDENCY_DESCRIPTOR = 'https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension';

function offerDependencyDescriptor(transceiver) {
  if (typeof transceiver.getHeaderExtensionsToNegotiate !== 'function') return;
  try {
    const extensions = transceiver.getHeaderExtensionsToNegotiate().map((e) =>
      (e.uri === DEPENDENCY_DESCRIPTOR && e.direction === 'stopped' ? {...e, direction: 'sendrecv'} : e));
    transceiver.setHeaderExtensionsToNegotiate(extensions);
  } catch (e) {
    // A browser that refuses the change still plays every stream but AV1 SVC.
  }
}

// Three simulcast encodings, rid q/h/f, sharing the bitrate a publish asks for.
const SIMULCAST_LAYERS = [
  {rid: 'q', scaleResolutionDownBy: 4, share: 0.1},
  {rid: 'h', scaleResolutionDownBy: 2, share: 0.3},
  {rid: 'f', scaleResolutionDownBy: 1, share: 0.6},
];

export class Stream extends Emitter {
  constructor(session, role, name, peerConnection, mediaStream) {
    super();
    this.session = session;
    this.role = role;
    this.name = name;
    this.peerConnection = peerConnection;
    this.mediaStream = mediaStream;
    this.dataChannels = new Map();
    this.handle = null;
    this.offerSdp = null;
    this.answerSdp = null;
    this.status = null;
    this.info = undefined;
    this.wait = false;
    // A publish's encodings with a taker, by rid, as the server last said (dynacast); null
    // until it says.
    this.layersWanted = null;
    this._encodingsApplied = Promise.resolve();
  }

  update(constraints) { return this.session.update(this, constraints); }
  mute(kind) { return this.session.mute(this, kind); }
  unmute(kind) { return this.session.unmute(this, kind); }
  stop() { return this.session.stop(this); }
  getStats() { return this.session.getStats(this); }

  async getPeerStats() {
    const out = {video: null, audio: null, connectionState: this.peerConnection.connectionState,
                 candidatePair: null};
    const report = await this.peerConnection.getStats();
    report.forEach((s) => {
      if (s.type !== 'transport' || !s.selectedCandidatePairId) return;
      const pair = report.get(s.selectedCandidatePairId);
      const local = pair && report.get(pair.localCandidateId);
      const remote = pair && report.get(pair.remoteCandidateId);
      if (local && remote) {
        out.candidatePair = {localType: local.candidateType, remoteType: remote.candidateType,
                             protocol: local.protocol};
      }
    });
    const type = this.role === 'publish' ? 'outbound-rtp' : 'inbound-rtp';
    const encodings = [];
    report.forEach((s) => {
      if (s.type !== type || (s.kind !== 'video' && s.kind !== 'audio')) return;
      const entry = {
        packets: (s.packetsReceived || 0) + (s.packetsSent || 0),
        bytes: (s.bytesReceived || 0) + (s.bytesSent || 0),
      };
      if (s.kind === 'video') {
        Object.assign(entry, {
          frameWidth: s.frameWidth || 0, frameHeight: s.frameHeight || 0,
          framesPerSecond: s.framesPerSecond || 0,
          framesDecoded: s.framesDecoded || 0, framesEncoded: s.framesEncoded || 0,
          keyFramesDecoded: s.keyFramesDecoded || 0, packetsLost: s.packetsLost || 0,
        });
        if (s.rid !== undefined) entry.rid = s.rid;
        if (s.qualityLimitationReason !== undefined) entry.qualityLimitationReason = s.qualityLimitationReason;
        encodings.push(entry);
        return;
      }
      out.audio = entry;
    });
    if (encodings.length === 1) {
      out.video = encodings[0];
    } else if (encodings.length > 1) {
      // Simulcast: one outbound entry per rid. The totals add up; the size is the largest sent.
      const order = (e) => ({q: 0, h: 1, f: 2})[e.rid] ?? 3;
      encodings.sort((a, b) => order(a) - order(b));
      const total = {packets: 0, bytes: 0, framesEncoded: 0, framesDecoded: 0, keyFramesDecoded: 0,
                     packetsLost: 0, frameWidth: 0, frameHeight: 0, framesPerSecond: 0, encodings};
      for (const e of encodings) {
        for (const key of ['packets', 'bytes', 'framesEncoded', 'framesDecoded', 'keyFramesDecoded', 'packetsLost']) {
          total[key] += e[key];
        }
        if (e.frameWidth * e.frameHeight > total.frameWidth * total.frameHeight) {
          total.frameWidth = e.frameWidth;
          total.frameHeight = e.frameHeight;
          total.framesPerSecond = e.framesPerSecond;
        }
        if (e.qualityLimitationReason) total.qualityLimitationReason = e.qualityLimitationReason;
      }
      out.video = total;
    }
    return out;
  }

  // Called by the session for this handle's stream events, before they are emitted.
  _event(params) {
    if (params.type === 'layersWanted' && this.role === 'publish' && params.data && Array.isArray(params.data.rids)) {
      this.layersWanted = params.data.rids.slice();
      // One change at a time: setParameters must not overlap the one before.
      this._encodingsApplied = this._encodingsApplied.then(() => applyLayersWanted(this.peerConnection, this.layersWanted))
        .catch(() => { /* the connection closed meanwhile */ });
    }
  }

  // Called by the session for this handle's notifications.
  _status(params) {
    this.status = params.status;
    this.info = params.info;
    this.emit('streamStatus', params);
    const s = params.status;
    if (s === 'FAILED' || s === 'STOPPED' || (s === 'UNPUBLISHED' && !(this.role === 'play' && this.wait))) {
      this._close();
    }
  }

  _close() {
    if (this.handle) this.session.streams.delete(this.handle);
    try { this.peerConnection.close(); } catch (e) { /* already closed */ }
  }
}

// Dynacast (docs/protocol.md section 6): the simulcast encodings nobody takes stop encoding
// and sending (`active: false`), and start again when they are wanted.
async function applyLayersWanted(pc, rids) {
  const sender = pc.getSenders().find((s) => s.track && s.track.kind === 'video');
  if (!sender) return;
  const parameters = sender.getParameters();
  let changed = false;
  for (const encoding of parameters.encodings || []) {
    if (!encoding.rid) continue;
    const active = rids.includes(encoding.rid);
    if (encoding.active !== active) {
      encoding.active = active;
      changed = true;
    }
  }
  if (changed) await sender.setParameters(parameters);
}

// Send encodings for the video track: one, or three simulcast layers sharing the bitrate.
function encodings(video, simulcast) {
  const kbps = typeof video.bitrate === 'number' ? video.bitrate : (typeof video.maxBitrate === 'number' ? video.maxBitrate : null);
  const fps = typeof video.fps === 'number' ? video.fps : null;
  const layers = simulcast ? SIMULCAST_LAYERS : [{share: 1}];
  return layers.map((layer) => {
    const encoding = {};
    if (layer.rid) {
      encoding.rid = layer.rid;
      encoding.scaleResolutionDownBy = layer.scaleResolutionDownBy;
    }
    if (kbps) encoding.maxBitrate = Math.round(kbps * 1000 * layer.share);
    if (fps) encoding.maxFramerate = fps;
    return encoding;
  });
}

// The Session's publish(): sendonly transceivers for the stream's tracks (a kind whose
// constraint is `false` is left out), the video one with its encodings.
export async function publishStream(session, name, mediaStream, options = {}) {
  const constraints = options.constraints;
  const video = constraints && typeof constraints.video === 'object' ? constraints.video : {};
  const pc = session._peerConnection(options);
  const stream = new Stream(session, 'publish', name, pc, mediaStream);
  openDataChannels(stream, options.dataChannels);
  for (const track of mediaStream.getTracks()) {
    if (constraints && constraints[track.kind] === false) continue;
    const init = {direction: 'sendonly', streams: [mediaStream]};
    if (track.kind === 'video') init.sendEncodings = encodings(video, !!options.simulcast);
    pc.addTransceiver(track, init);
  }
  const params = {stream: name};
  if (constraints !== undefined) params.constraints = constraints;
  if (options.record !== undefined) params.record = options.record;
  if (options.e2ee !== undefined) params.e2ee = options.e2ee;
  if (options.custom !== undefined) params.custom = options.custom;
  return negotiate(session, 'publish', params, stream);
}

// The Session's play(): recvonly transceivers; the MediaStream fills as tracks arrive.
export async function playStream(session, name, options = {}) {
  const constraints = options.constraints;
  const pc = session._peerConnection(options);
  const mediaStream = new MediaStream();
  const stream = new Stream(session, 'play', name, pc, mediaStream);
  stream.wait = !!options.wait;
  openDataChannels(stream, options.dataChannels);
  for (const kind of ['video', 'audio']) {
    if (constraints && constraints[kind] === false) continue;
    const transceiver = pc.addTransceiver(kind, {direction: 'recvonly'});
    if (kind === 'video') offerDependencyDescriptor(transceiver);
  }
  pc.addEventListener('track', (event) => {
    if (!mediaStream.getTracks().includes(event.track)) mediaStream.addTrack(event.track);
  });
  const params = {stream: name};
  if (constraints !== undefined) params.constraints = constraints;
  if (options.wait !== undefined) params.wait = !!options.wait;
  if (options.custom !== undefined) params.custom = options.custom;
  return negotiate(session, 'play', params, stream);
}

// Offer, request, answer. The server is ICE-lite and its answer carries its candidates,
// so the offer goes out at once, without waiting for gathering: the server learns the
// browser's address from the browser's connectivity checks.
async function negotiate(session, method, params, stream) {
  const pc = stream.peerConnection;
  let result;
  try {
    await pc.setLocalDescription(await pc.createOffer());
    params.sdp = stream.offerSdp = pc.localDescription.sdp;
    result = await session.request(method, params);
  } catch (error) {
    pc.close();
    throw error instanceof SluiceError ? error : clientError('NEGOTIATION_FAILED', String(error && error.message || error));
  }
  // Registered before anything else awaits, so this handle's first notification finds it.
  stream.handle = result.handle;
  stream.answerSdp = result.sdp;
  session.streams.set(result.handle, stream);
  try {
    await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
  } catch (error) {
    session.stop(result.handle).catch(() => {});
    stream._close();
    throw clientError('NEGOTIATION_FAILED', `The answer was refused: ${error && error.message || error}`);
  }
  return stream;
}
