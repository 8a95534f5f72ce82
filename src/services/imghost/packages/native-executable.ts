// A program the operating system runs by itself, told by its first bytes, not by
// its name: "main" with no extension is what the launcher runs on Linux, and a
// renamed .exe is still one.

export type ExecutableFormat = 'PE' | 'ELF' | 'Mach-O';

/** Enough for the PE header of any linker's output (the DOS stub before it is under 1 KiB). */
export const EXECUTABLE_HEAD_BYTES = 4096;

// Mach-O magics as the bytes appear in the file: 32 and 64 bits, both byte orders.
const MACH_O_MAGICS = new Set([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe]);
// Universal ("fat") binaries: big-endian always, 32- and 64-bit offsets.
const FAT_MAGIC = 0xcafebabe;
const FAT_MAGIC_64 = 0xcafebabf;
/**
 * A Java class file starts with 0xCAFEBABE too, then its version (major 45 and
 * on); a universal binary gives its number of architectures there, a handful.
 */
const MAX_FAT_ARCHITECTURES = 20;

/** The format of the entry whose first bytes are `head`, or null when it is not a native executable. */
export function executableFormat(head: Buffer): ExecutableFormat | null {
  if (head.length < 4) return null;
  if (isPe(head)) return 'PE';
  // 0x7F "ELF", then a class (32 or 64 bits) and a byte order that exist.
  if (head.readUInt32BE(0) === 0x7f454c46 && head.length >= 6 && (head[4] === 1 || head[4] === 2) && (head[5] === 1 || head[5] === 2)) return 'ELF';
  const magic = head.readUInt32BE(0);
  if (MACH_O_MAGICS.has(magic)) return 'Mach-O';
  if ((magic === FAT_MAGIC || magic === FAT_MAGIC_64) && head.length >= 8) {
    const architectures = head.readUInt32BE(4);
    if (architectures >= 1 && architectures <= MAX_FAT_ARCHITECTURES) return 'Mach-O';
  }
  return null;
}

/**
 * "MZ", and at the offset the DOS header gives (e_lfanew, at 0x3C), "PE\0\0": a
 * text file may start with "MZ". The offset may point inside the DOS header
 * itself, as in hand-made tiny PE files that Windows runs.
 */
function isPe(head: Buffer): boolean {
  if (head[0] !== 0x4d || head[1] !== 0x5a || head.length < 0x40) return false;
  const at = head.readUInt32LE(0x3c);
  return at + 4 <= head.length && head.readUInt32BE(at) === 0x50450000;
}
