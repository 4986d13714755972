/*
 * Sluice browser SDK declarations (re-exported by ../sluice.d.ts): connect() and the Session
 * it makes: its options, events and methods.
 */

import {Call, CallLogOptions, CallLogPage, CallOptions, CallStatusDetail} from './call.js';
import {Custom, Empty, Handle, Kind, Off} from './common.js';
import {SluiceError} from './errors.js';
import {SluiceEvents} from './events.js';
import {PrecallOptions, PrecallReport} from './precall.js';
import {Constraints, PlayOptions, PublishOptions, ServerStats, Stream, StreamEventDetail, StreamStatusDetail} from './stream.js';

interface ConnectCommon {
  /** The session's user, for an app with apps[].trustClientUser; calls need a user. */
  user?: string;
  /** Passed to the server's hooks. */
  custom?: Custom;
  /** Sent in connect; default `sluice.js/<version>`. */
  clientVersion?: string;
  /** ms per request before it rejects with reason TIMEOUT; default 15000. */
  timeout?: number;
  /** Replaces the TURN servers the server hands out, for every RTCPeerConnection. */
  iceServers?: RTCIceServer[];
  /** 'relay' sends all media through the TURN servers; a handle's own option wins. */
  iceTransportPolicy?: RTCIceTransportPolicy;
}

/** connect's options: an app key, an access token, or both. */
export type ConnectOptions = ConnectCommon & ({appKey: string; token?: string} | {appKey?: string; token: string});

export interface SessionStatusDetail {
  status: 'ESTABLISHED' | 'DISCONNECTED' | 'FAILED';
  info?: string;
}

export interface CloseDetail {
  /** The WebSocket's close code: 1000 after disconnect(), 4001 for an unknown app key, ... */
  code: number;
  reason: string;
}

/** One followed stream that speaks now (activeSpeakers). */
export interface ActiveSpeaker {
  name: string;
  /** Its smoothed audio level, dBov (-50 to 0 while speaking). */
  level: number;
}

/** followSpeakers' set: stream names, a name prefix, or both; neither stops following. */
export interface SpeakerSet {
  /** Up to 100 stream names. */
  names?: string[];
  /** Every stream whose name starts with it (a "room"). */
  prefix?: string;
}

export interface SessionEventMap {
  session: SessionStatusDetail;
  streamStatus: StreamStatusDetail;
  streamEvent: StreamEventDetail;
  /** An incoming call (direction 'incoming', status 'RINGING'): accept, decline or let it ring. */
  incomingCall: Call;
  /** Every call's status, also of a call the session has no Call for (taken over after a reconnect). */
  callStatus: CallStatusDetail;
  /** The WebSocket closed; the session's live calls ended locally with endResult 'connectionLost'. */
  close: CloseDetail;
  /** The server's answer to a frame it could not read (oversize or unparsable). */
  error: SluiceError;
  /** The followed streams speaking now, loudest first (after followSpeakers), on change, at most every 200 ms. */
  activeSpeakers: ActiveSpeaker[];
  /** The followed stream that holds the floor, or null when nobody does. */
  dominantSpeaker: string | null;
  /** The server drains for a restart: what runs goes on until the deadline; new publishes and plays get 1017. */
  serverDraining: ServerDraining;
}

/** serverDraining's notice (docs/protocol.md section 6, Draining). */
export interface ServerDraining {
  /** ms from the notice until the server closes the sessions left. */
  deadlineMs: number;
  /** Other cluster nodes' signaling URLs that take sessions ([] on a single node). */
  servers: string[];
}

/**
 * Opens a session: the WebSocket, then the protocol's connect. `url` is like
 * 'ws://host:8080/ws'; null or left out means the page's own host, path /ws (wss on https).
 * Rejects with a SluiceError, e.g. code 1001 reason UNKNOWN_APP_KEY, or CONNECT_FAILED.
 */
