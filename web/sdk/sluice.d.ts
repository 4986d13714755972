/*
 * TypeScript declarations of the Sluice browser SDK (sluice.mjs), the client side of
 * docs/protocol.md. This file is the SDK's API reference; scripts/check-sdk-types.sh checks it
 * against the modules' real exports and compiles types-check/example.ts, which uses every call.
 *
 * A page imports the SDK by URL, so a TypeScript project maps that URL to this file, e.g. in
 * tsconfig.json: "paths": {"/sdk/sluice.mjs": ["./path/to/sluice.d.ts"]}.
 *
 * Conventions: kbit/s for bitrates, ms for times, fractions (0 to 1) for losses. Every promise
 * rejects with a SluiceError.
 */

// MARK: shared words

/** A media kind, for mute, unmute and constraints. */
export type Kind = 'audio' | 'video';

/** Which side of a stream a handle is. */
export type Role = 'publish' | 'play';

/** A play's simulcast layer choice; an integer 1 to 100 is also taken (67 and up high, 34 to 66 medium). */
export type Quality = 'auto' | 'high' | 'medium' | 'low';

/** The level of a connectionQuality score (a MOS estimate from 1.0 to 4.5). */
export type QualityLevel = 'excellent' | 'good' | 'average' | 'fair' | 'poor';

/** A handle argument: the handle string or the Stream itself. */
export type Handle = string | Stream;

/** What a request with nothing to say resolves with: `{}`. */
export type Empty = Record<string, never>;

/** Free-form data passed to the server's hooks (and, for a call, to the callee). */
export type Custom = Record<string, unknown>;

// MARK: options

export interface VideoConstraints {
  width?: number;
  height?: number;
  fps?: number;
  /** kbit/s. A publish caps its encoder(s) with it; a play caps the layer it gets. */
  bitrate?: number;
  minBitrate?: number;
  /** kbit/s: a publish's encoder cap when `bitrate` is not given. */
  maxBitrate?: number;
  /** Play only: the simulcast layer, or 'auto' (the default) to follow the bandwidth. */
  quality?: Quality | number;
}

export interface AudioConstraints {
  /** kbit/s. */
  bitrate?: number;
}

/** docs/protocol.md section 1, Constraints. `false` leaves that kind out. */
export interface Constraints {
  audio?: boolean | AudioConstraints;
  video?: boolean | VideoConstraints;
}

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

/**
 * A data channel of a publish or play: a label (a reliable, ordered channel) or its settings.
 * It is made before the offer, and found in `stream.dataChannels` by label.
 */
export type DataChannelSpec = string | {
  label: string;
  ordered?: boolean;
  maxRetransmits?: number;
  maxPacketLifeTime?: number;
  protocol?: string;
};

export interface PublishOptions {
  constraints?: Constraints;
  /** Three encodings, rid q/h/f at 1/4, 1/2 and full resolution, sharing the video bitrate. */
  simulcast?: boolean;
  /** Ask the server to record the stream (the app's recording setting decides). */
  record?: boolean;
  custom?: Custom;
  iceTransportPolicy?: RTCIceTransportPolicy;
  dataChannels?: DataChannelSpec[];
}

export interface PlayOptions {
  constraints?: Constraints;
  /** Keep the handle while nobody publishes the name; it plays when a publisher comes. */
  wait?: boolean;
  custom?: Custom;
  iceTransportPolicy?: RTCIceTransportPolicy;
  dataChannels?: DataChannelSpec[];
}

// MARK: notifications (event details)

export interface SessionStatusDetail {
  status: 'ESTABLISHED' | 'DISCONNECTED' | 'FAILED';
  info?: string;
}

export type PublishStatus = 'PENDING' | 'PUBLISHING' | 'UNPUBLISHED' | 'FAILED';
export type PlayStatus = 'PENDING' | 'PLAYING' | 'STOPPED' | 'UNPUBLISHED' | 'FAILED';

export interface StreamStatusDetail {
  handle: string;
  stream: string;
  role: Role;
  status: PublishStatus | PlayStatus;
  /** One of the protocol's exact info strings, e.g. "Stopped by publisher stop". */
  info?: string;
}

/** docs/protocol.md section 1, streamEvent types (the list may grow). */
export type StreamEventType =
  | 'audioMuted' | 'audioUnmuted' | 'videoMuted' | 'videoUnmuted'
  | 'resize' | 'layerChanged' | 'notEnoughBandwidth' | 'limitExceeded' | 'connectionQuality'
  | 'recordingStarted' | 'recordingStopped' | 'recordingFailed'
  | 'dataChannelOpened' | 'dataChannelClosed' | 'dataDropped'
  | 'precallProgress' | 'precallReport' | 'precallFailed';

