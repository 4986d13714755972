/*
 * Sluice browser SDK declarations (re-exported by ../sluice.d.ts): one-to-one calls (Call)
 * and the call log.
 */

import {Custom, Empty, Kind} from './common.js';
import {SluiceError} from './errors.js';
import {SluiceEvents} from './events.js';
import {Session} from './session.js';
import {Stream} from './stream.js';

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
