// A Buffer kept for long must not hold more memory than its bytes. Two common ones do:
// - zlib's sync calls (gzipSync, brotliCompressSync) return a view of their 16 KiB
//   output chunk, so a 900-byte gzip of a plugin's detail keeps 16 KiB alive;
// - Buffer.from(string) of under 4 KiB is a slice of a shared 8 KiB pool slab, which
//   stays alive as long as any slice of it does.
// A cache counting a kept answer by its length then holds ten or twenty times what it
// counts (measured: 16.8 KB per outage copy counted at 620 bytes).

/** The waste worth a copy: below it, the copy costs more than it frees. */
const SLACK_BYTES = 256;

/** `buffer` itself when it owns its memory (near enough), else a copy that does. */
export function exactBuffer(buffer: Buffer): Buffer {
  return buffer.buffer.byteLength - buffer.length < SLACK_BYTES ? buffer : exactCopy(buffer);
}

/** A copy of `buffer` in memory of its own, whatever `buffer` is a view of. */
export function exactCopy(buffer: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(buffer.length);
  buffer.copy(copy);
  return copy;
}

/** The UTF-8 bytes of `text` in memory of their own (never a slice of the shared pool). */
export function exactBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}
