import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from './log.js';

// Tells its owner when something in some folders may have changed. Two sources,
// because neither is enough alone:
// - fs.watch on each folder (not on a file: editors and deploy tools replace a file
//   by writing a temporary one and renaming it over, and a watch on the old inode
//   would go quiet after the first save). One change is a burst of events
//   (truncate, write, rename...), so they are gathered for `debounceMs`.
// - a timer that asks the owner to look for itself (a stat): inotify can miss
//   events (network file systems, a folder that did not exist yet, Kubernetes
//   ConfigMaps that swap a symlink named "..data"), and a missed event must not
//   leave the owner stale forever. The timer also watches again a folder whose
//   watch failed or that did not exist.
// Neither keeps the process alive: the server does that. Used by the launcher
// configuration (one file) and the icon folders.

export interface WatchFoldersOptions {
  folders: readonly string[];
  /** Only events about this entry name count (a folder watched for one file). */
  only?: string;
  /** Something changed (once per burst of events, or when a watch failed). */
  onChange: () => void;
  /** The poll timer fired: look (stat) and compare. */
  onPoll: () => void;
  pollMs: number;
  debounceMs: number;
  log: Logger;
  /** Names the watched thing in log lines. */
  what: string;
}

export interface FolderWatch {
  /** Drops every watch and makes new ones: a folder replaced by another of the same name is watched again. */
  rewatch(): void;
  close(): void;
}

export function watchFolders(options: WatchFoldersOptions): FolderWatch {
  const { log } = options;
  const watchers = new Map<string, FSWatcher>();
  let debounce: NodeJS.Timeout | undefined;
  let closed = false;

  // A bug in the owner's callback must not take the process down with it.
  const guarded = (callback: () => void) => {
    if (closed) return;
    try {
      callback();
    } catch (error) {
      log.error(`${options.what} check failed`, { err: error });
    }
  };

  const changed = () => {
    if (closed || debounce) return;
    debounce = setTimeout(() => {
      debounce = undefined;
      guarded(options.onChange);
    }, options.debounceMs);
    debounce.unref();
  };

  const attach = (folder: string) => {
    let watcher: FSWatcher;
    try {
      watcher = watch(folder, { persistent: false }, (_event, filename) => {
        // Some platforms give no name: then any event in the folder counts.
        if (options.only === undefined || filename === null || filename === options.only) changed();
      });
    } catch {
      // The folder does not exist (yet): the poll tries again.
      return;
    }
    // The folder vanishing ends the watch: look again now, and the poll watches anew.
    watcher.on('error', (error) => {
      log.warn(`${options.what} watch failed; polling until it can be restored`, { code: (error as NodeJS.ErrnoException).code });
      watcher.close();
      watchers.delete(folder);
      changed();
    });
    watchers.set(folder, watcher);
  };

  const unwatchAll = () => {
    for (const watcher of watchers.values()) watcher.close();
    watchers.clear();
  };

  const poll = setInterval(() => {
    for (const folder of options.folders) if (!watchers.has(folder)) attach(folder);
    guarded(options.onPoll);
  }, options.pollMs);
  poll.unref();
  for (const folder of options.folders) attach(folder);

  return {
    rewatch() {
      unwatchAll();
      if (!closed) for (const folder of options.folders) attach(folder);
    },
    close() {
      closed = true;
      clearInterval(poll);
      clearTimeout(debounce);
      unwatchAll();
    },
  };
}
