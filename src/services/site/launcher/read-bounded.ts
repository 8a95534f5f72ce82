import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

// Reads a whole file, but never more than `maxBytes` of it. The size from fstat is
// only a hint: a writer may still be appending, so the read itself stops one byte
// past the limit and that byte is what decides "too large".

/** Chunk size of the bounded read; the file is at most a few hundred KiB in practice. */
const READ_CHUNK_BYTES = 64 * 1024;

export type BoundedRead =
  | { kind: 'ok'; bytes: Buffer }
  | { kind: 'missing' }
  | { kind: 'too-large'; size: number }
  | { kind: 'unreadable'; reason: string };

export function readFileBounded(path: string, maxBytes: number): BoundedRead {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO put where the file should be would otherwise block
    // the whole process until a writer shows up. It changes nothing for a plain file.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'unreadable', reason: code ?? 'open failed' };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { kind: 'unreadable', reason: 'not a regular file' };
    if (stats.size > maxBytes) return { kind: 'too-large', size: stats.size };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, maxBytes + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read));
      total += read;
      if (total > maxBytes) return { kind: 'too-large', size: total };
    }
    return { kind: 'ok', bytes: Buffer.concat(chunks, total) };
  } catch (error) {
    return { kind: 'unreadable', reason: errorCode(error) ?? 'read failed' };
  } finally {
    closeSync(fd);
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
