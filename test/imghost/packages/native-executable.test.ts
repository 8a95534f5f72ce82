// Native programs told by their first bytes, and the files that start alike but
// are none (a Java class, text starting "MZ", a truncated header).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { executableFormat } from '../../../src/services/imghost/packages/native-executable.js';

/** A DOS header whose e_lfanew points at `peAt`, and "PE\0\0" there. */
function pe(peAt = 0x80, signature = 'PE\u0000\u0000'): Buffer {
  const head = Buffer.alloc(Math.max(peAt + 256, 0x40));
  head.write('MZ', 0, 'latin1');
  head.writeUInt32LE(peAt, 0x3c);
  head.write(signature, peAt, 'latin1');
  return head;
}
const bytes = (...values: number[]) => Buffer.from(values);
const be32 = (magic: number, next = 0) => {
  const head = Buffer.alloc(64);
  head.writeUInt32BE(magic, 0);
  head.writeUInt32BE(next, 4);
  return head;
};

const rows: Array<{ what: string; head: Buffer; format: string | null }> = [
  { what: 'PE: a Windows program', head: pe(), format: 'PE' },
  { what: 'PE: a header far into the file (a long DOS stub)', head: pe(0xe00), format: 'PE' },
  { what: 'PE: a tiny PE whose header overlaps the DOS header', head: pe(0x04), format: 'PE' },
  { what: 'ELF: 64-bit little-endian (Linux x86-64)', head: Buffer.concat([bytes(0x7f, 0x45, 0x4c, 0x46, 2, 1, 1), Buffer.alloc(57)]), format: 'ELF' },
  { what: 'ELF: 32-bit big-endian', head: Buffer.concat([bytes(0x7f, 0x45, 0x4c, 0x46, 1, 2, 1), Buffer.alloc(57)]), format: 'ELF' },
  { what: 'Mach-O: 64-bit little-endian (arm64, x86-64)', head: bytes(0xcf, 0xfa, 0xed, 0xfe, 0x0c, 0, 0, 1), format: 'Mach-O' },
  { what: 'Mach-O: 32-bit little-endian', head: bytes(0xce, 0xfa, 0xed, 0xfe, 7, 0, 0, 0), format: 'Mach-O' },
  { what: 'Mach-O: 64-bit big-endian', head: bytes(0xfe, 0xed, 0xfa, 0xcf, 0, 0, 0, 0x12), format: 'Mach-O' },
  { what: 'Mach-O: 32-bit big-endian (PowerPC)', head: bytes(0xfe, 0xed, 0xfa, 0xce, 0, 0, 0, 0x12), format: 'Mach-O' },
  { what: 'Mach-O: universal, two architectures', head: be32(0xcafebabe, 2), format: 'Mach-O' },
  { what: 'Mach-O: universal with 64-bit offsets', head: be32(0xcafebabf, 3), format: 'Mach-O' },
  { what: 'not: a Java class (0xCAFEBABE, then version 0.52)', head: be32(0xcafebabe, 52), format: null },
  { what: 'not: a Java class of Java 1.1 (version 3.45)', head: be32(0xcafebabe, (3 << 16) | 45), format: null },
  { what: 'not: text that starts with "MZ"', head: Buffer.from('MZ is the signature of DOS programs, said the README.\n'.repeat(3)), format: null },
  { what: 'not: "MZ" whose e_lfanew points at no PE signature', head: pe(0x80, 'NE\u0000\u0000'), format: null },
  { what: 'not: "MZ" whose e_lfanew points past the bytes read', head: (() => { const h = pe(); h.writeUInt32LE(0x100000, 0x3c); return h; })(), format: null },
  { what: 'not: "MZ" and nothing else', head: Buffer.from('MZ'), format: null },
  { what: 'not: ELF magic with a class that does not exist', head: Buffer.concat([bytes(0x7f, 0x45, 0x4c, 0x46, 9, 1), Buffer.alloc(58)]), format: null },
  { what: 'not: ELF cut after its magic', head: bytes(0x7f, 0x45, 0x4c, 0x46), format: null },
  { what: 'not: a ZIP (a .jar)', head: Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.alloc(60)]), format: null },
  { what: 'not: a PNG', head: bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), format: null },
  { what: 'not: a shell script', head: Buffer.from('#!/bin/sh\nexec java -jar plugin.jar\n'), format: null },
  { what: 'not: empty', head: Buffer.alloc(0), format: null },
];

for (const row of rows) {
  test(row.what, () => {
    assert.is(executableFormat(row.head), row.format);
  });
}

test.run();
