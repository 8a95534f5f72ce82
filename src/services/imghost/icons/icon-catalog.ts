import { stat } from 'node:fs/promises';
import type { Logger } from '../../../lib/log.js';
import { watchFolders } from '../../../lib/watch-folders.js';
import type { IconSource } from './icon-source.js';
import { POLL_INTERVAL_MS, RESCAN_DEBOUNCE_MS } from './limits.js';
import { fileListAnswers, type FileListAnswers } from './list-answers.js';

// The live list of icons. It is read once (readdir), then again whenever a folder
// changes: fs.watch gives the change at once, and a stat of each folder every few
// seconds catches what fs.watch can miss (a folder removed and re-created, network
// file systems). Each rescan bumps `generation` and tells the listeners, which drop
// their caches. A failed scan leaves an empty list and `listing()` null, and the
// poll keeps looking, so the folder coming back heals the service by itself.

export interface IconCatalog {
  /** Absolute path of a listed icon file. */
  path(fileName: string): string | undefined;
  /** GET /api/svg_files, prepared once per scan; null while the folder cannot be read. */
  listing(): FileListAnswers | null;
  readonly generation: number;
  onChange(listener: () => void): void;
  /** Reads the folders again now (also used when a listed file turns out to be gone). */
  rescan(): Promise<void>;
  close(): void;
}

export async function openIconCatalog(source: IconSource, log: Logger): Promise<IconCatalog> {
  let files = new Map<string, string>();
  let listing: FileListAnswers | null = null;
  let generation = 0;
  let lastStamp = '';
  let closed = false;
  let scanning: Promise<void> | undefined;
  let scanAgain = false;
  const listeners: Array<() => void> = [];

  const scanOnce = async () => {
    // Watchers first and the stamp before readdir: a change that lands during the
    // scan is then seen by one or the other, never by neither.
    watcher.rewatch();
    const stamp = await folderStamp(source.folders);
    try {
      files = await source.scan();
      listing = serialize(files);
    } catch (error) {
      if (listing !== null || generation === 0) {
        log.warn('icon folder cannot be read', { code: (error as NodeJS.ErrnoException).code });
      }
      files = new Map();
      listing = null;
    }
    lastStamp = stamp;
    generation++;
    for (const listener of listeners) listener();
  };

  const rescan = (): Promise<void> => {
    if (closed) return Promise.resolve();
    if (scanning) {
      scanAgain = true;
      return scanning;
    }
    scanning = (async () => {
      do {
        scanAgain = false;
        await scanOnce();
      } while (scanAgain && !closed);
    })().finally(() => {
      scanning = undefined;
    });
    return scanning;
  };

  // fs.watch and a stat of each folder every few seconds (watch-folders.ts).
  let polling = false;
  const watcher = watchFolders({
    folders: source.folders,
    what: 'icon folder',
    log,
    pollMs: POLL_INTERVAL_MS,
    debounceMs: RESCAN_DEBOUNCE_MS,
    onChange: () => void rescan(),
    onPoll: () => {
      if (polling || scanning || closed) return;
      polling = true;
      folderStamp(source.folders)
        .then((stamp) => (stamp !== lastStamp ? rescan() : undefined))
        .finally(() => {
          polling = false;
        });
    },
  });

  await rescan();

  return {
    path: (fileName) => files.get(fileName),
    listing: () => listing,
    get generation() {
      return generation;
    },
    onChange: (listener) => void listeners.push(listener),
    rescan,
    close() {
      closed = true;
      watcher.close();
    },
  };
}

/** Identity and modification time of each folder: changes when an entry is added, removed or renamed. */
async function folderStamp(folders: string[]): Promise<string> {
  const parts = await Promise.all(
    folders.map((folder) =>
      stat(folder, { bigint: true }).then(
        (s) => (s.isDirectory() ? `${s.dev}:${s.ino}:${s.mtimeNs}:${s.ctimeNs}` : 'not-a-folder'),
        () => 'missing',
      ),
    ),
  );
  return parts.join('|');
}

function serialize(files: Map<string, string>): FileListAnswers {
  // Names are ASCII (icon-name.ts), so code-unit order is byte order.
  return fileListAnswers(Buffer.from(JSON.stringify([...files.keys()].sort())));
}
