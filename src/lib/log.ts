// One JSON object per line on stdout: easy for journald, pm2 and any log shipper.
// Nothing here ever logs request bodies, query strings or SQL parameters.

import { writeSync } from 'node:fs';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  /**
   * For the hottest line (one per request): a writer of lines of this level and
   * message whose bytes go straight into the log's batch. The line's start (`{"time":…,
   * "level":…, the fixed fields, "msg":…,`) is kept as bytes, made again each
   * millisecond; `fill` writes the rest (see LineFiller) for `value`, with at most
   * `maxBytes`. `monotonicMs` is performance.now() read by the caller as it finished
   * (the line's time is the wall clock of that millisecond). Undefined when lines of
   * this level are not written. Everything else uses the methods above.
   */
  lineWriter(level: LogLevel, msg: string): LineWriter | undefined;
  /** Whether lines of this level are written at all: a caller may skip building one that is not. */
  enabled(level: LogLevel): boolean;
}

/**
 * Writes the members of a line after its message (`"a":1,"b":"x"`, without a
 * leading comma) and then `}\n`, as UTF-8 JSON, into `target` from `at`, and
 * returns where it ended. The caller knows its values are safe and how long
 * they can be.
 */
export type LineFiller<T> = (target: Buffer, at: number, value: T) => number;
export type LineWriter = <T>(fill: LineFiller<T>, value: T, maxBytes: number, monotonicMs: number) => void;

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
}

export function createLogger(base: Record<string, unknown> = {}, options: LoggerOptions = {}): Logger {
  return makeLogger(fragmentOf(base), LEVELS[options.level ?? 'info'], options.write ?? writeBatched, options);
}

/**
 * A logger's fixed fields are serialized once, as a JSON fragment, when it is
 * made: a line per request then costs one small JSON.stringify, not a spread and
 * re-serialization of everything.
 */
function makeLogger(baseFragment: string, min: number, write: (line: string) => void, options: LoggerOptions): Logger {
  const prefix = baseFragment ? ',' + baseFragment : '';
  const line = (level: LogLevel, msg: string, rest: string) => {
    write(`{"time":"${isoNow()}","level":"${level}"${prefix},"msg":${JSON.stringify(msg)}${rest ? ',' + rest : ''}}\n`);
    // A warning or an error goes out at once, with the lines before it: it may be
    // the last thing a process says before something outside it ends it.
    if (write === writeBatched && LEVELS[level] >= LEVELS.warn) flush();
  };
  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < min) return;
    line(level, msg, fields ? fragmentOf(fields) : '');
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    lineWriter: (level, msg) => {
      if (LEVELS[level] < min) return undefined;
      return bytesLineWriter(`","level":"${level}"${prefix},"msg":${JSON.stringify(msg)},`, write, LEVELS[level] >= LEVELS.warn);
    },
    enabled: (level) => LEVELS[level] >= min,
    child: (fields) => {
      const extra = fragmentOf(fields);
      return makeLogger(baseFragment && extra ? `${baseFragment},${extra}` : baseFragment || extra, min, write, options);
    },
  };
}

/**
 * A LineWriter whose lines start with `{"time":"<ISO>` and `head`. In a server the
 * request line is most of what is logged: written as bytes from pieces the caller
 * keeps as bytes, it makes no string and encodes nothing per line. Built as a
 * string of a dozen pieces and encoded into the batch, it took about 1.7 µs a
 * request in a profile of /api/info under load (26 Nov 2026), most of it joining
 * the pieces.
 */
function bytesLineWriter(head: string, write: (line: string) => void, urgent: boolean): LineWriter {
  let startWall = NaN;
  let start = Buffer.alloc(0);
  const startOf = (monotonicMs: number): Buffer => {
    if (Math.floor(wallOffset + monotonicMs) !== startWall) {
      const iso = isoAt(monotonicMs);
      // isoAt may have read the clock again: the key is taken after it.
      startWall = Math.floor(wallOffset + monotonicMs);
      start = Buffer.from('{"time":"' + iso + head);
    }
    return start;
  };
  if (write !== writeBatched) {
    // Another sink (a test's) takes lines as strings: the same bytes, decoded.
    return (fill, value, maxBytes, monotonicMs) => {
      const lineStart = startOf(monotonicMs);
      const line = Buffer.allocUnsafe(lineStart.length + maxBytes);
      lineStart.copy(line, 0);
      write(line.toString('utf8', 0, fill(line, lineStart.length, value)));
    };
  }
  return (fill, value, maxBytes, monotonicMs) => {
    const lineStart = startOf(monotonicMs);
    const most = lineStart.length + maxBytes;
    if (most > BATCH_BYTES) {
      flush();
      const line = Buffer.allocUnsafe(most);
      lineStart.copy(line, 0);
      process.stdout.write(line.subarray(0, fill(line, lineStart.length, value)));
      return;
    }
    if (batchLength + most > BATCH_BYTES) flush();
    batch.set(lineStart, batchLength);
    batchLength = fill(batch, batchLength + lineStart.length, value);
    if (urgent) flush();
    else flushSoon();
  };
}

// Many lines share a millisecond under load, and most share a second. The request
// log's lines come with performance.now() already read: the wall clock is that plus
// an offset, and the text is the second's (formatted once per second) and the
// millisecond's three digits (from a table). The offset is read again from the wall
// clock with each new second, so a clock set forward or back shows within a second.
let wallOffset = Date.now() - performance.now();
let secondStart = -1;
let secondIso = '';
/** A change of the wall clock against the monotonic one that the log's times follow. */
const CLOCK_STEP_MS = 2;
/** `.000Z` to `.999Z`. */
const MILLISECOND_ENDS: readonly string[] = Array.from({ length: 1000 }, (_, ms) => '.' + String(ms).padStart(3, '0') + 'Z');

