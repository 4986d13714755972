/*
 * The Sluice browser SDK's declarations (../sluice.d.ts): the event base of Session, Stream
 * and Call. Not re-exported: the SDK exports no such class.
 */

import {Off} from './common.js';

/**
 * Session, Stream and Call are EventTargets: `x.on(type, fn)` gets each event's detail, or
 * `addEventListener(type, (e) => e.detail)`.
 */
export declare class SluiceEvents<Events> extends EventTarget {
  on<K extends keyof Events & string>(type: K, listener: (detail: Events[K], event: CustomEvent<Events[K]>) => void): Off;
}
