// Files the benchmarks and the soak send: distinct bytes made cheaply, shared so
// each script makes them the same way.
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** The same JPEG with a distinct comment segment after SOI: new bytes (a new md5), no re-encode. */
export function withComment(jpeg: Buffer, text: string): Buffer {
  const comment = Buffer.from(text);
  const segment = Buffer.alloc(4);
  segment.writeUInt16BE(0xfffe, 0);
  segment.writeUInt16BE(comment.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), segment, comment, jpeg.subarray(2)]);
}

/** A ZIP of one stored entry of `size` random bytes (random: nothing to compress). */
export function storedZip(size: number): Buffer {
  const data = randomBytes(size);
  const name = Buffer.from('plugin.bin');
  const crc = crc32(data);
  const head = (fields: Array<[number, 2 | 4]>) =>
    Buffer.concat(fields.map(([value, bytes]) => {
      const b = Buffer.alloc(bytes);
      if (bytes === 2) b.writeUInt16LE(value);
      else b.writeUInt32LE(value >>> 0);
      return b;
    }));
  const local = head([[0x04034b50, 4], [20, 2], [0, 2], [0, 2], [0, 2], [0x21, 2], [crc, 4], [size, 4], [size, 4], [name.length, 2], [0, 2]]);
  const central = head([[0x02014b50, 4], [0x031e, 2], [20, 2], [0, 2], [0, 2], [0, 2], [0x21, 2], [crc, 4], [size, 4], [size, 4], [name.length, 2], [0, 2], [0, 2], [0, 2], [0, 2], [0o100644 << 16, 4], [0, 4]]);
  const end = head([[0x06054b50, 4], [0, 2], [0, 2], [1, 2], [1, 2], [central.length + name.length, 4], [local.length + name.length + size, 4], [0, 2]]);
  return Buffer.concat([local, name, data, central, name, end]);
}
