// Time as code reads it where a test must be able to move it: a function that
// answers milliseconds, passed in as an option (`now`) rather than read from a
// global, so a module holds no clock of its own. Production passes nothing and
// gets a real clock below; tests pass one they move by hand
// (test/helpers/time.ts), so that a window, an expiry or a cache's lifetime ends
// when the test says so instead of after a sleep.

export type Clock = () => number;

/** Wall time (Date.now()): for what is shown or stored, and what is compared with it. */
export const wallClock: Clock = () => Date.now();

/** Time that only moves forward (performance.now()): for durations within one process. */
export const monotonicClock: Clock = () => performance.now();
