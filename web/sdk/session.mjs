// The session: the WebSocket to the server, its JSON-RPC requests and replies, and the
// notifications, each handed to the Stream, Call or pre-call run it is about. What a publish,
// play, call or pre-call test does is in its own module; the Session is their entry point.
import {Call, placeCall} from './call.mjs';
import {SluiceError, clientError} from './errors.mjs';
import {Emitter, handleOf} from './events.mjs';
import {runPrecall} from './precall.mjs';
import {playStream, publishStream} from './stream.mjs';

export const VERSION = '0.1.0';
const DEFAULT_TIMEOUT_MS = 15000;

const defaultURL = () => {
  if (typeof location === 'undefined' || !location.host) throw clientError('CONNECT_FAILED', 'No URL given');
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
};

export class Session extends Emitter {
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
    this.identity = null;
    this.iceServers = [];
    // The last activeSpeakers and dominantSpeaker of followSpeakers (docs/protocol.md, Speakers).
    this.activeSpeakers = [];
    this.dominantSpeaker = null;
    // The server's serverDraining notice (docs/protocol.md section 6, Draining), null before one.
    this.draining = null;
    this._url = options._url || null;
    this._options = options;
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

  publish(name, mediaStream, options = {}) { return publishStream(this, name, mediaStream, options); }
  play(name, options = {}) { return playStream(this, name, options); }
  precall(options = {}) { return runPrecall(this, options); }

  // A call needs this side's media, so a second argument with `localStream` is always a call;
  // without one this is the raw request it was before calls (`call('getStats', {handle})`).
  call(to, options) {
    if (!options || options.localStream === undefined) return this.request(to, options);
    return placeCall(this, to, options);
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

  // Follows who speaks among the streams `names` lists and those whose name starts with
  // `prefix`, on any node; `activeSpeakers` and `dominantSpeaker` events follow. Neither stops.
  async followSpeakers(options = {}) {
    const params = {};
    if (Array.isArray(options.names)) params.names = options.names;
    if (typeof options.prefix === 'string') params.prefix = options.prefix;
    await this.request('speakers', params);
    if (!params.names?.length && params.prefix === undefined) {
      this.activeSpeakers = [];
      this.dominantSpeaker = null;
    }
  }

  // A new session with this one's credentials, for when the server drains: on `url` when the
  // app gives one (its load balancer, say), else on the first server the drain notice named.
  // Publishing and playing again there is the app's; this session stays until it disconnects.
  reconnect(url) {
    const target = url || (this.draining && this.draining.servers[0]);
    if (!target) return Promise.reject(clientError('CONNECT_FAILED', 'No URL given and the server named no other'));
    const {_url, ...options} = this._options;
    return connect(target, options);
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
        if (stream) stream._event(params);
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
      case 'activeSpeakers':
        this.activeSpeakers = Array.isArray(params.speakers) ? params.speakers : [];
        this.emit('activeSpeakers', this.activeSpeakers);
        break;
      case 'dominantSpeaker':
        this.dominantSpeaker = typeof params.name === 'string' ? params.name : null;
        this.emit('dominantSpeaker', this.dominantSpeaker);
        break;
      case 'serverDraining':
        this.draining = {deadlineMs: Number(params.deadlineMs) || 0,
                         servers: Array.isArray(params.servers) ? params.servers.filter((s) => typeof s === 'string') : []};
        this.emit('serverDraining', this.draining);
        break;
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

export function connect(url, options = {}) {
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
      const session = new Session(ws, {...options, _url: target});
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