export declare function connect(url: string | URL | null | undefined, options: ConnectOptions): Promise<Session>;
export declare function connect(options: ConnectOptions): Promise<Session>;

/** The SDK's version. */
export declare const version: string;

/** A connected session. Made by connect(). */
export declare class Session extends SluiceEvents<SessionEventMap> {
  private constructor();
  sessionId: string;
  serverVersion: string;
  /** The token's sub or the trusted user; null without one. */
  identity: string | null;
  /** The server's TURN servers, with short-lived credentials. */
  iceServers: RTCIceServer[];
  status: 'CONNECTING' | 'CONNECTED' | 'ESTABLISHED' | 'DISCONNECTED' | 'FAILED' | 'CLOSED';
  /** The open publish and play handles. */
  streams: Map<string, Stream>;
  /** The session's calls, until each ends. */
  calls: Map<string, Call>;
  /** The last activeSpeakers after followSpeakers ([] before one came). */
  activeSpeakers: ActiveSpeaker[];
  /** The last dominantSpeaker after followSpeakers (null before one came). */
  dominantSpeaker: string | null;
  /** The serverDraining notice once one came, else null. */
  draining: ServerDraining | null;

  /** Publishes `mediaStream`'s tracks as `name` (sendonly); resolves once the answer is set. */
  publish(name: string, mediaStream: MediaStream, options?: PublishOptions): Promise<Stream>;
  /** Plays `name` (recvonly); the Stream's mediaStream fills as tracks arrive. */
  play(name: string, options?: PlayOptions): Promise<Stream>;
  /** New constraints for a handle; the new layer comes as a streamEvent. */
  update(handle: Handle, constraints: Constraints): Promise<Empty>;
  mute(handle: Handle, kind: Kind): Promise<Empty>;
  unmute(handle: Handle, kind: Kind): Promise<Empty>;
  /** Stops a handle and closes its RTCPeerConnection. */
  stop(handle: Handle): Promise<Empty>;
  getStats(handle: Handle): Promise<ServerStats>;
  /**
   * The pre-call network test on a PeerConnection of its own. Resolves with the report;
   * rejects with the RPC error, PRECALL_FAILED or ABORTED. Its media is stopped either way.
   */
  precall(options?: PrecallOptions): Promise<PrecallReport>;
  /** Calls the user `to` of the same app; resolves as soon as the server gave the call an id. */
  call(to: string, options: CallOptions): Promise<Call>;
  /** Without a localStream, call() is the raw request it was before calls, as request(). */
  call<T = unknown>(method: string, params?: object): Promise<T>;
  callLog(options?: CallLogOptions): Promise<CallLogPage>;
  /** The app's users with a session open, sorted. */
  onlineUsers(): Promise<string[]>;
  /**
   * Follows who speaks among the set, on any node of the cluster: activeSpeakers and
   * dominantSpeaker events follow. A new set replaces the old; an empty one stops following.
   * Rejects with code 1012 for a name the token may not play.
   */
  followSpeakers(set?: SpeakerSet): Promise<void>;
  /**
   * A new session with this one's credentials, on `url` (the app's choice, e.g. its load
   * balancer) or else on the first server of the drain notice; rejects with CONNECT_FAILED
   * when there is neither. Publishing and playing again there is the app's to do.
   */
  reconnect(url?: string | URL): Promise<Session>;
  ping(): Promise<Empty>;
  /** Ends the session; the server then closes the socket. */
  disconnect(): Promise<void>;
  /** Any other JSON-RPC request, raw. */
  request<T = unknown>(method: string, params?: object): Promise<T>;

  /** Any other notification the server sends comes as an event of its method's name. */
  on<K extends keyof SessionEventMap>(type: K, listener: (detail: SessionEventMap[K], event: CustomEvent<SessionEventMap[K]>) => void): Off;
  on(type: string, listener: (detail: any, event: CustomEvent) => void): Off;
}
