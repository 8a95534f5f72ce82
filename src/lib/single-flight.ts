// Concurrent requests for the same missing thing share one computation: a burst of
// identical first requests reads a file once, renders a PNG once, converts a WebP
// once. The entry is dropped when the computation settles, so a failure is retried
// by the next request instead of being remembered.

export function createSingleFlight<T>() {
  const inFlight = new Map<string, Promise<T>>();
  const run = (key: string, compute: () => Promise<T>): Promise<T> => {
    const running = inFlight.get(key);
    if (running) return running;
    const started = compute().finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started;
  };
  return Object.assign(run, {
    /** Waits for everything in flight (shutdown must not cut a write in half). */
    settle: async (): Promise<void> => {
      await Promise.allSettled([...inFlight.values()]);
    },
    get size(): number {
      return inFlight.size;
    },
  });
}
