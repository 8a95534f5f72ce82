import { MAX_SECRET_LENGTH, SECRET_FORMATS, type SecretFormat } from './secret-formats.js';

// Looks for credentials in one entry's bytes as they are inflated, chunk by
// chunk, without holding the entry: each chunk is scanned after the end of the
// one before it (OVERLAP characters of it), so a token that a chunk boundary
// cuts in two is still found whole. Bytes are read as latin1, one character
// each: every format is ASCII, and a UTF-8 sequence becomes characters that no
// format contains, so boundaries and lengths stay in bytes. A text file in UTF-16
// with its byte order mark (what Windows PowerShell 5's `>` and Notepad's
// "Unicode" write: `echo $env:GITHUB_TOKEN > token.txt`) is decoded as such, since
// its NULs would otherwise make it binary and unread.

/** Git's test for a binary file: a NUL in its first 8,000 bytes. UTF-16 text is binary by it too. */
export const SNIFF_BYTES = 8000;
/** Longer than any match, and one character of context before it. */
const OVERLAP = MAX_SECRET_LENGTH + 1;

export interface ScanBudget {
  /** Bytes the whole package may still have scanned; shared by its entries. */
  left: number;
}

/**
 * Bytes scanned per entry and per package: 4 MiB is more than any source file
 * or minified bundle of a plugin; beyond the budgets the rest is not looked at,
 * which keeps a package of 512 MiB of text within about a second of scanning.
 */
export const SCAN_BYTES_PER_ENTRY = 4 * 1024 * 1024;
export const SCAN_BYTES_PER_PACKAGE = 64 * 1024 * 1024;

export interface SecretScanner {
  update(chunk: Buffer): void;
  /** The kinds found, each once, in the order of SECRET_FORMATS. */
  end(): string[];
}

export function createSecretScanner(budget: ScanBudget, formats: readonly SecretFormat[] = SECRET_FORMATS): SecretScanner {
  const found = new Set<string>();
  let sniffed: Buffer[] | null = [];
  let sniffedBytes = 0;
  let stopped = false;
  /** Set once the sniffed head starts with a UTF-16 byte order mark. */
  let utf16: TextDecoder | null = null;
  let scanned = 0;
  /** The end of the text scanned last, kept for the next chunk. */
  let carry = '';
  /** Where matches may start in `carry`: 1 once its first character is only context. */
  let carryFrom = 0;

  function scan(bytes: Buffer, last: boolean): void {
    const allowed = Math.min(bytes.length, SCAN_BYTES_PER_ENTRY - scanned, budget.left);
    scanned += allowed;
    budget.left -= allowed;
    const read = utf16 ? utf16.decode(bytes.subarray(0, allowed), { stream: !last && allowed === bytes.length }) : bytes.toString('latin1', 0, allowed);
    const text = carry + read;
    for (const format of formats) {
      if (found.has(format.kind)) continue;
      if (matches(format, text, carryFrom, last)) found.add(format.kind);
    }
    const keepFrom = text.length - OVERLAP;
    if (keepFrom > 0) {
      carry = text.slice(keepFrom);
      carryFrom = 1;
    } else {
      carry = text;
    }
    // Past a budget nothing more is read; a token the budget cuts is not taken whole.
    if (allowed < bytes.length) stopped = true;
  }

  return {
    update(chunk) {
      if (stopped || chunk.length === 0) return;
      if (sniffed) {
        sniffed.push(chunk);
        sniffedBytes += chunk.length;
        if (sniffedBytes < SNIFF_BYTES) return;
        const head = Buffer.concat(sniffed);
        sniffed = null;
        utf16 = utf16Decoder(head);
        if (utf16 === null && head.subarray(0, SNIFF_BYTES).includes(0)) {
          stopped = true;
          return;
        }
        scan(head, false);
        return;
      }
      scan(chunk, false);
    },
    end() {
      if (sniffed) {
        const head = Buffer.concat(sniffed);
        sniffed = null;
        utf16 = utf16Decoder(head);
        if (utf16 !== null || !head.includes(0)) scan(head, true);
      } else if (!stopped) {
        scan(Buffer.alloc(0), true);
      }
      return formats.map((format) => format.kind).filter((kind, i, kinds) => found.has(kind) && kinds.indexOf(kind) === i);
    },
  };
}

/** A decoder for a head that starts with a UTF-16 byte order mark (which it drops), else null. */
function utf16Decoder(head: Buffer): TextDecoder | null {
  if (head[0] === 0xff && head[1] === 0xfe) return new TextDecoder('utf-16le');
  if (head[0] === 0xfe && head[1] === 0xff) return new TextDecoder('utf-16be');
  return null;
}

/**
 * Whether `format` matches in `text` at or after `from`. Unless the text is the
 * entry's end, a match that reaches the text's end is left for the next chunk,
 * which may show it goes on (too long to be the token); the carry keeps it.
 */
function matches(format: SecretFormat, text: string, from: number, final: boolean): boolean {
  const pattern = format.pattern;
  pattern.lastIndex = from;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const end = match.index + match[0].length;
    if (!final && end === text.length) break;
    if (!format.plausible || format.plausible(match[0])) return true;
    pattern.lastIndex = match.index + 1;
  }
  return false;
}
