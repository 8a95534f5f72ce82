import { badRequest } from '../errors.js';
import { parseHeaderValue } from './header-params.js';
import type { PartHeaders } from './part-headers.js';

export interface PartDescription {
  name: string;
  /** undefined for a field; a string (maybe '') makes the part a file. */
  filename: string | undefined;
  /** The part's own Content-Type, if it sent one. */
  contentType: string | undefined;
}

/**
 * Reads what a part is from its headers (RFC 7578 §4.2): `form-data`, a `name`, and
 * for files a `filename` or `filename*`. RFC 7578 says senders must not use
 * `filename*`, but some do; when both are present `filename*` wins, as RFC 6266 §4.3
 * recommends, because it is the one that can carry non-ASCII names faithfully.
 */
export function describePart(headers: PartHeaders): PartDescription {
  const raw = headers.get('content-disposition');
  if (raw === undefined) throw badRequest('Part has no Content-Disposition header');
  const disposition = parseHeaderValue(raw);
  if (disposition === null) throw badRequest('Malformed Content-Disposition header');
  if (disposition.value.toLowerCase() !== 'form-data') {
    throw badRequest('Part Content-Disposition must be form-data');
  }
  const name = disposition.params.get('name');
  if (name === undefined) throw badRequest('Part has no name');

  const extended = disposition.params.get('filename*');
  const plain = disposition.params.get('filename');
  const filename = extended !== undefined ? decodeExtValue(extended) : plain;
  const contentType = headers.get('content-type');
  return {
    name,
    filename: filename === undefined ? undefined : lastSegment(filename),
    contentType: contentType === undefined || contentType === '' ? undefined : contentType,
  };
}

// RFC 5987 §3.2.1: ext-value = charset "'" [ language ] "'" value-chars.
const EXT_VALUE = /^([^']*)'[^']*'(.*)$/s;
const STRAY_PERCENT = /%(?![0-9A-Fa-f]{2})/;

/** Decodes `UTF-8''na%C3%AFve.txt`; the two charsets RFC 5987 requires, nothing else. */
function decodeExtValue(value: string): string {
  const match = EXT_VALUE.exec(value);
  if (match === null) throw badRequest('Malformed filename* parameter');
  const charset = match[1]!.toLowerCase();
  const encoded = match[2]!;
  if (STRAY_PERCENT.test(encoded)) throw badRequest('Malformed filename* parameter');
  if (charset === 'utf-8') {
    try {
      return decodeURIComponent(encoded); // also refuses invalid UTF-8 sequences
    } catch {
      throw badRequest('Malformed filename* parameter');
    }
  }
  if (charset === 'iso-8859-1') {
    return encoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  throw badRequest('Unsupported charset in filename* parameter');
}

/**
 * Browsers send only the base name, but other clients send paths (old IE sent
 * `C:\Users\...`). Keep the last segment after either separator so that no caller
 * is tempted to join a client path; '.' and '..' are not names.
 */
function lastSegment(filename: string): string {
  const cut = Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\'));
  const base = filename.slice(cut + 1);
  return base === '.' || base === '..' ? '' : base;
}