export interface StreamEventDetail {
  handle: string;
  /** Absent for a pre-call test's events. */
  stream?: string;
  type: StreamEventType | (string & {});
  by?: 'publisher' | 'server' | 'player';
  /** The type's own figures, e.g. {width, height} for resize. */
  data?: any;
}

export type CallStatus = 'RINGING' | 'CONNECTING' | 'CONNECTED' | 'ON_HOLD' | 'ENDED';

export type EndResult =
  | 'completed' | 'declined' | 'canceled' | 'timedOut' | 'noAnswer' | 'connectionLost'
  | 'otherDeviceAccepted' | 'busy' | 'unknown';

/** The raw callStatus notification, as the session gets it. */
export interface CallStatusDetail {
  callId: string;
  status: CallStatus;
  by?: string;
  endResult?: EndResult;
  reason?: string;
  /** With CONNECTING: the call stream this side publishes. */
  publish?: string;
  /** With CONNECTING: the other side's call stream, which this side plays. */
  play?: string;
}

export interface CloseDetail {
  /** The WebSocket's close code: 1000 after disconnect(), 4001 for an unknown app key, ... */
  code: number;
  reason: string;
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
}

export interface StreamEventMap {
  streamStatus: StreamStatusDetail;
  streamEvent: StreamEventDetail;
}

export interface CallEventMap {
  /** Every callStatus of the call. */
  status: {status: CallStatus; endResult?: EndResult; by?: string; reason?: string};
  /** The play's MediaStream, ready for a <video>. */
  remoteStream: {stream: MediaStream};
  /** The other side's stream: by 'publisher' (its mute) or 'server' (a hold). */
  muted: {kind: Kind; type: string; by?: 'publisher' | 'server'};
  unmuted: {kind: Kind; type: string; by?: 'publisher' | 'server'};
  /** After the last 'status'. */
  ended: {endResult: EndResult; by: string | null; reason: string | null};
  /** The call's publish or play failed, and the SDK hung up. */
  error: SluiceError;
}

/** An unsubscribe function, as `on` returns. */
export type Off = () => void;

/**
 * Session, Stream and Call are EventTargets: `x.on(type, fn)` gets each event's detail, or
 * `addEventListener(type, (e) => e.detail)`.
 */
declare class SluiceEvents<Events> extends EventTarget {
  on<K extends keyof Events & string>(type: K, listener: (detail: Events[K], event: CustomEvent<Events[K]>) => void): Off;
}

// MARK: results

/** One kind's figures of getStats (docs/protocol.md section 3). */
export interface ServerMediaStats {
  packets?: number;
  bytes?: number;
  /** kbit/s over the last second. */
  bitrate?: number;
  packetsLost?: number;
  fractionLost?: number;
  jitterMs?: number;
  rttMs?: number;
  nacks?: number;
  plis?: number;
  firs?: number;
  codec?: string;
  fps?: number;
  width?: number;
  height?: number;
  /** Play: the simulcast layer forwarded. */
  layer?: number;
  keyFrames?: number;
  cacheStarts?: number;
  layers?: Array<{rid?: string; index?: number; width: number; height: number; fps: number; bitrate: number; active: boolean}>;
  [key: string]: unknown;
}

export interface DataChannelStats {
  id: number;
  label: string;
  protocol?: string;
  ordered?: boolean;
  maxRetransmits?: number;
  maxPacketLifeTime?: number;
  messagesReceived: number;
  bytesReceived: number;
  messagesSent: number;
  bytesSent: number;
  messagesDropped: number;
}

/** The server's getStats of one handle. */
export interface ServerStats {
  handle: string;
  stream: string;
  role: Role;
  audio?: ServerMediaStats;
  video?: ServerMediaStats;
  connectionQuality?: {score: number; level: QualityLevel};
  /** Only when the handle has data channels open. */
  dataChannels?: DataChannelStats[];
  [key: string]: unknown;
}

/** One direction's RTP figures, as the browser counts them. */
export interface PeerMediaStats {
  packets: number;
  bytes: number;
  frameWidth?: number;
  frameHeight?: number;
  framesPerSecond?: number;
  framesDecoded?: number;
  framesEncoded?: number;
  keyFramesDecoded?: number;
  packetsLost?: number;
  qualityLimitationReason?: string;
  /** A simulcast encoding's rid. */
  rid?: string;
  /** A simulcast publish: one entry per rid; the totals above add them up. */
  encodings?: PeerMediaStats[];
}

