// At most `concurrency` tasks run at once; up to `maxWaiting` more wait their turn in
// order; beyond that a task is refused at once (QueueFullError) instead of piling up.

export class QueueFullError extends Error {
  constructor() {
    super('too many tasks waiting');
    this.name = 'QueueFullError';
  }
}

export interface TaskQueueOptions {
  concurrency: number;
  maxWaiting: number;
}

export function createTaskQueue(options: TaskQueueOptions) {
  let running = 0;
  const waiting: Array<() => void> = [];

  const release = () => {
    running--;
    const next = waiting.shift();
    if (next) {
      running++;
      next();
    }
  };

  return {
    /** `refuse` makes the error for a full queue (each caller answers "busy" its own way). */
    run<T>(task: () => Promise<T>, refuse: () => Error = () => new QueueFullError()): Promise<T> {
      if (running < options.concurrency) {
        running++;
        return start(task).finally(release);
      }
      if (waiting.length >= options.maxWaiting) return Promise.reject(refuse());
      return new Promise<void>((turn) => waiting.push(turn)).then(() => start(task).finally(release));
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiting.length;
    },
  };
}

/** A task that throws instead of rejecting must still give its slot back. */
function start<T>(task: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve) => resolve(task()));
}

export type TaskQueue = ReturnType<typeof createTaskQueue>;
