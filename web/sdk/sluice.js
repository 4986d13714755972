/*
 * Sluice browser SDK: the client side of docs/protocol.md (JSON-RPC 2.0 over a WebSocket,
 * one RTCPeerConnection per publish or play). No dependencies.
 *
 * One file, over 400 lines, on purpose: a page loads the whole SDK with one script tag and no
 * bundler, and sluice.mjs re-exports it as a module.
 *
 * Loading
 *   <script src="/sdk/sluice.js"></script>            classic script: sets window.Sluice
 *   import Sluice from '/sdk/sluice.mjs';               ES module: default export and named exports
 *   (an ES-module page may also `import '/sdk/sluice.js'` and use globalThis.Sluice)
 *
 * API
 *   Sluice.connect(url?, options) -> Promise<Session>
 *     url: 'ws://host:8080/ws'; omitted or null: the page's own host, path /ws (wss on https)
 *     options: {appKey (or token), token? (an access token: then appKey may be left out), custom?, clientVersion?,
 *               timeout? (ms per request, default 15000), iceServers? (override the server's),
 *               iceTransportPolicy? ('all', the default, or 'relay': only TURN relays)}
 *     Every RTCPeerConnection uses the `iceServers` of connect's result (the server's TURN
 *     servers with short-lived credentials) unless `iceServers` overrides them.
 *     Rejects with a SluiceError (e.g. code 1001 UNKNOWN_APP_KEY).
 *
 *   Session (an EventTarget)
 *     .sessionId .serverVersion .identity (the token's sub, or null) .iceServers .status ('CONNECTED', then 'ESTABLISHED', 'DISCONNECTED', 'CLOSED')
 *     .publish(name, mediaStream, {constraints?, simulcast?, record?, custom?, iceTransportPolicy?, dataChannels?}) -> Promise<Stream>
 *         sendonly transceivers for the stream's tracks (audio/video constraints `false` leave
 *         that kind out). simulcast: true sends three encodings, rid q/h/f at 1/4, 1/2 and
 *         full resolution; constraints.video.bitrate (kbit/s) caps the encoder(s) and
 *         constraints.video.fps the frame rate.
 *     .play(name, {constraints?, wait?, custom?, iceTransportPolicy?, dataChannels?}) -> Promise<Stream>
 *         recvonly transceivers; the returned stream's .mediaStream fills as tracks arrive.
 *     dataChannels (publish and play): labels, or {label, ordered?, maxRetransmits?,
 *         maxPacketLifeTime?, protocol?} objects; each becomes an RTCDataChannel on the stream's
 *         PeerConnection, made before the offer, in stream.dataChannels (a Map by label). A
 *         publisher's messages reach every player's channel of the same label; a player's
 *         reach the publisher (docs/protocol.md section 6, Data channels).
 *     .update(handle, constraints) -> Promise<{}>   (the new layer comes as a streamEvent)
 *     .mute(handle, kind) / .unmute(handle, kind) -> Promise<{}>   kind: 'audio' | 'video'
 *     .stop(handle) -> Promise<{}>   also closes the stream's RTCPeerConnection
 *     .getStats(handle) -> Promise<object>   the server's stats (protocol section 3)
 *     .ping() -> Promise<{}>
 *     .disconnect() -> Promise<void>   the server then closes the socket
 *     .call(method, params) -> Promise<result>   any other request, raw
 *     .streams -> Map of handle to Stream
 *     `handle` arguments take a handle string or a Stream.
 *     Events, as `session.on(type, fn)` (fn gets the notification params; returns an
 *     unsubscribe function) or `addEventListener(type, e => e.detail)`:
 *       'session'       {status, info?}
 *       'streamStatus'  {handle, stream, role, status, info?}
 *       'streamEvent'   {handle, stream, type, by?, data?}
 *       'close'         {code, reason}   the WebSocket closed
 *
 *   Stream (an EventTarget): one publish or play handle
 *     .handle .name .role ('publish' | 'play') .status .info .peerConnection .mediaStream .dataChannels
 *     .offerSdp .answerSdp   as sent and as received
 *     .update(constraints) .mute(kind) .unmute(kind) .stop() .getStats()   as on the session
 *     .getPeerStats() -> Promise<{video, audio, connectionState, candidatePair}>: the browser's own
 *         RTP figures (framesDecoded or framesEncoded, framesPerSecond, frameWidth, frameHeight, bytes,
 *         packets; a simulcast publish adds video.encodings, one entry per rid), and the selected
 *         ICE pair {localType ('host', 'srflx' or 'relay'), remoteType, protocol} or null
 *     Events 'streamStatus' and 'streamEvent' for this handle only (same detail as above).
 *     A stream that ends (STOPPED, UNPUBLISHED without wait, FAILED) closes its RTCPeerConnection.
 *
 *   SluiceError (an Error): .code, .message, .reason, .data
 *     Server errors carry the protocol's code and reason (1003 STREAM_NAME_IN_USE, -32602 ...).
 *     Client-side failures have code -1 and reason CONNECTION_CLOSED, TIMEOUT, CONNECT_FAILED
 *     or NEGOTIATION_FAILED.
 *
 * Example
 *   const session = await Sluice.connect(null, {appKey: 'defaultApp'});
 *   const camera = await navigator.mediaDevices.getUserMedia({video: true, audio: true});
 *   const pub = await session.publish('cam1', camera, {simulcast: true});
 *   const player = await session.play('cam1', {constraints: {video: {quality: 'low'}}});
 *   videoElement.srcObject = player.mediaStream;
 *   player.on('streamEvent', (e) => console.log(e.type, e.data));
 *   await session.update(player, {video: {quality: 'high'}});
 */
