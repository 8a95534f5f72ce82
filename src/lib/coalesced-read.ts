// One read shared by callers that arrive together, without ever answering a caller
// with a value read before it arrived. A caller starts a read at once while fewer
// than `maxInFlight` are on their way; past that, callers gather into one read that
// starts when one of those settles, and serves all of them. With maxInFlight 1 (the
// rule until 26 Nov) a caller arriving just after a read began waited for the rest
// of it and then a whole one, so requests came in waves under load; with 2, a
// second read overlaps the first and the wait is about one round trip. Under load,
// at most maxInFlight reads per round trip instead of one per caller; each answer
// is as fresh as a read of its own.
//
// Why not gather the callers of one turn of the event loop into a read started at
// its end (setImmediate)? postgres.js 3.4.9 flushes small writes in a setImmediate
// too; queued from the check phase, the flush waits for the next turn, a socket
// closed in between leaves the connection unable to flush ever again (closed()
// clears the immediate but not its handle), and the database-outage tests saw the
// pool never recover after PostgreSQL came back.

export interface CoalescedReadOptions {
  /** Reads on their way at once (default 2); more callers gather into the next one. */
  maxInFlight?: number;
}

export const DEFAULT_MAX_IN_FLIGHT = 2;

export function coalescedRead<T>(read: () => Promise<T>, options: CoalescedReadOptions = {}): () => Promise<T> {
  const maxInFlight = Math.max(1, options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
  let inFlight = 0;
  // The read waiting callers share: not started yet, so it starts after every one of them arrived.
  let gathering: { promise: Promise<T>; start: () => void } | undefined;

  const settled = (): void => {
    inFlight--;
    const waiting = gathering;
    if (waiting === undefined) return;
    gathering = undefined;
    waiting.start();
  };
  const deferred = (): { promise: Promise<T>; start: () => void } => {
    let start!: () => void;
    const promise = new Promise<T>((resolve, reject) => {
      start = () => {
        inFlight++;
        let started: Promise<T>;
        try {
          started = read();
        } catch (error) {
          started = Promise.reject(error);
        }
        started.then(resolve, reject).finally(settled);
      };
    });
    return { promise, start };
  };

  return () => {
    if (gathering !== undefined) return gathering.promise;
    const next = deferred();
    if (inFlight < maxInFlight) next.start();
    else gathering = next;
    return next.promise;
  };
}
