/*
 * Sluice browser SDK declarations (re-exported by ../sluice.d.ts): the shared words (kinds,
 * roles, qualities, handles) and what `on` returns.
 */

import {Stream} from './stream.js';

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

/** An unsubscribe function, as `on` returns. */
export type Off = () => void;