/** The browser's own figures of a Stream's RTCPeerConnection (sent for a publish, received for a play). */
export interface PeerStats {
  video: PeerMediaStats | null;
  audio: PeerMediaStats | null;
  connectionState: RTCPeerConnectionState;
  /** The selected ICE pair, or null before one is. */
  candidatePair: {localType: RTCIceCandidateType; remoteType: RTCIceCandidateType; protocol: string} | null;
}

/** The pre-call test's figures so far, each null until measured. */
export interface PrecallFigures {
  elapsedMs: number | null;
  rttMs: number | null;
  jitterMs: number | null;
  lossUp: number | null;
  lossDown: number | null;
  uplinkKbps: number | null;
  downlinkKbps: number | null;
}

export interface PrecallReport extends Omit<PrecallFigures, 'elapsedMs'> {
  elapsedMs?: number | null;
  durationMs: number;
  quality: {score: number; level: QualityLevel};
  recommended: {
    /** null without an uplink reading. */
    publish: {width: number; height: number; fps: number; bitrate: number} | null;
    /** null without a downlink reading. */
    play: {quality: 'high' | 'medium' | 'low'} | null;
  };
}

export interface PrecallOptions {
  /** 1 to 10; the app's default otherwise. */
  seconds?: number;
  /** A MediaStream with a video track (a camera); by default synthetic noise video and a tone. */
  stream?: MediaStream;
  /** Each precallProgress's figures, once a second. */
  onProgress?: (figures: PrecallFigures, event: StreamEventDetail) => void;
  /** Aborting stops the test; precall() rejects with reason ABORTED. */
  signal?: AbortSignal;
  iceTransportPolicy?: RTCIceTransportPolicy;
}

export interface CallOptions {
  /** Published once the call is accepted (only the kinds `video` and `audio` allow). Required. */
  localStream: MediaStream;
  /** Default true. */
  video?: boolean;
  /** Default true. */
  audio?: boolean;
  /** Passed to the callee (incomingCall) and the hooks. */
  custom?: Custom;
}

export interface CallLogOptions {
  /** 1 to 100, default 20. */
  limit?: number;
  /** The nextCursor of the page before. */
  cursor?: string;
  /** ms since the epoch, inclusive. */
  from?: number;
  /** ms since the epoch, exclusive. */
  to?: number;
}

/** One call of the log (docs/protocol.md section 6, Calls). Times in ms since the epoch. */
export interface CallRecord {
  callId: string;
  appKey: string;
  caller: string;
  callee: string;
  video: boolean;
  audio: boolean;
  custom: Custom;
  startedAt: number;
  answeredAt: number | null;
  endedAt: number | null;
  durationMs: number;
  endResult: EndResult | null;
  endedBy: string | null;
}

export interface CallLogPage {
  /** The session user's own calls, newest first. */
  calls: CallRecord[];
  /** There when more may follow. */
  nextCursor?: string;
}

export interface AcceptResult {
  callId: string;
  /** The call stream this side publishes. */
  publish: string;
  /** The other side's call stream. */
  play: string;
}

// MARK: the API

/**
 * Opens a session: the WebSocket, then the protocol's connect. `url` is like
 * 'ws://host:8080/ws'; null or left out means the page's own host, path /ws (wss on https).
 * Rejects with a SluiceError, e.g. code 1001 reason UNKNOWN_APP_KEY, or CONNECT_FAILED.
 */
export declare function connect(url: string | URL | null | undefined, options: ConnectOptions): Promise<Session>;
export declare function connect(options: ConnectOptions): Promise<Session>;

/** The SDK's version. */
export declare const version: string;

/**
 * Every rejection of the SDK. Server errors carry the protocol's code and reason (1003
 * STREAM_NAME_IN_USE, -32602 ...). Client-side failures have code -1 and reason
 * CONNECTION_CLOSED, TIMEOUT, CONNECT_FAILED, NEGOTIATION_FAILED; for precall PRECALL_FAILED
 * (with `info`) and ABORTED; for calls NO_MEDIA and WRONG_DIRECTION.
 */
