import { open } from 'node:fs/promises';

// rename(2) is atomic but not durable: after a power cut the new name may point at
// a file whose data never reached the disk (a zero-length "image"), or the rename
// itself may be lost. So a file is fsync'd before its rename and the folder after
// (what SQLite and PostgreSQL do for the same reason).

/** Flushes a file's data and metadata to the disk. */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a folder's entries (a rename into it, a new subfolder) to the disk. */
export async function syncDirectory(path: string): Promise<void> {
  // Windows cannot open a folder as a file; NTFS journals its entries anyway.
  if (process.platform === 'win32') return;
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
