// What a package may hold. A launcher unpacks a plugin into the player's game
// folder, so a name must stay inside the folder it is unpacked into on every
// system (Windows included: no backslash, no drive letter, no two names that a
// case-insensitive file system would merge), and the unpacked size must stay
// reasonable whatever the archive claims.

import { crc32 } from './crc32.js';
import {
  extraFields,
  FLAG_DATA_DESCRIPTOR,
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

// ignoreBOM keeps a leading byte order mark in the name (it is refused), where the
// decoder would drop it and read "\ufeffplugin.json" as "plugin.json".
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The entry's name as text, or a reason: ASCII, or UTF-8 with the UTF-8 flag (bit
 * 11). Python's zipfile and unzip read a name without the flag as CP437 (Info-ZIP's
 * zip writes UTF-8 names so), and extract "À.txt" as "├Ç.txt": the name listed here
 * would not be the one installed, and no other rule would have seen it.
 */
export function entryName(entry: CentralEntry): { name: string } | { reason: string } {
  if (entry.nameBytes.length === 0) return { reason: 'an entry has an empty name' };
  if (entry.nameBytes.length > MAX_NAME_BYTES) return { reason: `an entry's name is longer than ${MAX_NAME_BYTES} bytes` };
  const name = decodeUtf8(entry.nameBytes);
  const flagged = (entry.flags & FLAG_UTF8) !== 0;
  if (name === null) return { reason: flagged ? 'an entry name is not valid UTF-8' : 'an entry name is neither ASCII nor UTF-8 (save the ZIP with UTF-8 names)' };
  if (!flagged && !isAscii(entry.nameBytes)) {
    return { reason: `"${printable(name)}" is not ASCII and not marked as UTF-8, so Python and unzip would install it under another name (read as CP437); save the ZIP with UTF-8 names` };
  }
  return { name };
}

const isAscii = (bytes: Buffer) => bytes.every((byte) => byte < 0x80);

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
  const bidi = BIDI_CONTROL.exec(name)?.[0];
  if (bidi !== undefined) return `"${printable(name)}" holds a bidirectional control (${codePoint(bidi)}), which shows the name in another order`;
  const invisible = INVISIBLE.exec(name)?.[0];
  if (invisible !== undefined) return `"${printable(name)}" holds an invisible or space-like character (${codePoint(invisible)}), which makes it look like another name`;
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

// Bidirectional controls show a name in another order than it is: "evil\u202etxt.exe"
// reads "evilexe.txt".
const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
// What shows as nothing or as a plain space, so that two names look alike
// ("main\u200b.exe" beside "main.exe"): format characters (zero-width ones, the byte
// order mark, the soft hyphen, tags), the code points Unicode says to draw as
// nothing (variation selectors, the combining grapheme joiner, Hangul fillers),
// separators other than the space, private-use and unassigned code points.
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}\p{Co}\p{Cn}]|(?=\p{Zs})[^ ]/u;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

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
  // A streaming reader (libarchive on a pipe) has nothing but the data to find where
  // a stored entry ends: it looks for a data descriptor, which the data may hold.
  if (entry.method === METHOD_STORED && (entry.flags & FLAG_DATA_DESCRIPTOR) !== 0) {
    return `"${printable(name)}" is stored (not compressed) with a data descriptor, so a streaming unzip cannot tell where it ends; save it compressed, or with its sizes in its header`;
  }
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

const HIDDEN = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f]|${BIDI_CONTROL.source}|${INVISIBLE.source}`, 'gu');

/** A name as it can be quoted in a message: at most 80 characters, controls, bidirectional controls and invisible characters shown as \u escapes. */
function printable(name: string): string {
  const shown = name.replace(HIDDEN, (c) => {
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return shown.length > 80 ? `${shown.slice(0, 77)}...` : shown;
}
