/*
 * Sluice browser SDK declarations (re-exported by ../sluice.d.ts): a publish or play handle
 * (Stream): its options, constraints, events and stats.
 */

import {Custom, Empty, Kind, Quality, QualityLevel, Role} from './common.js';
import {SluiceEvents} from './events.js';
import {Session} from './session.js';

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
  /**
   * The app encrypts the frames end to end (an encoded transform it sets on the sender): the
   * server reads nothing past the clear bytes, and refuses to record the stream.
   */
  e2ee?: boolean;
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
  | 'resize' | 'layerChanged' | 'notEnoughBandwidth' | 'limitExceeded' | 'connectionQuality' | 'layersWanted'
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

export interface StreamEventMap {
  streamStatus: StreamStatusDetail;
  streamEvent: StreamEventDetail;
}

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
  /**
   * A simulcast publish: the rids that have a taker, as the server's last layersWanted said
   * (null before it said). The SDK has set active: false on the other encodings (dynacast).
   */
  layersWanted: string[] | null;

  update(constraints: Constraints): Promise<Empty>;
  mute(kind: Kind): Promise<Empty>;
  unmute(kind: Kind): Promise<Empty>;
  stop(): Promise<Empty>;
  getStats(): Promise<ServerStats>;
  getPeerStats(): Promise<PeerStats>;
}
