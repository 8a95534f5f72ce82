import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../../core/log.js';

// Tells its owner when one file may have changed. Two sources, because neither is
// enough alone:
// - fs.watch on the file's folder, not the file: editors and deploy tools replace a
//   file by writing a temporary one and renaming it over, and a watch on the old
//   inode would go quiet after the first save. Events are filtered by name and
//   debounced, since one save is a burst (truncate, write, rename...).
// - a timer that asks the owner to stat the file: inotify can miss events (network
//   file systems, a folder that did not exist yet, Kubernetes ConfigMaps that swap
//   a symlink named "..data"), and a missed event must not leave it stale forever.
//   The timer also re-attaches fs.watch once the folder exists.
// Neither keeps the process alive: the server does that.

export interface WatchFileOptions {
  path: string;
  log: Logger;
  /** A watch event arrived for the file (after the debounce). */
  onEvent: () => void;
  /** The poll timer fired: stat the file and compare. */
  onPoll: () => void;
  pollMs: number;
  debounceMs: number;
}

export function watchFile(options: WatchFileOptions): { close(): void } {
  const { log } = options;
  const folder = dirname(options.path);
  const name = basename(options.path);
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let closed = false;

  // A bug in the owner's callback must not take the process down with it.
  const guarded = (callback: () => void) => {
    if (closed) return;
    try {
      callback();
    } catch (error) {
      log.error('launcher config check failed', { err: error });
    }
  };

  const schedule = () => {
    clearTimeout(debounce);
    debounce = setTimeout(() => {
      debounce = undefined;
      guarded(options.onEvent);
    }, options.debounceMs);
    debounce.unref();
  };

  const attach = () => {
    try {
      watcher = watch(folder, { persistent: false }, (_event, filename) => {
        // Some platforms give no name: then any event in the folder counts.
        if (filename === null || filename === name) schedule();
      });
    } catch {
      // The folder does not exist (yet): the poll tries again.
      watcher = undefined;
      return;
    }
    watcher.on('error', (error) => {
      log.warn('launcher config watch failed; polling until it can be restored', { err: error });
      watcher?.close();
      watcher = undefined;
    });
  };

  const poll = setInterval(() => {
    if (!watcher) attach();
    guarded(options.onPoll);
  }, options.pollMs);
  poll.unref();
  attach();

  return {
    close() {
      closed = true;
      clearInterval(poll);
      clearTimeout(debounce);
      watcher?.close();
      watcher = undefined;
    },
  };
}