/** The ISO time of a `performance.now()` reading (not older than the last second's). */
export function isoAt(monotonicMs: number): string {
  let wall = Math.floor(wallOffset + monotonicMs);
  let ms = wall % 1000;
  if (wall - ms !== secondStart) {
    // Date.now() is whole milliseconds: an offset read again differs by up to one
    // from the last one without any change of the clock; only a step counts.
    const offset = Date.now() - performance.now();
    if (Math.abs(offset - wallOffset) >= CLOCK_STEP_MS) {
      wallOffset = offset;
      wall = Math.floor(wallOffset + monotonicMs);
      ms = wall % 1000;
    }
    secondStart = wall - ms;
    // toISOString's seconds (19 characters: 2026-11-26T03:44:00); years past 9999 have no such form.
    secondIso = new Date(secondStart).toISOString().slice(0, 19);
  }
  return secondIso + MILLISECOND_ENDS[ms];
}

// The others format the timestamp once per ms too.
let lastMs = 0;
let lastIso = '';
function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

/** `{"a":1,"b":2}` without its braces; undefined values are left out. */
function fragmentOf(fields: Record<string, unknown>): string {
  // A replacer function costs a call per key: only objects (errors) need it.
  let hasObject = false;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === 'object' && value !== null) {
      hasObject = true;
      break;
    }
  }
  const json = hasObject ? JSON.stringify(fields, errorReplacer) : JSON.stringify(fields);
  return json.length > 2 ? json.slice(1, -1) : '';
}

// Writing each line on its own costs a system call per request, which is most of
// the price of logging. Even one write per turn of the event loop costs a few µs a
// request under load (a write through process.stdout is a stream call, a string to
// bytes copy and a system call, for the handful of requests a turn serves). So lines
// are gathered for up to FLUSH_INTERVAL_MS, or until the batch is full, and go out
// in one write; a warning or an error is written at once with everything before it,
// and anything pending is written synchronously when the process exits (a signal
// handled by onShutdownSignal, process.exit, an uncaught exception). Only a process
// killed outright (SIGKILL, out of memory) loses its last FLUSH_INTERVAL_MS of lines.
//
// The window is 100 ms, not 10: a write to a log file has a fixed cost (the system
// call, the file's times and the stream call around it) of a few µs, so at 15,000
// requests/s a 10 ms batch of ~150 lines paid about 0.15 µs a line and a 100 ms one
// about 0.09 (writeSync of 216-byte lines to a file on ext4, 26 Nov 2026), and the
// timer and stream work are paid ten times less often.
//
// Each line is encoded into the batch's bytes as it comes, while its pieces are
// still fresh in the CPU's caches and in V8's young generation. Gathering the lines
// as strings and joining them once per batch measured cheaper in isolation, but in a
// server a 100 ms batch is ~1,500 lines of a dozen string pieces each that outlive
// every young-generation collection of the window (copied, then promoted), and are
// joined cold from all over the heap. In a profile of /api/info under load (26 Nov
// 2026) the batch and its join took 2.7 µs a request and the collector 1.9; encoded as
// they come, 1.9 and 1.0 (served at the same time as the joined build, the whole
// request's CPU differed by less than that measure's spread of 1-3%).
/** Bytes gathered before a write: about 1,100 request lines. */
const BATCH_BYTES = 256 * 1024;
/** Short enough that a line reaches the log at once as far as a reader (or a log shipper) can tell. */
export const FLUSH_INTERVAL_MS = 100;
/** UTF-8 takes at most three bytes for each UTF-16 unit of a JavaScript string (a lone surrogate included). */
const MAX_BYTES_PER_CHAR = 3;
let batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
let batchLength = 0;
let flushTimer: NodeJS.Timeout | undefined;

/** The bytes gathered so far, taken out of the batch (a new one takes its place: a stream may still hold these). */
function takeBatch(): Buffer | undefined {
  if (batchLength === 0) return undefined;
  const bytes = batch.subarray(0, batchLength);
  batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
  batchLength = 0;
  return bytes;
}

/** Writes the lines gathered so far now (flushLog: before text written to stdout another way, say). */
export { flush as flushLog };
function flush(): void {
  clearTimeout(flushTimer);
  flushTimer = undefined;
  const bytes = takeBatch();
  if (bytes !== undefined) process.stdout.write(bytes);
}

function writeBatched(line: string): void {
  const most = line.length * MAX_BYTES_PER_CHAR;
  if (batchLength + most > BATCH_BYTES) {
    flush();
    // A line longer than a whole batch (an error's stack) goes out on its own.
    if (most > BATCH_BYTES) return void process.stdout.write(line);
  }
  batchLength += batch.write(line, batchLength);
  flushSoon();
}

function flushSoon(): void {
  if (flushTimer === undefined) {
    flushTimer = setTimeout(flush, FLUSH_INTERVAL_MS);
    // Pending lines never keep the process alive; 'exit' below writes them.
    flushTimer.unref();
  }
}

process.on('exit', () => {
  const bytes = takeBatch();
  if (bytes === undefined) return;
  try {
    writeSync(1, bytes);
  } catch {
    // stdout is gone: nothing left to tell.
  }
});

// Errors serialize to {} by default; keep name, message, code and stack for the log
// (never for the client). postgres.js puts query parameters on `parameters`: dropped.
function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const withCode = value as Error & { code?: unknown };
    return { name: value.name, message: value.message, code: withCode.code, stack: value.stack };
  }
  return value;
}

/** A logger that drops everything: for tests and benchmarks. */
export const silentLogger: Logger = createLogger({}, { write: () => {} });
