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
 *     options: {appKey (or token), token? (an access token: then appKey may be left out), user? (the session's
 *               user, for an app with apps[].trustClientUser; calls need a user), custom?, clientVersion?,
 *               timeout? (ms per request, default 15000), iceServers? (override the server's),
 *               iceTransportPolicy? ('all', the default, or 'relay': only TURN relays)}
 *     Every RTCPeerConnection uses the `iceServers` of connect's result (the server's TURN
 *     servers with short-lived credentials) unless `iceServers` overrides them.
 *     Rejects with a SluiceError (e.g. code 1001 UNKNOWN_APP_KEY).
 *
 *   Session (an EventTarget)
 *     .sessionId .serverVersion .identity (the token's sub, the trusted user, or null) .iceServers .status ('CONNECTED', then 'ESTABLISHED', 'DISCONNECTED', 'CLOSED')
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
 *     .precall({seconds?, stream?, onProgress?, signal?, iceTransportPolicy?}) -> Promise<report>
 *         the pre-call network test (docs/protocol.md section 6, Pre-call test) on a
 *         PeerConnection of its own, bound to no stream: video sendrecv (the server's probe comes
 *         back on it), audio sendonly. stream: a MediaStream with a video track (a camera, to
 *         test with it); by default synthetic media (noise on a 640x360 canvas at 30 fps and a
 *         tone), since a camera compresses too well to fill the uplink. seconds: 1 to 10 (the
 *         app's default otherwise). onProgress(figures, event) for each precallProgress
 *         ({elapsedMs, rttMs, jitterMs, lossUp, lossDown, uplinkKbps, downlinkKbps}, null until
 *         measured). Resolves with the precallReport's data (those figures, durationMs,
 *         quality {score, level}, recommended {publish {width, height, fps, bitrate}, play
 *         {quality}}); rejects with the RPC error, on precallFailed (reason PRECALL_FAILED, .info),
 *         or when signal aborts (reason ABORTED; the test is stopped). Whatever the outcome the
 *         PeerConnection is closed and the media it made itself is stopped.
 *     .call(to, {localStream, video = true, audio = true, custom?}) -> Promise<Call>
 *         calls the user `to` of the same app (docs/protocol.md section 6, Calls); resolves with the
 *         outgoing Call as soon as the server gave it an id (its status is null until RINGING, or
 *         ENDED at once: noAnswer, busy). localStream is required: it is published once the call
 *         is accepted (only its kinds that video/audio allow).
 *     .callLog({limit?, cursor?, from?, to?}) -> Promise<{calls, nextCursor?}>   the user's own
 *         calls, newest first (from/to in ms since the epoch; cursor: the nextCursor of the page before)
 *     .onlineUsers() -> Promise<string[]>   the app's users with a session open, sorted
 *     .ping() -> Promise<{}>
 *     .disconnect() -> Promise<void>   the server then closes the socket
 *     .request(method, params) -> Promise<result>   any other request, raw
 *         (.call(method, params) without a localStream does the same, as before calls)
 *     .streams -> Map of handle to Stream
 *     .calls -> Map of callId to Call, until each ends
 *     `handle` arguments take a handle string or a Stream.
 *     Events, as `session.on(type, fn)` (fn gets the notification params; returns an
 *     unsubscribe function) or `addEventListener(type, e => e.detail)`:
 *       'session'       {status, info?}
 *       'streamStatus'  {handle, stream, role, status, info?}
 *       'streamEvent'   {handle, stream, type, by?, data?}
 *       'incomingCall'  a Call (direction 'incoming', status 'RINGING'): accept, decline or let it ring
 *       'callStatus'    {callId, status, by?, endResult?, reason?, publish?, play?}   raw, for every call,
 *                       also one the session has no Call for (a call taken over after a reconnect)
 *       'close'         {code, reason}   the WebSocket closed; the session's live calls end
 *                       locally with endResult 'connectionLost'
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
 *   Call (an EventTarget): one 1:1 call, either side
 *     .id .from .to (users) .direction ('outgoing' | 'incoming') .video .audio .custom
 *     .status (null, 'RINGING', 'CONNECTING', 'CONNECTED', 'ON_HOLD', 'ENDED') .ended
 *     .endResult (with ENDED: completed, declined, canceled, timedOut, noAnswer, connectionLost,
 *         otherDeviceAccepted (another device of the callee took it), busy, unknown)
 *     .by (the user who acted on the latest status, or null) .reason (the server's text)
 *     .localStream .remoteStream (the play's MediaStream, once the play is made)
 *     .publisher .player   the call's two Streams (publish of this side's stream, play of the other's)
 *     .publishName .playName   their names, ~call-<callId>-caller and ~call-<callId>-callee
 *     .accept({localStream}) -> Promise<{callId, publish, play}>   incoming only; resolves once
 *         the publish and the play are made
 *     .decline() .hangup() .hold() .unhold() -> Promise<{}>   hangup of an ended call resolves at once
 *     .muteVideo() .unmuteVideo() .muteAudio() .unmuteAudio() -> Promise<{}>   the publish's mute:
 *         the other side gets 'muted' / 'unmuted' by 'publisher'
 *     Media: on CONNECTING (or accept's result) the SDK publishes localStream to .publishName and
 *     plays .playName with wait: true, through session.publish() and session.play(). On ENDED it
 *     closes both (the server stops them too). It never stops localStream's tracks: the page owns them.
 *     Events (`call.on(type, fn)` or addEventListener):
 *       'status'        {status, endResult?, by?, reason?}   every callStatus
 *       'remoteStream'  {stream}   the play's MediaStream, ready for a <video>
 *       'muted' / 'unmuted'   {kind ('audio' | 'video'), type, by?}   the other side's stream:
 *                       by 'publisher' (its mute) or 'server' (a hold)
 *       'ended'         {endResult, by, reason}   after the last 'status'
 *       'error'         a SluiceError: the publish or the play failed, and the SDK hung up
 *
 *   SluiceError (an Error): .code, .message, .reason, .data
 *     Server errors carry the protocol's code and reason (1003 STREAM_NAME_IN_USE, -32602 ...).
 *     Client-side failures have code -1 and reason CONNECTION_CLOSED, TIMEOUT, CONNECT_FAILED,
 *     NEGOTIATION_FAILED, for precall PRECALL_FAILED (with .info) and ABORTED, for calls
 *     NO_MEDIA (no localStream, or a mute before the call's publish) and WRONG_DIRECTION.
 *
 * Example
 *   const session = await Sluice.connect(null, {appKey: 'defaultApp'});
 *   const camera = await navigator.mediaDevices.getUserMedia({video: true, audio: true});
 *   const pub = await session.publish('cam1', camera, {simulcast: true});
 *   const player = await session.play('cam1', {constraints: {video: {quality: 'low'}}});
 *   videoElement.srcObject = player.mediaStream;
 *   player.on('streamEvent', (e) => console.log(e.type, e.data));
 *   await session.update(player, {video: {quality: 'high'}});
 *
 * A call (an app with trustClientUser, or tokens with sub)
 *   const alice = await Sluice.connect(null, {appKey: 'callApp', user: 'alice'});
 *   const call = await alice.call('bob', {localStream: camera});
 *   call.on('remoteStream', ({stream}) => { remoteVideo.srcObject = stream; });
 *   call.on('ended', ({endResult}) => console.log('call over:', endResult));
 *   // on bob's side
 *   bob.on('incomingCall', (call) => call.accept({localStream: camera}));
 */
(function (global) {
  'use strict';

  const VERSION = '1.0.0';
  const DEFAULT_TIMEOUT_MS = 15000;
  // A precall ends by the server within its seconds (at most 10) after DTLS is up, or fails
  // 10 s after the answer when the PeerConnection never comes up; past this, the server is gone.
  const PRECALL_TIMEOUT_MS = 25000;
  // No cap from the client: the test is meant to fill the path.
  const PRECALL_MAX_BITRATE = 8000000;
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

  // One 1:1 call (docs/protocol.md section 6, Calls). Its media is nothing special: a publish
  // of this side's call stream and a `wait` play of the other's, made with the session's own
  // publish() and play(), so handles, stats and events work as for any stream.
  class Call extends Emitter {
    constructor(session, fields) {
      super();
      this.session = session;
      this.id = fields.id;
      this.from = fields.from;
      this.to = fields.to;
      this.direction = fields.direction;
      this.status = fields.status;
      this.endResult = null;
      this.by = null;
      this.reason = null;
      this.video = fields.video;
      this.audio = fields.audio;
      this.custom = fields.custom;
      this.localStream = fields.localStream || null;
      this.remoteStream = null;
      this.publisher = null;
      this.player = null;
      this.publishName = null;
      this.playName = null;
      this._media = null;  // the promise of the publish and play, made once
      this._offEvents = null;
    }

    get ended() { return this.status === 'ENDED'; }

    async accept(options = {}) {
      if (this.direction !== 'incoming') throw clientError('WRONG_DIRECTION', 'Only an incoming call is accepted');
      if (options.localStream) this.localStream = options.localStream;
      if (!this.localStream) throw clientError('NO_MEDIA', 'accept needs options.localStream');
      const result = await this.session.request('accept', {callId: this.id});
      // The CONNECTING that follows names the same streams; whichever comes first starts them.
      await this._startMedia(result.publish, result.play);
      return result;
    }

    decline() { return this.session.request('decline', {callId: this.id}); }
    hold() { return this.session.request('hold', {callId: this.id}); }
    unhold() { return this.session.request('unhold', {callId: this.id}); }

    // Idempotent: a call that ended already has nothing to hang up.
    hangup() {
      if (this.ended) return Promise.resolve({});
      return this.session.request('hangup', {callId: this.id});
    }

    muteVideo() { return this._mute('mute', 'video'); }
    unmuteVideo() { return this._mute('unmute', 'video'); }
    muteAudio() { return this._mute('mute', 'audio'); }
    unmuteAudio() { return this._mute('unmute', 'audio'); }

    async _mute(method, kind) {
      if (this._media) await this._media;
      if (!this.publisher) throw clientError('NO_MEDIA', 'The call has no media yet');
      return method === 'mute' ? this.publisher.mute(kind) : this.publisher.unmute(kind);
    }

    // A callStatus for this call, or the session's end (a local ENDED connectionLost).
    _status(params) {
      if (this.ended) return;
      this.status = params.status;
      // Who acted on this status (the hold's user, the one who hung up), not an earlier one's.
      this.by = params.by !== undefined ? params.by : null;
      if (params.reason !== undefined) this.reason = params.reason;
      if (params.status === 'ENDED') {
        this.endResult = params.endResult || 'unknown';
        this._end();
      } else if (params.publish && params.play && !this._media) {
        this._startMedia(params.publish, params.play).catch(() => { /* reported as 'error' */ });
      }
      const detail = {status: params.status};
      for (const key of ['endResult', 'by', 'reason']) {
        if (params[key] !== undefined) detail[key] = params[key];
      }
      this.emit('status', detail);
      if (this.ended) this.emit('ended', {endResult: this.endResult, by: this.by, reason: this.reason});
    }

    _startMedia(publishName, playName) {
      if (this._media) return this._media;
      this.publishName = publishName;
      this.playName = playName;
      // The other side's mute comes as streamEvents of our play of its stream. Listened to on
      // the session, by name, so an event that comes before play() resolves is not missed.
      this._offEvents = this.session.on('streamEvent', (p) => {
        if (p.stream !== this.playName) return;
        const match = /^(audio|video)(Muted|Unmuted)$/.exec(p.type);
        if (!match) return;
        const detail = {kind: match[1], type: p.type};
        if (p.by !== undefined) detail.by = p.by;
        this.emit(match[2] === 'Muted' ? 'muted' : 'unmuted', detail);
      });
      const kinds = {audio: this.audio, video: this.video};
      this._media = (async () => {
        const [pub, play] = await Promise.allSettled([
          this.session.publish(publishName, this.localStream, {constraints: kinds}),
          this.session.play(playName, {wait: true, constraints: kinds}),
        ]);
        if (this.ended) {
          // Ended while the requests were out: the server stops the handles it made; closing
          // ours is all that is left (a stop of a handle it stopped would be a 1007).
          for (const r of [pub, play]) if (r.status === 'fulfilled') r.value._close();
          return;
        }
        if (pub.status === 'fulfilled') this.publisher = pub.value;
        if (play.status === 'fulfilled') {
          this.player = play.value;
          this.remoteStream = play.value.mediaStream;
          this.emit('remoteStream', {stream: this.remoteStream});
        }
        const failed = [pub, play].find((r) => r.status === 'rejected');
        if (failed) {
          // Without both halves the call cannot connect: say so and end it.
          this.emit('error', failed.reason);
          this.hangup().catch(() => {});
          throw failed.reason;
        }
      })();
      return this._media;
    }

    // The server stops the call's handles when it ends; closing our side is idempotent.
    _end() {
      if (this._offEvents) this._offEvents();
      this._offEvents = null;
      for (const stream of [this.publisher, this.player]) if (stream) stream._close();
      this.session.calls.delete(this.id);
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
      this._precalls = new Map();  // handle -> {event(params), status(params), end(error)}
      this.calls = new Map();  // callId -> Call, until it ends
      this.status = 'CONNECTING';
      this.sessionId = null;
      this.serverVersion = null;
      this.iceServers = [];
      ws.onmessage = (event) => this._receive(event.data);
      ws.onclose = (event) => this._closed(event.code, event.reason);
    }

    // One JSON-RPC request: resolves with its result, rejects with a SluiceError.
    request(method, params) {
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

    // The pre-call test. One promise settles it: the report, precallFailed, an RPC error, the
    // abort signal, the socket's end or the timeout, whichever comes first; `finish` cleans up.
    precall(options = {}) {
      return new Promise((resolve, reject) => {
        const signal = options.signal;
        const aborted = () => clientError('ABORTED', 'The pre-call test was aborted');
        if (signal && signal.aborted) {
          reject(aborted());
          return;
        }
        let own = null;
        let pc = null;
        let handle = null;
        let timer = null;
        let done = false;
        const stopOnServer = (key) => { this.request('stop', {handle: key}).catch(() => {}); };
        const finish = (error, report) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          if (signal) signal.removeEventListener('abort', onAbort);
          if (handle) this._precalls.delete(handle);
          if (pc) { try { pc.close(); } catch (e) { /* already closed */ } }
          if (own) own.stop();
          if (error) reject(error); else resolve(report);
        };
        const onAbort = () => {
          if (handle) stopOnServer(handle);  // before it: stopped when the answer comes
          finish(aborted());
        };
        if (signal) signal.addEventListener('abort', onAbort);

        const run = {
          event: (params) => {
            const data = params.data || {};
            if (params.type === 'precallProgress') {
              if (typeof options.onProgress !== 'function') return;
              // A throwing callback must not break the session's dispatch: rethrown on its own.
              try { options.onProgress(data, params); } catch (e) { setTimeout(() => { throw e; }); }
            } else if (params.type === 'precallReport') {
              finish(null, data);
            } else if (params.type === 'precallFailed') {
              const error = new SluiceError(-1, data.info || 'The pre-call test failed', 'PRECALL_FAILED', data);
              error.info = data.info;
              finish(error);
            }
          },
          status: (params) => {
            if (params.status !== 'FAILED') return;
            const error = new SluiceError(-1, params.info || 'The pre-call test failed', 'PRECALL_FAILED', params);
            error.info = params.info;
            finish(error);
          },
          end: (error) => finish(error),
        };

        (async () => {
          let media = options.stream;
          if (!media) media = (own = syntheticMedia()).stream;
          const video = media.getVideoTracks()[0];
          if (!video) throw clientError('NEGOTIATION_FAILED', 'The pre-call test needs a video track');
          pc = this._peerConnection(options);
          const sender = pc.addTransceiver(video, {direction: 'sendrecv', streams: [media]}).sender;
          const audio = media.getAudioTracks()[0];
          if (audio) pc.addTransceiver(audio, {direction: 'sendonly', streams: [media]});
          const params = {};
          try {
            await pc.setLocalDescription(await pc.createOffer());
            params.sdp = pc.localDescription.sdp;
          } catch (error) {
            throw clientError('NEGOTIATION_FAILED', String(error && error.message || error));
          }
          if (options.seconds !== undefined) params.seconds = options.seconds;
          if (done) return;
          const result = await this.request('precall', params);
          if (done) {
            stopOnServer(result.handle);  // aborted (or closed) while the request was out
            return;
          }
          // Registered before anything else awaits, so the handle's first event finds it.
          handle = result.handle;
          this._precalls.set(handle, run);
          timer = setTimeout(() => {
            stopOnServer(handle);
            finish(clientError('TIMEOUT', `No pre-call report within ${PRECALL_TIMEOUT_MS} ms of the answer`));
          }, PRECALL_TIMEOUT_MS);
          try {
            await pc.setRemoteDescription({type: 'answer', sdp: result.sdp});
          } catch (error) {
            if (done) return;  // ended meanwhile: the PeerConnection is closed already
            stopOnServer(handle);
            throw clientError('NEGOTIATION_FAILED', `The answer was refused: ${error && error.message || error}`);
          }
          const parameters = sender.getParameters();
          if (parameters.encodings && parameters.encodings.length) {
            parameters.encodings[0].maxBitrate = PRECALL_MAX_BITRATE;
            sender.setParameters(parameters).catch(() => { /* the encoder's own cap then */ });
          }
        })().catch((error) => finish(error instanceof SluiceError ? error
          : clientError('NEGOTIATION_FAILED', String(error && error.message || error))));
      });
    }

    // A call needs this side's media, so a second argument with `localStream` is always a call;
    // without one this is the raw request it was before calls (`call('getStats', {handle})`).
    call(to, options) {
      if (!options || options.localStream === undefined) return this.request(to, options);
      return this._placeCall(to, options);
    }

    async _placeCall(to, options) {
      if (!options.localStream) throw clientError('NO_MEDIA', 'A call needs options.localStream');
      const video = options.video !== false;
      const audio = options.audio !== false;
      const params = {to, video, audio};
      if (options.custom !== undefined) params.custom = options.custom;
      const result = await this.request('call', params);
      // Registered in the same microtask as the reply: the server sends the call's first
      // callStatus after it, in a later message.
      const call = new Call(this, {id: result.callId, from: this.identity, to, direction: 'outgoing',
                                   status: null, video, audio, custom: options.custom || {},
                                   localStream: options.localStream});
      this.calls.set(call.id, call);
      return call;
    }

    callLog(options = {}) {
      const params = {};
      for (const key of ['limit', 'cursor', 'from', 'to']) {
        if (options[key] !== undefined && options[key] !== null) params[key] = options[key];
      }
      return this.request('callLog', params);
    }

    async onlineUsers() {
      const result = await this.request('onlineUsers');
      return Array.isArray(result.users) ? result.users : [];
    }

    update(handle, constraints) { return this.request('update', {handle: handleOf(handle), constraints}); }
    mute(handle, kind) { return this.request('mute', {handle: handleOf(handle), kind}); }
    unmute(handle, kind) { return this.request('unmute', {handle: handleOf(handle), kind}); }
    getStats(handle) { return this.request('getStats', {handle: handleOf(handle)}); }
    ping() { return this.request('ping'); }

    async stop(handle) {
      const key = handleOf(handle);
      try {
        return await this.request('stop', {handle: key});
      } finally {
        const stream = this.streams.get(key);
        if (stream) stream._close();
      }
    }

    async disconnect() {
      if (this._ws.readyState === WebSocket.OPEN) {
        try { await this.request('disconnect'); } catch (e) { /* closing anyway */ }
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
        result = await this.request(method, params);
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
          const precall = this._precalls.get(params.handle);
          this.emit('streamStatus', params);
          if (stream) stream._status(params);
          if (precall) precall.status(params);
          break;
        }
        case 'streamEvent': {
          // A precall's events carry its handle and no stream.
          const stream = this.streams.get(params.handle);
          const precall = this._precalls.get(params.handle);
          this.emit('streamEvent', params);
          if (stream) stream.emit('streamEvent', params);
          if (precall) precall.event(params);
          break;
        }
        case 'incomingCall': {
          const call = new Call(this, {id: params.callId, from: params.from, to: this.identity,
                                       direction: 'incoming', status: 'RINGING', video: params.video !== false,
                                       audio: params.audio !== false, custom: params.custom || {}});
          this.calls.set(call.id, call);
          this.emit('incomingCall', call);
          break;
        }
        case 'callStatus': {
          // Raw too: a session that takes a call over after a reconnect gets the status of a
          // call it has no Call for.
          this.emit('callStatus', params);
          const call = this.calls.get(params.callId);
          if (call) call._status(params);
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
      // The server keeps a call for calls.reconnectSeconds for a new session of the same user;
      // this session is gone either way, so its calls end here.
      for (const call of [...this.calls.values()]) {
        call._status({callId: call.id, status: 'ENDED', endResult: 'connectionLost', reason: 'The session closed'});
      }
      this.calls.clear();
      if (this.status !== 'DISCONNECTED') this.status = 'CLOSED';
      this.emit('close', {code, reason});
    }

    _closeStreams() {
      for (const stream of [...this.streams.values()]) stream._close();
      this.streams.clear();
      for (const precall of [...this._precalls.values()]) {
        precall.end(clientError('CONNECTION_CLOSED', 'The session ended during the pre-call test'));
      }
      this._precalls.clear();
    }
  }

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

  // The precall's default media: video no encoder can squeeze, so the uplink reading is the
  // path's and not the encoder's (Chromium's fake camera sends ~350 kbit/s at a 2 Mbit/s
  // target). Eight frames of random pixels, made once and cycled at 30 fps: each is
  // independent of the others, so reference frames save nothing either. Audio is a quiet
  // WebAudio tone, which needs no microphone permission.
  function syntheticMedia() {
    const width = 640;
    const height = 360;
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext('2d');
    const frames = [];
    let seed = (Math.random() * 0xffffffff) >>> 0 || 1;
    for (let f = 0; f < 8; f++) {
      const image = context.createImageData(width, height);
      const pixels = new Uint32Array(image.data.buffer);
      for (let i = 0; i < pixels.length; i++) {
        seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;  // xorshift32
        pixels[i] = seed | 0xff000000;  // opaque: alpha is the top byte on little-endian
      }
      frames.push(image);
    }
    let next = 0;
    const draw = () => context.putImageData(frames[next++ % frames.length], 0, 0);
    draw();
    // A timer, not requestAnimationFrame, which stops in a hidden tab.
    const timer = setInterval(draw, 1000 / 30);
    const stream = canvas.captureStream(30);
    let audio = null;
    try {
      audio = new AudioContext();
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      gain.gain.value = 0.05;
      const out = audio.createMediaStreamDestination();
      tone.connect(gain).connect(out);
      tone.start();
      audio.resume().catch(() => {});
      for (const track of out.stream.getAudioTracks()) stream.addTrack(track);
    } catch (e) {
      audio = null;  // no WebAudio: video alone measures the same
    }
    return {
      stream,
      stop() {
        clearInterval(timer);
        for (const track of stream.getTracks()) track.stop();
        if (audio) audio.close().catch(() => {});
      },
    };
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
        if (options.user !== undefined) params.user = options.user;
        if (options.custom !== undefined) params.custom = options.custom;
        try {
          const result = await session.request('connect', params);
          session.sessionId = result.sessionId;
          session.serverVersion = result.serverVersion;
          session.identity = result.identity || null;  // the token's sub, or the trusted user
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

  const Sluice = {connect, SluiceError, Session, Stream, Call, version: VERSION};
  global.Sluice = Sluice;
})(typeof globalThis !== 'undefined' ? globalThis : window);
