import { open, type FileHandle } from 'node:fs/promises';

const CHUNK_BYTES = 64 * 1024;

/**
 * Whether two files hold the same bytes, read side by side in small chunks (an md5
 * match is what makes us ask, and md5 collisions can be made on purpose).
 */
export async function sameContent(a: string, b: string): Promise<boolean> {
  const left = await open(a, 'r');
  try {
    const right = await open(b, 'r');
    try {
      return await compare(left, right);
    } finally {
      await right.close();
    }
  } finally {
    await left.close();
  }
}

async function compare(left: FileHandle, right: FileHandle): Promise<boolean> {
  const leftChunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const rightChunk = Buffer.allocUnsafe(CHUNK_BYTES);
  for (let position = 0; ; position += CHUNK_BYTES) {
    const [l, r] = await Promise.all([
      left.read(leftChunk, 0, CHUNK_BYTES, position),
      right.read(rightChunk, 0, CHUNK_BYTES, position),
    ]);
    if (l.bytesRead !== r.bytesRead) return false;
    if (l.bytesRead === 0) return true;
    if (!leftChunk.subarray(0, l.bytesRead).equals(rightChunk.subarray(0, r.bytesRead))) return false;
  }
}
