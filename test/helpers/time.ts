// Time in tests without sleeping. Code that reads a clock takes it as an option
// (`now`, src/lib/clock.ts): a test passes a manual clock and moves it past a window,
// an expiry or a cache's lifetime. What happens on its own (a timer, a file watch, a
// process) is waited for as a condition, with a bound.

export interface ManualClock {
  /** The time, ms: `start` plus every advance. */
  now: () => number;
  /** Moves the time forward by `ms`. */
  advance(ms: number): void;
}

/** A clock that stands still until the test moves it; it starts at the wall time, in whole ms. */
export function manualClock(start = Date.now()): ManualClock {
  let time = start;
  return {
    now: () => time,
    advance(ms) {
      if (!(ms >= 0)) throw new Error(`a clock only moves forward (advance ${ms})`);
      time += ms;
    },
  };
}

/** Resolves once `check` holds; throws naming `what` when it has not within `ms`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
