// What a package may hold. A launcher unpacks a plugin into the player's game
// folder, so a name must stay inside the folder it is unpacked into on every
// system (Windows included: no backslash, no drive letter, no two names that a
// case-insensitive file system would merge), and the unpacked size must stay
// reasonable whatever the archive claims.

import { crc32 } from './crc32.js';
import {
  extraFields,
  FLAG_ENCRYPTED,
  FLAG_STRONG_ENCRYPTION,
  FLAG_UTF8,
  METHOD_AES,
  METHOD_DEFLATED,
  METHOD_STORED,
  readUnicodePath,
  UNICODE_PATH_EXTRA_ID,
  type CentralEntry,
} from './zip-records.js';

export const MAX_ENTRIES = 10_000;
export const MAX_TOTAL_UNCOMPRESSED = 512 * 1024 * 1024;
/** Deflate reaches about 1,000:1 on zeros; real files, even text, stay far below 100:1. */
export const MAX_RATIO = 100;
/** A name of more bytes than this is no plugin's file (Windows' own limit is 260 characters). */
export const MAX_NAME_BYTES = 1024;

const UNIX_FILE_TYPE = 0o170000;
const UNIX_SYMLINK = 0o120000;
/** FILE_ATTRIBUTE_REPARSE_POINT: how Windows marks a symbolic link or a junction. */
const WINDOWS_REPARSE_POINT = 0x400;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The entry's name as text, or a reason: UTF-8 (flagged or not), since CP437 names are ambiguous. */
export function entryName(entry: CentralEntry): { name: string } | { reason: string } {
  if (entry.nameBytes.length === 0) return { reason: 'an entry has an empty name' };
  if (entry.nameBytes.length > MAX_NAME_BYTES) return { reason: `an entry's name is longer than ${MAX_NAME_BYTES} bytes` };
  const name = decodeUtf8(entry.nameBytes);
  if (name !== null) return { name };
  const flagged = (entry.flags & FLAG_UTF8) !== 0;
  return { reason: flagged ? 'an entry name is not valid UTF-8' : 'an entry name is neither ASCII nor UTF-8 (save the ZIP with UTF-8 names)' };
}

/**
 * Why a header's Unicode Path fields are refused, or null. unzip and 7-Zip extract
 * an entry under that field's name rather than the header's, so it must be the very
 * name the other rules checked; the one Info-ZIP's zip writes beside a non-ASCII
 * name repeats it, and passes.
 */
export function secondName(extra: Buffer, nameBytes: Buffer, name: string): string | null {
  const fields = extraFields(extra, UNICODE_PATH_EXTRA_ID);
  if (fields === null) return `"${printable(name)}" has a damaged extra field`;
  for (const field of fields) {
    const path = readUnicodePath(field);
    const other = path ? decodeUtf8(path.nameBytes) : null;
    if (!path || other === null) return `"${printable(name)}" has a damaged Unicode path field`;
    if (other !== name) return `an entry carries two different names, "${printable(name)}" and "${printable(other)}"`;
    // Left from before a rename: unzip would ignore it, but no honest writer leaves one.
    if (path.nameCrc !== crc32(nameBytes, 0)) return `"${printable(name)}" has a damaged Unicode path field`;
  }
  return null;
}

function decodeUtf8(bytes: Buffer): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Why this name could escape the folder it is unpacked into, or null when it is safe. */
export function unsafeName(name: string): string | null {
  // C0 controls, DEL and C1 controls; NUL included.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return `"${printable(name)}" holds a control character`;
  if (name.includes('\\')) return `"${printable(name)}" holds a backslash`;
  if (name.startsWith('/')) return `"${printable(name)}" is an absolute path`;
  if (/^[A-Za-z]:/.test(name)) return `"${printable(name)}" starts with a drive letter`;
  const segments = name.split('/');
  if (segments.some((segment) => segment === '..')) return `"${printable(name)}" holds a ".." segment`;
  // "a//b" and "./a" resolve elsewhere than they read; a trailing "/" is a folder.
  const inner = name.endsWith('/') ? segments.slice(0, -1) : segments;
  if (inner.some((segment) => segment === '' || segment === '.')) return `"${printable(name)}" holds an empty or "." segment`;
  return windowsUnsafe(name, inner);
}

// Bloret's launchers run on Windows, which reads a name otherwise than it is
// written: it drops a segment's trailing dots and spaces (".. " is "..", "a.txt."
// is "a.txt", a twin the case-folding check cannot see), takes "a.txt:x" for a
// hidden stream of a.txt, refuses <>"|?* and opens a device for CON, NUL, COM1...
// whatever the extension.
const WINDOWS_FORBIDDEN = /[<>:"|?*]/;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;

function windowsUnsafe(name: string, segments: string[]): string | null {
  if (WINDOWS_FORBIDDEN.test(name)) return `"${printable(name)}" holds a character Windows does not allow in a file name (< > : " | ? *)`;
  if (segments.some((segment) => segment.endsWith('.') || segment.endsWith(' '))) {
    return `"${printable(name)}" has a part ending in a dot or a space, which Windows drops`;
  }
  const device = segments.find((segment) => WINDOWS_DEVICE.test(segment));
  if (device !== undefined) return `"${printable(name)}" uses "${printable(device)}", a device name on Windows`;
  return null;
}

/** Names equal after Unicode normalisation and case folding land on one file on Windows and macOS. */
export function foldedName(name: string): string {
  // toUpperCase then toLowerCase folds the special cases lower-casing alone misses (ß, ς).
  return name.normalize('NFC').toUpperCase().toLowerCase().replace(/\/$/, '');
}

/** Why the entry itself is refused (encryption, link, method, sizes), or null. */
export function refusedEntry(entry: CentralEntry, name: string): string | null {
  if ((entry.flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION)) !== 0 || entry.method === METHOD_AES) {
    return `"${printable(name)}" is encrypted`;
  }
  if (isLink(entry)) return `"${printable(name)}" is a symbolic link`;
  if (entry.method !== METHOD_STORED && entry.method !== METHOD_DEFLATED) {
    return `"${printable(name)}" uses compression method ${entry.method}; only stored and deflated entries are accepted`;
  }
  if (entry.method === METHOD_STORED && entry.compressedSize !== entry.size) return `"${printable(name)}" has inconsistent sizes`;
  if (entry.size > 0 && entry.size > entry.compressedSize * MAX_RATIO) {
    return `"${printable(name)}" expands more than ${MAX_RATIO} times (a ZIP bomb?)`;
  }
  return null;
}

/**
 * Info-ZIP takes the high 16 bits of the external attributes for a Unix mode from
 * whatever host made the entry (Atari, BeOS, Darwin...), not only from Unix, so
 * the host byte is not looked at; Windows marks its links as reparse points.
 */
function isLink(entry: CentralEntry): boolean {
  const unixLink = ((entry.externalAttributes >>> 16) & UNIX_FILE_TYPE) === UNIX_SYMLINK;
  return unixLink || (entry.externalAttributes & WINDOWS_REPARSE_POINT) !== 0;
}

/** A name as it can be quoted in a message: at most 80 characters, controls shown as \u escapes. */
function printable(name: string): string {
  const shown = name.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return shown.length > 80 ? `${shown.slice(0, 77)}...` : shown;
}
