// Whether a reader's listing is the inspector's: the same entries, as a multiset of
// names (and sizes, where the reader gives them). Order is not compared: libarchive
// lists in local header order, the others in central directory order, and the
// files installed are the same either way.
import type { Listed } from './listings.js';

export interface InspectorListing {
  /** The first entries (an answer lists at most LISTED_ENTRIES). */
  entries: Array<{ name: string; size: number }>;
  entryCount: number;
}

/** Shown at most this many names per side of a difference. */
const SHOWN = 5;

/** What differs, in a sentence, or null when the reader lists what the inspector does. */
export function listingDifference(inspector: InspectorListing, listed: Listed[]): string | null {
  const sized = listed.every((entry) => entry.size !== null);
  const key = (name: string, size: number | null) => (sized ? `${quoted(name)} (${size} bytes)` : quoted(name));
  const theirs = counts(listed.map((entry) => key(entry.name, entry.size)));
  const ours = counts(inspector.entries.map((entry) => key(entry.name, entry.size)));
  const whole = inspector.entries.length === inspector.entryCount;
  const onlyTheirs = whole ? minus(theirs, ours) : [];
  const onlyOurs = minus(ours, theirs);
  const countDiffers = listed.length !== inspector.entryCount;
  if (!countDiffers && onlyTheirs.length === 0 && onlyOurs.length === 0) return null;
  const parts = [`${listed.length} entries listed, ${inspector.entryCount} by the inspector`];
  if (onlyTheirs.length > 0) parts.push(`only here: ${shown(onlyTheirs)}`);
  if (onlyOurs.length > 0) parts.push(`only in the inspector's list: ${shown(onlyOurs)}`);
  return parts.join('; ');
}

/** A name in quotes, what does not show (controls, format characters, separators but the space) as \u escapes. */
const quoted = (name: string) =>
  `"${name.replace(/[\p{Cc}\p{Cf}\p{Z}"\\]/gu, (c) => (c === ' ' ? c : `\\u{${c.codePointAt(0)!.toString(16)}}`))}"`;

function counts(keys: string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const key of keys) map.set(key, (map.get(key) ?? 0) + 1);
  return map;
}

/** The keys `a` holds more often than `b`, once per extra occurrence. */
function minus(a: Map<string, number>, b: Map<string, number>): string[] {
  return [...a].flatMap(([key, n]) => Array<string>(Math.max(0, n - (b.get(key) ?? 0))).fill(key));
}

const shown = (keys: string[]) => keys.slice(0, SHOWN).join(', ') + (keys.length > SHOWN ? ` and ${keys.length - SHOWN} more` : '');
