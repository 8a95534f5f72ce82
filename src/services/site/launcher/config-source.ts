import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../../../lib/log.js';
import { watchFolders } from '../../../lib/watch-folders.js';
import { FASTDOWNLOAD_ABSENT, parseLauncherDocument } from './document.js';
import { prepareJson as prepareAnswerJson, type PreparedAnswer } from '../../../http/answer/index.js';
import { readFileBounded } from './read-bounded.js';

/** Short, because launchers poll: a change must reach them within a minute. */
export const LAUNCHER_CACHE_CONTROL = 'public, max-age=60';
/** Every launcher polls /api/info and /api/fastdownload: built once per version of the file. */
const prepareJson = (value: unknown): PreparedAnswer => prepareAnswerJson(value, { cacheControl: LAUNCHER_CACHE_CONTROL });

// Holds the answers built from the last good version of LAUNCHER_CONFIG and swaps
// them when the file changes. A version that cannot be used (too large, unreadable,
// not JSON, not an object) is logged and the last good one stays in service; a
// file that disappears also leaves the last good one in service.
//
// Reading is synchronous on purpose: it happens only on a change, the file is at
// most MAX_CONFIG_BYTES, and JSON.parse of it is synchronous anyway; doing both in
// one step means a request can never see a half-swapped pair of answers.

/** Largest accepted file. Real ones are a few KiB; this bounds a mistake (a log file pointed at by accident). */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** Fallback stat of the file, for the events fs.watch misses. */
export const POLL_INTERVAL_MS = 2_000;
/** One save is a burst of events; read once it is over. */
export const DEBOUNCE_MS = 75;

export interface LauncherAnswers {
  /** null until a version of the file has been read successfully. */
  readonly info: PreparedAnswer | null;
  /** /api/info in each language the file translates, keyed by lower-case tag. */
  readonly translatedInfo: ReadonlyMap<string, PreparedAnswer>;
  readonly fastdownload: PreparedAnswer;
}

export interface LauncherConfigSourceOptions {
  path: string;
  log: Logger;
  pollMs?: number;
  debounceMs?: number;
}

const NO_CONFIG: LauncherAnswers = { info: null, translatedInfo: new Map(), fastdownload: prepareJson({ success: true, ...FASTDOWNLOAD_ABSENT }) };

export function createLauncherConfigSource(options: LauncherConfigSourceOptions) {
  const { path } = options;
  const log = options.log.child({ file: path });
  let answers = NO_CONFIG;
  /** Hash of the bytes behind `answers`: saving the same content again changes nothing. */
  let loadedHash: string | undefined;
  /** stat signature of the last version looked at, usable or not: the poll compares against it. */
  let seen: string | undefined;

  const reload = () => {
    // Stat before reading: if the file changes in between, the recorded signature is
    // the older one and the next poll reads again, so the race heals itself.
    seen = signature(path);
    const read = readFileBounded(path, MAX_CONFIG_BYTES);
    if (read.kind === 'missing') {
      log.warn(answers.info ? 'launcher config file is gone; keeping the last good version' : 'launcher config file not found; /api/info answers 500 until it exists');
      return;
    }
    if (read.kind === 'too-large') {
      log.warn('launcher config refused: file too large; keeping the last good version', { bytes: read.size, limit: MAX_CONFIG_BYTES });
      return;
    }
    if (read.kind === 'unreadable') {
      log.warn('launcher config refused: cannot read it; keeping the last good version', { reason: read.reason });
      return;
    }
    const hash = createHash('sha256').update(read.bytes).digest('hex');
    if (hash === loadedHash) {
      // Debug only: a deploy that rewrites the file unchanged is no news.
      log.debug('launcher config unchanged: the same bytes as the version in service');
      return;
    }
    const parsed = parseLauncherDocument(read.bytes);
    if (!parsed.ok) {
      log.warn('launcher config refused; keeping the last good version', { reason: parsed.reason });
      return;
    }
    for (const warning of parsed.document.warnings) log.warn('launcher config: ' + warning);
    for (const problem of parsed.document.clientProblems) {
      log.warn('launcher config: a key the launchers read is missing or of the wrong type (the file is served anyway)', { ...problem });
    }
    answers = {
      info: prepareJson({ success: true, ...parsed.document.info }),
      translatedInfo: new Map([...parsed.document.translations].map(([tag, info]) => [tag, prepareJson({ success: true, ...info })])),
      fastdownload: prepareJson({ success: true, ...parsed.document.fastdownload }),
    };
    loadedHash = hash;
    log.info('launcher config loaded', { bytes: read.bytes.length });
  };

  reload();
  // Its folder is watched, not the file: see watch-folders.ts.
  const watcher = watchFolders({
    folders: [dirname(path)],
    only: basename(path),
    what: 'launcher config',
    log,
    pollMs: options.pollMs ?? POLL_INTERVAL_MS,
    debounceMs: options.debounceMs ?? DEBOUNCE_MS,
    onChange: reload,
    onPoll: () => {
      if (signature(path) !== seen) reload();
    },
  });

  return {
    answers: (): LauncherAnswers => answers,
    close: () => watcher.close(),
  };
}

/** Changes whenever the file is rewritten, replaced or removed; a stat, no read. */
function signature(path: string): string {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (!stats) return 'missing';
    return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  } catch (error) {
    return 'error:' + String((error as { code?: unknown }).code);
  }
}
