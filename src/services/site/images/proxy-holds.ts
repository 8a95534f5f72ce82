// What the image proxy's answers hold while they wait for their clients: a place
// among the few one client address may have at once, and the bytes read from the
// image host but not yet handed to the client's connection, out of one budget for
// the whole process.
//
// The proxy reads each image whole before sending it (image-proxy.ts), so the
// image host's connection is free again whatever the client does; what a client
// that does not read still holds is memory, which this bounds. A send that has
// made no progress for STALLED_AFTER_MS gives its bytes up (its connection is cut)
// when a new answer needs them: clients that never read cannot keep the budget
// from those that do.

/** Longest a send may sit without progress before a new answer may take its bytes. */
export const STALLED_AFTER_MS = 1_000;

export interface ProxyHoldLimits {
  /** Answers one client address may have in flight at once (image-proxy.ts says why this many). */
  perAddress: number;
  /** Bytes read from the image host and not yet handed to clients, over all answers. */
  bufferBytes: number;
}

/** The bytes of one answer, from its reservation to its last chunk handed over. */
export interface HeldBytes {
  /** `count` bytes were handed to the client's connection: they are no longer held. */
  sent(count: number): void;
  /** The answer is being sent: `cut` ends it, should a new answer need its bytes while it stalls. */
  sending(cut: () => void): void;
  /** Done (sent, cut or abandoned): whatever is left is given back. Idempotent. */
  release(): void;
}

export interface ProxyHolds {
  /** A place for `address`, or false when it already has `perAddress` answers in flight. */
  enter(address: string): boolean;
  leave(address: string): void;
  /** `bytes` of the budget, taken from stalled sends if need be; undefined when they cannot be found. */
  reserve(bytes: number): HeldBytes | undefined;
  /** Bytes held now, for tests and metrics. */
  heldBytes(): number;
}

interface Reservation extends HeldBytes {
  left: number;
  lastProgress: number;
  cut?: () => void;
}

export function createProxyHolds(limits: ProxyHoldLimits, now: () => number = Date.now): ProxyHolds {
  const perAddress = new Map<string, number>();
  /** Reservations whose answer is being sent, oldest progress first once sorted. */
  const sending = new Set<Reservation>();
  let held = 0;

  const enter = (address: string): boolean => {
    const count = perAddress.get(address) ?? 0;
    if (count >= limits.perAddress) return false;
    perAddress.set(address, count + 1);
    return true;
  };

  const leave = (address: string): void => {
    const count = perAddress.get(address) ?? 0;
    if (count <= 1) perAddress.delete(address);
    else perAddress.set(address, count - 1);
  };

  const reclaimStalled = (needed: number): void => {
    const stalledBefore = now() - STALLED_AFTER_MS;
    const stalled = [...sending].filter((r) => r.lastProgress <= stalledBefore).sort((a, b) => a.lastProgress - b.lastProgress);
    for (const reservation of stalled) {
      if (limits.bufferBytes - held >= needed) return;
      const cut = reservation.cut;
      reservation.release();
      cut?.();
    }
  };

  const reserve = (bytes: number): HeldBytes | undefined => {
    if (limits.bufferBytes - held < bytes) reclaimStalled(bytes);
    if (limits.bufferBytes - held < bytes) return undefined;
    held += bytes;
    const reservation: Reservation = {
      left: bytes,
      lastProgress: now(),
      sent: (count) => {
        const given = Math.min(count, reservation.left);
        reservation.left -= given;
        held -= given;
        reservation.lastProgress = now();
      },
      sending: (cut) => {
        if (reservation.left === 0) return;
        reservation.cut = cut;
        reservation.lastProgress = now();
        sending.add(reservation);
      },
      release: () => {
        held -= reservation.left;
        reservation.left = 0;
        reservation.cut = undefined;
        sending.delete(reservation);
      },
    };
    return reservation;
  };

  return { enter, leave, reserve, heldBytes: () => held };
}
