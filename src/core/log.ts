// One JSON object per line on stdout: easy for journald, pm2 and any log shipper.
// Nothing here ever logs request bodies, query strings or SQL parameters.

import { writeSync } from 'node:fs';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
}

export function createLogger(base: Record<string, unknown> = {}, options: LoggerOptions = {}): Logger {
  const min = LEVELS[options.level ?? levelFromEnv()];
  const write = options.write ?? writeBatched;
  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < min) return;
    const record = { time: new Date().toISOString(), level, ...base, msg, ...fields };
    write(JSON.stringify(record, errorReplacer) + '\n');
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createLogger({ ...base, ...fields }, options),
  };
}

// Writing each line on its own costs a system call per request, which is most of
// the price of logging. Lines written within one turn of the event loop go out in
// one write; anything pending is flushed synchronously when the process exits.
const MAX_PENDING_BYTES = 64 * 1024;
let pending = '';
let flushScheduled = false;

function flush(): void {
  flushScheduled = false;
  if (!pending) return;
  const text = pending;
  pending = '';
  process.stdout.write(text);
}

function writeBatched(line: string): void {
  pending += line;
  if (pending.length >= MAX_PENDING_BYTES) flush();
  else if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flush);
  }
}

process.on('exit', () => {
  if (!pending) return;
  try {
    writeSync(1, pending);
  } catch {
    // stdout is gone: nothing left to tell.
  }
  pending = '';
});

function levelFromEnv(): LogLevel {
  const value = process.env.LOG_LEVEL;
  return value === 'debug' || value === 'warn' || value === 'error' ? value : 'info';
}

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
