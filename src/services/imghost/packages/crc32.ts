import * as zlib from 'node:zlib';

// zlib.crc32 arrived in Node 20.15 and 22.2; the project supports 20.9 on, so
// older versions get the table-driven CRC-32 (ISO 3309, the one ZIP uses).

let table: Uint32Array | undefined;

function tableCrc32(data: Buffer, previous: number): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = (previous ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const native = (zlib as { crc32?: (data: Buffer, value?: number) => number }).crc32;

/** CRC-32 of `data`, continuing from `previous` (0 to start). */
export const crc32: (data: Buffer, previous: number) => number = native ?? tableCrc32;

/** The table version, exported so a test can check it against zlib's where both exist. */
export { tableCrc32 };
