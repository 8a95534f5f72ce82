// One read shared by every caller that arrives while it is on its way, without ever
// answering a caller with a value read before it arrived: a caller that finds a
// read running waits for the next one, which starts when the running one settles
// and then serves everyone who queued behind it. Under load, one read per round
// trip instead of one per caller; each answer is as fresh as a read of its own.

export function coalescedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const started = read().finally(() => {
      if (running === started) running = undefined;
    });
    running = started;
    return started;
  };
  return () => {
    if (queued !== undefined) return queued;
    if (running === undefined) return start();
    const next = running.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      queued = undefined;
      return start();
    });
    queued = next;
    return next;
  };
}
