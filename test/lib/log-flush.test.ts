// The logger gathers lines for up to FLUSH_INTERVAL_MS (100 ms) before one write
// (lib/log.ts). Every way a process ends short of being killed outright must still
// write them all, a warning or an error must not wait for the window, and the request
// log of a service stopped by SIGTERM, written to a file as under a process manager,
// must hold one line per request answered.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../helpers/servers.js';

const LOG_MODULE = new URL('../../src/lib/log.js', import.meta.url).href;
const IMGHOST = fileURLToPath(new URL('../../src/imghost.js', import.meta.url));

/** Runs `body` as an ES module with `log` (createLogger) in scope, its stdout to a file; resolves with the file's lines and the exit code. */
async function runLogging(body: string, stdoutFile: string): Promise<{ lines: string[]; code: number | null }> {
  const out = openSync(stdoutFile, 'w');
  const child = spawn(process.execPath, ['--input-type=module', '-e', `import { createLogger } from ${JSON.stringify(LOG_MODULE)};\nconst log = createLogger({ service: 't' });\n${body}`], {
    stdio: ['ignore', out, 'pipe'],
  });
  closeSync(out);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  const text = readFileSync(stdoutFile, 'utf8');
  assert.ok(text === '' || text.endsWith('\n'), 'a line cut short: ' + text.slice(-80) + stderr);
  return { lines: text.split('\n').filter(Boolean), code };
}

const LINES = 500;
const logLines = `for (let i = 0; i < ${LINES}; i++) log.info('line', { i });`;

const endings = [
  { what: 'the event loop empties', body: logLines, code: 0 },
  { what: 'process.exit', body: `${logLines}\nprocess.exit(3);`, code: 3 },
  { what: 'an uncaught exception', body: `${logLines}\nsetImmediate(() => { throw new Error('boom'); });`, code: 1 },
  { what: 'a SIGTERM handler that exits', body: `process.on('SIGTERM', () => process.exit(0));\n${logLines}\nprocess.kill(process.pid, 'SIGTERM');\nsetTimeout(() => {}, 5000);`, code: 0 },
];

for (const ending of endings) {
  test(`log lines still pending when ${ending.what} are all written`, async () => {
    const { lines, code } = await runLogging(ending.body, join(tempDir(), 'out.log'));
    assert.is(code, ending.code);
    assert.is(lines.length, LINES);
    assert.equal(lines.map((line) => JSON.parse(line).i), Array.from({ length: LINES }, (_, i) => i));
  });
}

