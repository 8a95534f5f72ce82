// Every bound of the token feature, in one place.

export const TOKEN_NAME_MAX = 100;
export const DEFAULT_EXPIRES_IN_DAYS = 90;
export const MAX_EXPIRES_IN_DAYS = 365;
/** Live (unexpired) tokens one user may hold; creating one more is 409 CONFLICT. */
export const MAX_LIVE_TOKENS = 20;
/** A list holds live and expired tokens; expired ones are kept until revoked. */
export const MAX_LISTED_TOKENS = 200;
/** Requests made with tokens, per user (all of its tokens together), per window. */
export const TOKEN_REQUESTS_PER_WINDOW = 120;
export const TOKEN_WINDOW_MS = 60_000;
