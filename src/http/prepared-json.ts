import { compressFast, type Coding } from './content-encoding.js';
import type { Context } from './context.js';
import { sendJsonBytes, type ExtraHeaders } from './respond.js';

// A JSON answer serialized once and sent many times (the store's lists for
// visitors): its bytes, and each coding made the first time a client asks for it,
// so a repeated answer costs neither JSON.stringify nor zlib again.

export interface PreparedJson {
  readonly body: Buffer;
  /** What keeping it costs: the body and room for its two compressed forms (about a fifth each). */
  readonly bytes: number;
  compressed(coding: Coding): Buffer;
}

export function prepareJson(value: unknown): PreparedJson {
  const body = Buffer.from(JSON.stringify(value));
  const made: Partial<Record<Coding, Buffer>> = {};
  return {
    body,
    bytes: Math.ceil(body.length * 1.5),
    compressed: (coding) => (made[coding] ??= compressFast(body, coding)),
  };
}

export function sendPreparedJson(ctx: Context<any>, status: number, prepared: PreparedJson, headers?: ExtraHeaders): void {
  sendJsonBytes(ctx, status, prepared.body, (_body, coding) => prepared.compressed(coding), headers);
}
