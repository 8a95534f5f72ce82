import { access, constants, statfs } from 'node:fs/promises';

/** A file system that reports inodes and has fewer free ones than this cannot take uploads for long. */
export const MIN_FREE_INODES = 1_000;

/**
 * /readyz of the image host: its image folder is readable and writable, and its
 * file system has at least `minFreeBytes` free for us (and inodes left), so a full
 * disk takes the process out of rotation instead of answering 507 to every upload.
 * statfs is one system call: cheap enough for every probe.
 */
export function imagesDirReady(dir: string, minFreeBytes: number): () => Promise<boolean> {
  return async () => {
    try {
      await access(dir, constants.R_OK | constants.W_OK);
      const disk = await statfs(dir);
      // bavail, not bfree: blocks reserved for root are not ours to use.
      if (disk.bavail * disk.bsize < minFreeBytes) return false;
      // Some file systems (btrfs) report no inode counts at all: 0 total means "no limit".
      return disk.files === 0 || disk.ffree >= MIN_FREE_INODES;
    } catch {
      return false;
    }
  };
}
