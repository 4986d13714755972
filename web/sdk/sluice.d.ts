/*
 * TypeScript declarations of the Sluice browser SDK (sluice.mjs), the client side of
 * docs/protocol.md. This file and the ones it re-exports from types/ are the SDK's API
 * reference; scripts/check-sdk-types.sh checks them against the modules' real exports and
 * compiles types-check/example.ts, which uses every call.
 *
 * A page imports the SDK by URL, so a TypeScript project maps that URL to this file (with
 * types/ beside it), e.g. in tsconfig.json: "paths": {"/sdk/sluice.mjs": ["./path/to/sluice.d.ts"]}.
 *
 * Conventions: kbit/s for bitrates, ms for times, fractions (0 to 1) for losses. Every promise
 * rejects with a SluiceError.
 */

// Not types/events.d.ts: the base class of Session, Stream and Call is no export of the SDK.
export * from './types/common.js';
export * from './types/errors.js';
export * from './types/session.js';
export * from './types/stream.js';
export * from './types/call.js';
export * from './types/precall.js';

import {Call} from './types/call.js';
import {SluiceError} from './types/errors.js';
import {Session, connect} from './types/session.js';
import {Stream} from './types/stream.js';

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
