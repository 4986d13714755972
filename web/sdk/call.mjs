// Calls: one 1:1 call between two users of an app, either side. The server rings, connects and
// ends it with callStatus notifications, which the Session hands to the call's Call.
import {clientError} from './errors.mjs';
import {Emitter} from './events.mjs';

// One 1:1 call (docs/protocol.md section 6, Calls). Its media is nothing special: a publish
// of this side's call stream and a `wait` play of the other's, made with the session's own
// publish() and play(), so handles, stats and events work as for any stream.
export class Call extends Emitter {
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

// The Session's call(to, {localStream}): the outgoing Call, as soon as the server gave it an id.
export async function placeCall(session, to, options) {
  if (!options.localStream) throw clientError('NO_MEDIA', 'A call needs options.localStream');
  const video = options.video !== false;
  const audio = options.audio !== false;
  const params = {to, video, audio};
  if (options.custom !== undefined) params.custom = options.custom;
  const result = await session.request('call', params);
  // Registered in the same microtask as the reply: the server sends the call's first
  // callStatus after it, in a later message.
  const call = new Call(session, {id: result.callId, from: session.identity, to, direction: 'outgoing',
                                  status: null, video, audio, custom: options.custom || {},
                                  localStream: options.localStream});
  session.calls.set(call.id, call);
  return call;
}
