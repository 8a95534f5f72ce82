import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

// Compression of answers: which coding a client accepts (RFC 9110 12.5.3), and the
// two codings we make. Static files are compressed once at start with the best
// settings; answers made per request (large JSON lists) with fast ones.

export type Coding = 'br' | 'gzip';

/**
 * The coding to send for an `Accept-Encoding` header: `br` when it is accepted,
 * else `gzip`, else none. A coding listed with `q=0` is refused; `*` stands for any
 * coding not listed by name.
 */
export function preferredCoding(header: string | undefined): Coding | undefined {
  if (!header) return undefined;
  const known = decided.get(header);
  if (known !== undefined) return known === NONE ? undefined : known;
  const coding = parseCoding(header);
  // Clients send a handful of distinct headers: the first ones seen are kept, no more.
  if (decided.size < DECIDED_MAX && header.length <= 256) decided.set(header, coding ?? NONE);
  return coding;
}

const NONE = 'identity';
const DECIDED_MAX = 64;
const decided = new Map<string, Coding | typeof NONE>();

function parseCoding(header: string): Coding | undefined {
  const weights = acceptedWeights(header);
  if (weights.br !== undefined && weights.br > 0) return 'br';
  if (weights.gzip !== undefined && weights.gzip > 0) return 'gzip';
  return undefined;
}

/**
 * The first of `codings` (in the order given: the caller's preference) that an
 * `Accept-Encoding` header accepts, else none. For an answer kept in one coding
 * only (src/services/site/outage-copies.ts), not parsed once per header as preferredCoding is:
 * it is asked only while the database is away.
 */
export function acceptedCoding(header: string | undefined, codings: readonly Coding[]): Coding | undefined {
  if (!header) return undefined;
  const weights = acceptedWeights(header);
  return codings.find((coding) => (weights[coding] ?? 0) > 0);
}

/** The weight (q) of each coding we make, as the header gives it or `*` stands for it; absent: not accepted. */
function acceptedWeights(header: string): Partial<Record<Coding, number>> {
  let br: number | undefined;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const item of header.split(',')) {
    const [name = '', ...params] = item.split(';');
    const coding = name.trim().toLowerCase();
    const qParam = params.map((param) => param.trim().toLowerCase()).find((param) => param.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    const weight = Number.isFinite(q) ? q : 0;
    if (coding === 'br') br = weight;
    else if (coding === 'gzip' || coding === 'x-gzip') gzip = weight;
    else if (coding === '*') any = weight;
  }
  return { br: br ?? any, gzip: gzip ?? any };
}

/** At start-up, once per file: the smallest output, whatever it costs. */
export function compressBest(body: Buffer): Record<Coding, Buffer> {
  return {
    br: brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
    gzip: gzipSync(body, { level: 9 }),
  };
}

/**
 * Per request: Brotli quality 4 is about as fast as gzip's default level and
 * smaller; a 100 KB list compresses in about a millisecond.
 */
export function compressFast(body: Buffer, coding: Coding): Buffer {
  return coding === 'br'
    ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : gzipSync(body, { level: 6 });
}
