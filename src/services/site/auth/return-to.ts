// Where to send the browser after login. Only a path on this site is accepted:
// anything that a browser could read as another host ("//evil", "/\evil", which
// browsers treat as "//evil") or another scheme ("javascript:...") is an open
// redirect, and becomes the plugin store instead.

export const DEFAULT_RETURN_TO = '/apps/';
/** Keeps the login cookie, which carries it, far below browsers' 4 KiB. */
export const MAX_RETURN_TO_LENGTH = 1024;

const BASE = 'http://return-to.invalid';
// C0 controls, DEL and C1 controls: URL parsers strip or mangle some of these
// (tab, newline), which is how "/\t/evil" becomes "//evil".
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function safeReturnTo(value: string | null | undefined): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_RETURN_TO_LENGTH) return DEFAULT_RETURN_TO;
  if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\') || CONTROL.test(value)) return DEFAULT_RETURN_TO;
  let parsed: URL;
  try {
    parsed = new URL(value, BASE);
  } catch {
    return DEFAULT_RETURN_TO;
  }
  if (parsed.origin !== BASE) return DEFAULT_RETURN_TO;
  // The normalized form is ASCII (safe in a Location header); normalizing can itself
  // produce "//" ("/.//evil" has path "//evil"), so the check is repeated on it.
  const normalized = parsed.pathname + parsed.search + parsed.hash;
  if (normalized.startsWith('//') || normalized.length > MAX_RETURN_TO_LENGTH) return DEFAULT_RETURN_TO;
  return normalized;
}
