// What a promise settles to within a time, or a sign that it is late: for a caller
// that has something else to offer once waiting stops being worth it (a kept answer
// served stale while the database does not answer), and otherwise waits on.

export const LATE = Symbol('late');

/**
 * Settles as `pending` does if it settles within `ms`, else resolves to LATE;
 * `pending` goes on, and its rejection after that is handled here (never
 * unhandled). One timer per call, cleared when `pending` settles first.
 */
export function settledWithin<T>(pending: Promise<T>, ms: number): Promise<T | typeof LATE> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms, LATE);
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
