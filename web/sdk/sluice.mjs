/*
 * Sluice browser SDK: the client side of docs/protocol.md (JSON-RPC 2.0 over a WebSocket,
 * one RTCPeerConnection per publish or play). No dependencies and no build step: the browser
 * loads these ES modules as they are.
 *
 *   import Sluice, {connect} from '/sdk/sluice.mjs';   default export and named exports
 *   <script src="/sdk/sluice.js"></script>              classic script: a loader that imports
 *                                                      this module; see sluice.js
 *
 * The API, with every option, event and error reason, is declared in sluice.d.ts; docs/sdk-js.md
 * says which module holds what. This module is the only entry point: the others are internal
 * and may be split or merged without notice.
 *
 * Importing it also sets globalThis.Sluice to the default export, so a page that mixes an ES
 * module and classic scripts (or the console) sees one SDK object whichever way it came.
 */
import {Call} from './call.mjs';
import {SluiceError} from './errors.mjs';
import {Session, VERSION, connect} from './session.mjs';
import {Stream} from './stream.mjs';

const Sluice = {connect, SluiceError, Session, Stream, Call, version: VERSION};
globalThis.Sluice = Sluice;

export default Sluice;
export {connect, SluiceError, Session, Stream, Call, VERSION as version};