export declare class SluiceError extends Error {
  constructor(code: number, message: string, reason?: string, data?: unknown);
  readonly name: 'SluiceError';
  code: number;
  reason: string | undefined;
  /** The JSON-RPC error's data (it holds `reason`), or a failed pre-call's details. */
  data: any;
  /** PRECALL_FAILED: why the test could not run. */
  info?: string;
  /** A SluiceError from a JSON-RPC error object. */
  static fromRPC(error: {code?: number; message?: string; data?: unknown}): SluiceError;
}

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
  ping(): Promise<Empty>;
  /** Ends the session; the server then closes the socket. */
  disconnect(): Promise<void>;
  /** Any other JSON-RPC request, raw. */
  request<T = unknown>(method: string, params?: object): Promise<T>;

  /** Any other notification the server sends comes as an event of its method's name. */
  on<K extends keyof SessionEventMap>(type: K, listener: (detail: SessionEventMap[K], event: CustomEvent<SessionEventMap[K]>) => void): Off;
  on(type: string, listener: (detail: any, event: CustomEvent) => void): Off;
}

/**
 * One publish or play handle. A stream that ends (STOPPED, UNPUBLISHED without wait, FAILED)
 * closes its RTCPeerConnection. Its events are the session's, for this handle only.
 */
export declare class Stream extends SluiceEvents<StreamEventMap> {
  private constructor();
  readonly session: Session;
  handle: string;
  name: string;
  role: Role;
  status: PublishStatus | PlayStatus | null;
  info: string | undefined;
  /** A play made with wait: true. */
  wait: boolean;
  peerConnection: RTCPeerConnection;
  /** The published MediaStream, or the play's, which fills as tracks arrive. */
  mediaStream: MediaStream;
  /** The channels asked for in dataChannels, by label. */
  dataChannels: Map<string, RTCDataChannel>;
  /** The offer as sent. */
  offerSdp: string;
  /** The answer as received. */
  answerSdp: string;

  update(constraints: Constraints): Promise<Empty>;
  mute(kind: Kind): Promise<Empty>;
  unmute(kind: Kind): Promise<Empty>;
  stop(): Promise<Empty>;
  getStats(): Promise<ServerStats>;
  getPeerStats(): Promise<PeerStats>;
}

/**
 * One 1:1 call, either side. On CONNECTING (or accept's result) the SDK publishes localStream
 * to publishName and plays playName with wait: true; on ENDED it closes both. It never stops
 * localStream's tracks: the page owns them.
 */
export declare class Call extends SluiceEvents<CallEventMap> {
  private constructor();
  readonly session: Session;
  id: string;
  /** The caller's user. */
  from: string;
  /** The callee's user. */
  to: string;
  direction: 'outgoing' | 'incoming';
  /** null until RINGING. */
  status: CallStatus | null;
  readonly ended: boolean;
  /** With ENDED. */
  endResult: EndResult | null;
  /** The user who acted on the latest status. */
  by: string | null;
  /** The server's text. */
  reason: string | null;
  video: boolean;
  audio: boolean;
  custom: Custom;
  localStream: MediaStream | null;
  /** The play's MediaStream, once the play is made. */
  remoteStream: MediaStream | null;
  /** The call's publish of this side's stream. */
  publisher: Stream | null;
  /** The call's play of the other side's stream. */
  player: Stream | null;
  /** ~call-<callId>-caller or -callee. */
  publishName: string | null;
  playName: string | null;

  /** Incoming only; resolves once the publish and the play are made. */
  accept(options?: {localStream?: MediaStream}): Promise<AcceptResult>;
  decline(): Promise<Empty>;
  /** Resolves at once for a call that ended already. */
  hangup(): Promise<Empty>;
  hold(): Promise<Empty>;
  unhold(): Promise<Empty>;
  /** The call publish's mute: the other side gets 'muted' by 'publisher'. */
  muteVideo(): Promise<Empty>;
  unmuteVideo(): Promise<Empty>;
  muteAudio(): Promise<Empty>;
  unmuteAudio(): Promise<Empty>;
}

/** The default export, and globalThis.Sluice once the SDK has loaded. */
export interface SluiceSDK {
  connect: typeof connect;
  SluiceError: typeof SluiceError;
  Session: typeof Session;
  Stream: typeof Stream;
  Call: typeof Call;
  version: string;
}

declare const Sluice: SluiceSDK;
export default Sluice;

declare global {
  /**
   * The SDK, set when sluice.mjs has run: by an import of it, or by the classic loader
   * sluice.js some time after its script tag (undefined before).
   */
  var Sluice: SluiceSDK | undefined;
  /** Set at once by the classic loader sluice.js: resolves with the SDK once it has loaded. */
  var SluiceReady: Promise<SluiceSDK> | undefined;
}
