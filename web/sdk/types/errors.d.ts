/*
 * Sluice browser SDK declarations (re-exported by ../sluice.d.ts): the SDK's one error type.
 */

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