test('a warning or an error is written at once, with the lines before it, not after the batch window', async () => {
  // The event loop is blocked right after the error: a line still waiting for the
  // window's timer would never be written before SIGKILL.
  const file = join(tempDir(), 'out.log');
  const out = openSync(file, 'w');
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { createLogger } from ${JSON.stringify(LOG_MODULE)};\nconst log = createLogger({});\nlog.info('before');\nlog.error('failed', { n: 1 });\nAtomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10000);`,
    ],
    { stdio: ['ignore', out, 'ignore'] },
  );
  closeSync(out);
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const until = Date.now() + 5000;
  let text = '';
  while (Date.now() < until && !text.includes('"failed"')) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    text = readFileSync(file, 'utf8');
  }
  child.kill('SIGKILL');
  await exited;
  assert.equal(
    text.split('\n').filter(Boolean).map((line) => JSON.parse(line).msg),
    ['before', 'failed'],
  );
});

test('the request log of a service stopped by SIGTERM holds a line for every request answered', async () => {
  const dir = tempDir();
  const logFile = join(dir, 'imghost.log');
  const out = openSync(logFile, 'a');
  const child = spawn(process.execPath, [IMGHOST], {
    env: { ...process.env, HOST: '127.0.0.1', IMGHOST_PORT: '0', DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'info' },
    stdio: ['ignore', out, 'pipe'],
  });
  closeSync(out);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let url: string | undefined;
  const until = Date.now() + 20_000;
  while (url === undefined) {
    if (Date.now() > until) throw new Error('image host did not start: ' + stderr);
    await new Promise((resolve) => setTimeout(resolve, 50));
    url = /"msg":"image host listening".*?"url":"([^"]+)"/.exec(readFileSync(logFile, 'utf8'))?.[1];
  }
  const ids: string[] = [];
  for (let round = 0; round < 20; round++) {
    const answers = await Promise.all(Array.from({ length: 10 }, () => fetch(url + '/healthz')));
    for (const answer of answers) {
      assert.is(answer.status, 200);
      ids.push(answer.headers.get('x-request-id')!);
      await answer.arrayBuffer();
    }
  }
  // At once: the last lines are still in the batch window.
  child.kill('SIGTERM');
  assert.is(await exited, 0);
  const entries = readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  const logged = entries.filter((entry) => entry.msg === 'request').map((entry) => entry.requestId);
  assert.equal(logged.sort(), [...ids].sort());
  assert.is(entries.at(-1)!.msg, 'stopped');
});


test('lines are written whole and in order as UTF-8, a line longer than the batch among them', async () => {
  // The batch holds bytes: every character may take up to three of them, and a line
  // that cannot fit in a whole batch goes out on its own, after the ones before it.
  const body = [
    `log.info('a', { text: '插件 ünïcode \\u{1F600}' });`,
    `log.info('lone', { text: '\\uD800' });`,
    `log.info('long', { text: 'x'.repeat(300000) });`,
    `for (let i = 0; i < 2000; i++) log.info('filler', { i, text: '汉'.repeat(40) });`,
    `log.info('last');`,
  ].join('\n');
  const { lines, code } = await runLogging(body, join(tempDir(), 'out.log'));
  assert.is(code, 0);
  const parsed = lines.map((line) => JSON.parse(line));
  assert.is(parsed.length, 2004);
  assert.is(parsed[0].text, '插件 ünïcode \u{1F600}');
  // JSON.stringify escapes a lone surrogate (\ud800): it comes back as it went in.
  assert.is(parsed[1].text, '\uD800');
  assert.is(parsed[2].text.length, 300000);
  assert.equal(parsed.slice(3, 2003).map((line) => line.i), Array.from({ length: 2000 }, (_, i) => i));
  assert.is(parsed[2003].msg, 'last');
});

test('lines written as bytes (lineWriter) go through the batch whole and in order with the string lines, across many batches', async () => {
  // Each byte line carries a non-ASCII member, so its bytes and its characters differ;
  // 6,000 of about 200 bytes fill several 256 KiB batches.
  const body = [
    `const write = log.lineWriter('info', 'request');`,
    `const member = (i) => Buffer.from('"i":' + i + ',"path":"/插件/' + i + '","pad":"' + 'é'.repeat(40) + '"}\\n');`,
    `const fill = (target, at, i) => { const bytes = member(i); target.set(bytes, at); return at + bytes.length; };`,
    `for (let i = 0; i < 6000; i++) {`,
    `  write(fill, i, member(i).length, performance.now());`,
    `  if (i % 1000 === 999) log.info('string line', { after: i });`,
    `}`,
    `write(fill, 6000, 1024, performance.now());`,
  ].join('\n');
  const { lines, code } = await runLogging(body, join(tempDir(), 'out.log'));
  assert.is(code, 0);
  const parsed = lines.map((line) => JSON.parse(line));
  assert.is(parsed.length, 6001 + 6);
  const requests = parsed.filter((line) => line.msg === 'request');
  assert.equal(requests.map((line) => line.i), Array.from({ length: 6001 }, (_, i) => i));
  assert.ok(requests.every((line) => line.path === '/插件/' + line.i && line.pad === 'é'.repeat(40) && line.service === 't'));
  // Each string line comes right after the byte line it followed.
  const strings = parsed.flatMap((line, index) => (line.msg === 'string line' ? [[line.after, parsed[index - 1].i]] : []));
  assert.equal(strings, [999, 1999, 2999, 3999, 4999, 5999].map((after) => [after, after]));
});

test.run();
