import { domainToASCII } from 'node:url';

// Whether an ACE label (`xn--...`) is one an IDNA encoder would write. Node 20 and
// 22's URL parser refuses a label that is not (`xn--a` decodes to U+0080, a control
// character); Node 24's passes it through as it is. So such a label is decoded here
// (RFC 3492) and encoded again under UTS #46 (domainToASCII): it must come back the
// same. Only names a client sends are checked, a few labels each.

const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 128;

function adapt(delta: number, points: number, first: boolean): number {
  let d = first ? Math.floor(delta / DAMP) : delta >> 1;
  d += Math.floor(d / points);
  let k = 0;
  for (; d > ((BASE - T_MIN) * T_MAX) >> 1; k += BASE) d = Math.floor(d / (BASE - T_MIN));
  return k + Math.floor(((BASE - T_MIN + 1) * d) / (d + SKEW));
}

function digitOf(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 22; // 0-9 are 26-35
  if (c >= 0x41 && c <= 0x5a) return c - 0x41;
  if (c >= 0x61 && c <= 0x7a) return c - 0x61;
  return BASE;
}

/** The code points of punycode `input` (the part after `xn--`), or null when it is not valid punycode. */
export function decodePunycode(input: string): string | null {
  const basicEnd = input.lastIndexOf('-');
  const output = basicEnd > 0 ? [...input.slice(0, basicEnd)].map((c) => c.codePointAt(0)!) : [];
  if (output.some((c) => c >= 0x80)) return null;
  let n = INITIAL_N;
  let bias = INITIAL_BIAS;
  let i = 0;
  for (let at = basicEnd > 0 ? basicEnd + 1 : 0; at < input.length; ) {
    const before = i;
    for (let weight = 1, k = BASE; ; k += BASE) {
      if (at >= input.length) return null;
      const digit = digitOf(input.charCodeAt(at++));
      if (digit >= BASE) return null;
      i += digit * weight;
      const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias;
      if (digit < t) break;
      weight *= BASE - t;
      if (i > 0x10ffff * (output.length + 1)) return null;
    }
    bias = adapt(i - before, output.length + 1, before === 0);
    n += Math.floor(i / (output.length + 1));
    i %= output.length + 1;
    if (n > 0x10ffff) return null;
    output.splice(i++, 0, n);
  }
  return String.fromCodePoint(...output);
}

/** False for an `xn--` label that does not decode, or decodes to what IDNA would not encode back to it. */
export function isValidAceLabel(label: string): boolean {
  if (!label.toLowerCase().startsWith('xn--')) return true;
  const decoded = decodePunycode(label.slice(4));
  return decoded !== null && decoded !== '' && domainToASCII(decoded) === label.toLowerCase();
}
