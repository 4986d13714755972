/*
 * Sluice browser SDK declarations (re-exported by ../sluice.d.ts): the pre-call network
 * test's options and figures.
 */

import {QualityLevel} from './common.js';
import {StreamEventDetail} from './stream.js';

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