(function (global) {
  'use strict';

  const VERSION = '1.0.0';
  const DEFAULT_TIMEOUT_MS = 15000;
  const SIMULCAST_LAYERS = [
    {rid: 'q', scaleResolutionDownBy: 4, share: 0.1},
    {rid: 'h', scaleResolutionDownBy: 2, share: 0.3},
    {rid: 'f', scaleResolutionDownBy: 1, share: 0.6},
  ];

  class SluiceError extends Error {
    constructor(code, message, reason, data) {
      super(message);
      this.name = 'SluiceError';
      this.code = code;
      this.reason = reason;
      this.data = data;
    }

    static fromRPC(error) {
      const data = error && typeof error.data === 'object' && error.data !== null ? error.data : undefined;
      return new SluiceError(error && typeof error.code === 'number' ? error.code : -1,
        (error && error.message) || 'Unknown error', data && data.reason, data);
    }
  }

  const clientError = (reason, message) => new SluiceError(-1, message, reason);

  // EventTarget plus `on(type, fn)`, where fn gets the event's detail.
  class Emitter extends EventTarget {
    on(type, listener) {
      const wrapped = (event) => listener(event.detail, event);
      this.addEventListener(type, wrapped);
      return () => this.removeEventListener(type, wrapped);
    }

    emit(type, detail) {
      this.dispatchEvent(new CustomEvent(type, {detail}));
    }
  }

  const handleOf = (target) => (target && typeof target === 'object' ? target.handle : target);

  const defaultURL = () => {
    if (typeof location === 'undefined' || !location.host) throw clientError('CONNECT_FAILED', 'No URL given');
    return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  };

  class Stream extends Emitter {
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

  class Session extends Emitter {
    constructor(ws, options) {
      super();
      this._ws = ws;
      this._timeout = options.timeout || DEFAULT_TIMEOUT_MS;
      this._iceServersOverride = options.iceServers;
      this._iceTransportPolicy = options.iceTransportPolicy;
      this._nextId = 1;
      this._pending = new Map();
      this.streams = new Map();
      this.status = 'CONNECTING';
      this.sessionId = null;
      this.serverVersion = null;
      this.iceServers = [];
      ws.onmessage = (event) => this._receive(event.data);
      ws.onclose = (event) => this._closed(event.code, event.reason);
    }

    call(method, params) {
      return new Promise((resolve, reject) => {
        if (this._ws.readyState !== WebSocket.OPEN) {
          reject(clientError('CONNECTION_CLOSED', 'The connection is closed'));
          return;
        }
        const id = this._nextId++;
        const timer = setTimeout(() => {
          this._pending.delete(id);
          reject(clientError('TIMEOUT', `No reply to ${method} within ${this._timeout} ms`));
        }, this._timeout);
        this._pending.set(id, {resolve, reject, timer});
        const message = {jsonrpc: '2.0', id, method};
        if (params !== undefined) message.params = params;
        this._ws.send(JSON.stringify(message));
      });
    }

    async publish(name, mediaStream, options = {}) {
      const constraints = options.constraints;
      const video = constraints && typeof constraints.video === 'object' ? constraints.video : {};
      const pc = this._peerConnection(options);
      const stream = new Stream(this, 'publish', name, pc, mediaStream);
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
      if (options.custom !== undefined) params.custom = options.custom;
      return this._negotiate('publish', params, stream);
    }

    async play(name, options = {}) {
      const constraints = options.constraints;
      const pc = this._peerConnection(options);
      const mediaStream = new MediaStream();
      const stream = new Stream(this, 'play', name, pc, mediaStream);
      stream.wait = !!options.wait;
      openDataChannels(stream, options.dataChannels);
      for (const kind of ['video', 'audio']) {
        if (constraints && constraints[kind] === false) continue;
        pc.addTransceiver(kind, {direction: 'recvonly'});
      }
      pc.addEventListener('track', (event) => {
        if (!mediaStream.getTracks().includes(event.track)) mediaStream.addTrack(event.track);
      });
      const params = {stream: name};
      if (constraints !== undefined) params.constraints = constraints;
      if (options.wait !== undefined) params.wait = !!options.wait;
      if (options.custom !== undefined) params.custom = options.custom;
      return this._negotiate('play', params, stream);
    }

    update(handle, constraints) { return this.call('update', {handle: handleOf(handle), constraints}); }
    mute(handle, kind) { return this.call('mute', {handle: handleOf(handle), kind}); }
    unmute(handle, kind) { return this.call('unmute', {handle: handleOf(handle), kind}); }
    getStats(handle) { return this.call('getStats', {handle: handleOf(handle)}); }
    ping() { return this.call('ping'); }

    async stop(handle) {
      const key = handleOf(handle);
      try {
        return await this.call('stop', {handle: key});
      } finally {
        const stream = this.streams.get(key);
        if (stream) stream._close();
      }
    }

    async disconnect() {
      if (this._ws.readyState === WebSocket.OPEN) {
        try { await this.call('disconnect'); } catch (e) { /* closing anyway */ }
      }
      this._closeStreams();
      if (this._ws.readyState === WebSocket.OPEN || this._ws.readyState === WebSocket.CONNECTING) {
        this._ws.close(1000);
      }
    }

    // A handle's own iceTransportPolicy wins over the session's; 'relay' sends everything
    // through the TURN servers, for networks that block UDP to the server or to test TURN.
    _peerConnection(options = {}) {
      const iceServers = this._iceServersOverride || this.iceServers || [];
      const config = {iceServers, bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require'};
      const policy = options.iceTransportPolicy || this._iceTransportPolicy;
      if (policy) config.iceTransportPolicy = policy;
      return new RTCPeerConnection(config);
    }

    // Offer, request, answer. The server is ICE-lite and its answer carries its candidates,
    // so the offer goes out at once, without waiting for gathering: the server learns the
    // browser's address from the browser's connectivity checks.
    async _negotiate(method, params, stream) {
      const pc = stream.peerConnection;
      let result;
      try {
        await pc.setLocalDescription(await pc.createOffer());
        params.sdp = stream.offerSdp = pc.localDescription.sdp;
        result = await this.call(method, params);
      } catch (error) {
        pc.close();
        throw error instanceof SluiceError ? error : clientError('NEGOTIATION_FAILED', String(error && error.message || error));
      }
      // Registered before anything else awaits, so this handle's first notification finds it.
      stream.handle = result.handle;
      stream.answerSdp = result.sdp;
      this.streams.set(result.handle, stream);
      try {
        await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
      } catch (error) {
        this.stop(result.handle).catch(() => {});
        stream._close();
        throw clientError('NEGOTIATION_FAILED', `The answer was refused: ${error && error.message || error}`);
      }
      return stream;
    }

    _receive(text) {
      let message;
      try { message = JSON.parse(text); } catch (e) { return; }
      if (!message || typeof message !== 'object') return;
      if (message.id !== undefined && message.id !== null) {
        const pending = this._pending.get(message.id);
        if (!pending) return;
        this._pending.delete(message.id);
        clearTimeout(pending.timer);
        if (message.error) pending.reject(SluiceError.fromRPC(message.error));
        else pending.resolve(message.result === undefined ? {} : message.result);
        return;
      }
      if (message.id === null && message.error) {
        // An answer to a frame the server could not read (oversize or unparsable).
        this.emit('error', SluiceError.fromRPC(message.error));
        return;
      }
      const params = message.params || {};
      switch (message.method) {
        case 'session':
          this.status = params.status;
          this.emit('session', params);
          break;
        case 'streamStatus': {
          const stream = this.streams.get(params.handle);
          this.emit('streamStatus', params);
          if (stream) stream._status(params);
          break;
        }
        case 'streamEvent': {
          const stream = this.streams.get(params.handle);
          this.emit('streamEvent', params);
          if (stream) stream.emit('streamEvent', params);
          break;
        }
        default:
          if (message.method) this.emit(message.method, params);
      }
    }

    _closed(code, reason) {
      for (const pending of this._pending.values()) {
        clearTimeout(pending.timer);
        pending.reject(clientError('CONNECTION_CLOSED', `The connection closed (${code})`));
      }
      this._pending.clear();
      this._closeStreams();
      if (this.status !== 'DISCONNECTED') this.status = 'CLOSED';
      this.emit('close', {code, reason});
    }

    _closeStreams() {
      for (const stream of [...this.streams.values()]) stream._close();
      this.streams.clear();
    }
  }

  // Send encodings for the video track: one, or three simulcast layers sharing the bitrate.
  // The data channels a publish or play asked for, made before its offer so the offer has an
  // m=application line. A label alone is a reliable, ordered channel.
  function openDataChannels(stream, wanted) {
    for (const entry of wanted || []) {
      const spec = typeof entry === 'string' ? {label: entry} : entry;
      const init = {};
      for (const key of ['ordered', 'maxRetransmits', 'maxPacketLifeTime', 'protocol']) {
        if (spec[key] !== undefined) init[key] = spec[key];
      }
      stream.dataChannels.set(spec.label, stream.peerConnection.createDataChannel(spec.label, init));
    }
  }

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

  function connect(url, options = {}) {
    if (url && typeof url === 'object' && !(url instanceof URL)) { options = url; url = null; }
    if (!options.appKey && !options.token) return Promise.reject(clientError('CONNECT_FAILED', 'options.appKey or options.token is required'));
    let target;
    try { target = url ? String(url) : defaultURL(); } catch (e) { return Promise.reject(e); }
    return new Promise((resolve, reject) => {
      let ws;
      try { ws = new WebSocket(target); } catch (e) {
        reject(clientError('CONNECT_FAILED', `Cannot open ${target}: ${e.message}`));
        return;
      }
      let opened = false;
      ws.onerror = () => { if (!opened) reject(clientError('CONNECT_FAILED', `Cannot connect to ${target}`)); };
      ws.onclose = (event) => { if (!opened) reject(clientError('CONNECT_FAILED', `Cannot connect to ${target} (${event.code})`)); };
      ws.onopen = async () => {
        opened = true;
        ws.onerror = null;
        const session = new Session(ws, options);
        const params = {clientVersion: options.clientVersion || `sluice.js/${VERSION}`};
        if (options.appKey) params.appKey = options.appKey;
        if (options.token !== undefined) params.token = options.token;
        if (options.custom !== undefined) params.custom = options.custom;
        try {
          const result = await session.call('connect', params);
          session.sessionId = result.sessionId;
          session.serverVersion = result.serverVersion;
          session.identity = result.identity || null;  // the token's sub
          session.iceServers = Array.isArray(result.iceServers) ? result.iceServers : [];
          session.status = 'CONNECTED';
          resolve(session);
        } catch (error) {
          if (ws.readyState === WebSocket.OPEN) ws.close(1000);
          reject(error);
        }
      };
    });
  }

  const Sluice = {connect, SluiceError, Session, Stream, version: VERSION};
  global.Sluice = Sluice;
})(typeof globalThis !== 'undefined' ? globalThis : window);
