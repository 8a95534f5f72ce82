// Concurrent requests for the same missing thing share one computation: a burst of
// identical first requests reads a file once and renders a PNG once.

export function createSingleFlight<T>() {
  const inFlight = new Map<string, Promise<T>>();
  return (key: string, compute: () => Promise<T>): Promise<T> => {
    const running = inFlight.get(key);
    if (running) return running;
    const started = compute().finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started;
  };
}
