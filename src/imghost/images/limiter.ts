/**
 * Runs at most `concurrency` tasks at once; up to `maxWaiting` more wait their turn
 * in order, and anything beyond that is refused at once with the caller's error
 * (each route answers "busy" in its own format). Image decoding costs memory in
 * proportion to pixels, so a burst must queue, not pile up.
 */
export function createLimiter(concurrency: number, maxWaiting: number) {
  let running = 0;
  const waiting: Array<() => void> = [];

  const release = () => {
    running--;
    const nextTask = waiting.shift();
    if (nextTask) {
      running++;
      nextTask();
    }
  };

  return {
    async run<T>(task: () => Promise<T>, busy: () => Error): Promise<T> {
      if (running >= concurrency) {
        if (waiting.length >= maxWaiting) throw busy();
        // The slot is handed over by release(), which counts it as running.
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        running++;
      }
      try {
        return await task();
      } finally {
        release();
      }
    },
    get running(): number {
      return running;
    },
    get waiting(): number {
      return waiting.length;
    },
  };
}

export type Limiter = ReturnType<typeof createLimiter>;
