// A PostgreSQL connection lost outside any request (postgres.js reconnecting its
// LISTEN connection, a cancel request) never ends a service (src/db/stray-rejections.ts).
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isConnectionFailure, strayRejectionHandler } from '../../src/db/stray-rejections.js';
import type { Logger } from '../../src/lib/log.js';

const failure = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

function recordingLog(): { log: Logger; warned: string[] } {
  const warned: string[] = [];
  const log = { warn: (msg: string) => warned.push(msg), info: () => {}, error: () => {}, debug: () => {}, child: () => log } as unknown as Logger;
  return { log, warned };
}

test('connection failures are told from other errors', () => {
  const cases = [
    { what: 'refused', reason: failure('ECONNREFUSED'), expected: true },
    { what: 'reset', reason: failure('ECONNRESET'), expected: true },
    { what: 'admin shutdown', reason: failure('57P01'), expected: true },
    { what: 'starting up', reason: failure('57P03'), expected: true },
    { what: 'connect timeout', reason: failure('CONNECT_TIMEOUT'), expected: true },
    { what: 'connection closed', reason: failure('CONNECTION_CLOSED'), expected: true },
    { what: 'a unique violation', reason: failure('23505'), expected: false },
    { what: 'a TypeError', reason: new TypeError('x is undefined'), expected: false },
    { what: 'a string', reason: 'oops', expected: false },
  ];
  for (const { what, reason, expected } of cases) assert.is(isConnectionFailure(reason), expected, what);
});

test('the handler logs a lost connection and rethrows anything else', () => {
  const { log, warned } = recordingLog();
  const handler = strayRejectionHandler(log);
  handler(failure('ECONNREFUSED'));
  assert.is(warned.length, 1);
  const bug = new TypeError('a bug');
  assert.throws(() => handler(bug), (error: unknown) => error === bug);
});

// Defect: an unhandled ECONNREFUSED from postgres.js (its LISTEN connection
// reconnecting while PostgreSQL restarts) ended the process.
test('an unhandled ECONNREFUSED does not end a process that started its lifecycle', async () => {
  const script = `
    const { startLifecycle } = await import(${JSON.stringify(new URL('../../src/lifecycle.js', import.meta.url).href)});
    const { createLogger } = await import(${JSON.stringify(new URL('../../src/lib/log.js', import.meta.url).href)});
    startLifecycle(createLogger({}, { level: 'error' }));
    Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    setTimeout(() => { console.log('alive'); process.exit(0); }, 200);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.is(code, 0, err);
  assert.match(out, 'alive');
});

test.run();
