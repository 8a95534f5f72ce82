import { createHash } from 'node:crypto';
import { EXECUTABLE_HEAD_BYTES, executableFormat, type ExecutableFormat } from './native-executable.js';
import { createSecretScanner, type ScanBudget } from './secret-scanner.js';

// What one file entry's bytes tell, gathered while the inspector inflates them
// (zip-inspect.ts verifyData) and thrown away with them: its SHA-256, whether it
// is a native program, the credentials in it, and, for the manifest alone, the
// bytes themselves.

export interface EntryReading {
  sha256: string;
  executable: ExecutableFormat | null;
  /** Kinds of credential found, each once. */
  secrets: string[];
  /** The entry's bytes, when asked to keep them (`keepBytes`) and it was no larger. */
  bytes: Buffer | null;
}

export interface EntryReader {
  update(chunk: Buffer): void;
  end(): EntryReading;
}

/** `keepBytes`: the most bytes kept whole (0: none); an entry larger than that keeps none. */
export function createEntryReader(budget: ScanBudget, keepBytes: number): EntryReader {
  const hash = createHash('sha256');
  const scanner = createSecretScanner(budget);
  const head = new Leading(EXECUTABLE_HEAD_BYTES);
  let kept: Leading | null = keepBytes > 0 ? new Leading(keepBytes) : null;
  return {
    update(chunk) {
      hash.update(chunk);
      head.add(chunk);
      scanner.update(chunk);
      if (kept && !kept.add(chunk)) kept = null;
    },
    end() {
      return { sha256: hash.digest('hex'), executable: executableFormat(head.bytes()), secrets: scanner.end(), bytes: kept ? kept.bytes() : null };
    },
  };
}

/** The first `limit` bytes of a stream; `add` answers false once more came than that. */
class Leading {
  private readonly chunks: Buffer[] = [];
  private length = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): boolean {
    const room = this.limit - this.length;
    if (room > 0) {
      // Copied, so that a short slice does not keep a whole chunk alive.
      const part = Buffer.from(chunk.subarray(0, room));
      this.chunks.push(part);
      this.length += part.length;
    }
    return chunk.length <= room;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}
