// LAUNCHER_CONFIG is re-read when it changes; a version that cannot be used is
// logged and the last good one stays in service (docs/api.md, "Launcher
// info"). The site here logs into an array, so a test can wait for the refusal
// itself instead of sleeping and hoping.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../../src/lib/log.js';
import { listen } from '../../../src/http/server.js';
import { createSite } from '../../../src/services/site/app.js';
import { MAX_CONFIG_BYTES } from '../../../src/services/site/launcher/config-source.js';
import { closeTestSql, tempDir, testConfig, testSql } from '../../helpers/servers.js';

/** Longer than the 2 s fallback poll plus a slow machine; reloads by fs.watch take ~0.1 s. */
const WAIT_MS = 6_000;

interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

interface Harness {
  url: string;
  file: string;
  logs: LogLine[];
  close(): Promise<void>;
}

async function startSite(file: string): Promise<Harness> {
  const logs: LogLine[] = [];
  const log = createLogger({}, { level: 'debug', write: (line) => logs.push(JSON.parse(line)) });
  const site = createSite({ config: testConfig({ LAUNCHER_CONFIG: file }), sql: testSql(), log });
  const server = await listen(site.handler, '127.0.0.1', 0);
  return {
    url: server.url,
    file,
    logs,
    close: async () => {
      await server.close(1000);
      await site.close();
    },
  };
}

async function withSite(initial: unknown, body: (h: Harness) => Promise<void>): Promise<void> {
  const file = join(tempDir(), 'launcher.json');
  if (initial !== undefined) writeFileSync(file, JSON.stringify(initial));
  const harness = await startSite(file);
  try {
    await body(harness);
  } finally {
    await harness.close();
  }
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function latest(h: Harness): Promise<unknown> {
  const res = await fetch(h.url + '/api/info');
  return res.status === 200 ? (await res.json()).latestVersion : `status ${res.status}`;
}

const servesVersion = (h: Harness, version: string) => async () => (await latest(h)) === version;

/** Waits for a new "refused" warning (one more than `before`). */
const refusedSince = (h: Harness, before: number) => () => refusals(h) > before;
const refusals = (h: Harness) => h.logs.filter((line) => line.level === 'warn' && /refused/.test(line.msg)).length;

function replaceByRename(file: string, content: string): void {
  const temp = file + '.tmp-' + process.pid;
  writeFileSync(temp, content);
  renameSync(temp, file);
}

test.after(async () => {
  await closeTestSql();
});

test('rewriting the file in place is picked up, with a new ETag', () =>
  withSite({ latestVersion: '1.0.0' }, async (h) => {
    const before = await fetch(h.url + '/api/info');
    const etag = before.headers.get('etag');
    await before.arrayBuffer();
    writeFileSync(h.file, JSON.stringify({ latestVersion: '1.0.1' }));
    await waitFor('1.0.1 served', servesVersion(h, '1.0.1'));
    const after = await fetch(h.url + '/api/info', { headers: { 'If-None-Match': etag! } });
    assert.is(after.status, 200, 'the old ETag no longer matches');
    assert.is.not(after.headers.get('etag'), etag);
    await after.arrayBuffer();
  }));

test('replacing the file by rename (editors, deploy tools) is picked up, repeatedly', () =>
  withSite({ latestVersion: '1.0.0' }, async (h) => {
    replaceByRename(h.file, JSON.stringify({ latestVersion: '2.0.0' }));
    await waitFor('2.0.0 served', servesVersion(h, '2.0.0'));
    // The watch is on the folder, so it survives the first replacement.
    replaceByRename(h.file, JSON.stringify({ latestVersion: '3.0.0' }));
    await waitFor('3.0.0 served', servesVersion(h, '3.0.0'));
  }));

test('a change to fastdownload alone keeps the info ETag (launchers keep their 304s)', () =>
  withSite({ latestVersion: '1.0.0' }, async (h) => {
    const before = await fetch(h.url + '/api/info');
    const etag = before.headers.get('etag');
    await before.arrayBuffer();
    replaceByRename(h.file, JSON.stringify({ latestVersion: '1.0.0', fastdownload: { enabled: true, versions: [] } }));
    await waitFor('fastdownload enabled', async () => (await (await fetch(h.url + '/api/fastdownload')).json()).enabled === true);
    const after = await fetch(h.url + '/api/info', { headers: { 'If-None-Match': etag! } });
    assert.is(after.status, 304);
  }));

test('a malformed rewrite keeps the last good version; a later good one is picked up', () =>
  withSite({ latestVersion: '1.0.0', fastdownload: { enabled: true, versions: [] } }, async (h) => {
    const before = refusals(h);
    writeFileSync(h.file, '{"latestVersion": "1.0.1", ');
    await waitFor('the refusal is logged', refusedSince(h, before));
    assert.is(await latest(h), '1.0.0');
    assert.is((await (await fetch(h.url + '/api/fastdownload')).json()).enabled, true);
    writeFileSync(h.file, JSON.stringify({ latestVersion: '1.0.2' }));
    await waitFor('1.0.2 served', servesVersion(h, '1.0.2'));
  }));

test('a non-object JSON file ([]) is refused and the last good version kept', () =>
  withSite({ latestVersion: '1.0.0' }, async (h) => {
    const before = refusals(h);
    replaceByRename(h.file, '[]');
    await waitFor('the refusal is logged', refusedSince(h, before));
    assert.is(await latest(h), '1.0.0');
  }));

test('an oversize file is refused and the last good version kept', () =>
  withSite({ latestVersion: '1.0.0' }, async (h) => {
    const before = refusals(h);
    const padding = 'x'.repeat(MAX_CONFIG_BYTES);
    replaceByRename(h.file, JSON.stringify({ latestVersion: '9.9.9', padding }));
    await waitFor('the refusal is logged', refusedSince(h, before));
    const warning = h.logs.filter((line) => /refused/.test(line.msg)).at(-1)!;
    assert.is(warning.limit, MAX_CONFIG_BYTES);
    assert.is(await latest(h), '1.0.0');
    replaceByRename(h.file, JSON.stringify({ latestVersion: '1.0.3' }));
    await waitFor('1.0.3 served', servesVersion(h, '1.0.3'));
  }));

test('a file exactly at the size limit is accepted', () =>
  withSite({ latestVersion: '1.0.0' }, async (h) => {
    const shell = JSON.stringify({ latestVersion: '4.0.0', padding: '' });
    replaceByRename(h.file, shell.replace('""', '"' + 'x'.repeat(MAX_CONFIG_BYTES - shell.length) + '"'));
    await waitFor('4.0.0 served', servesVersion(h, '4.0.0'));
  }));

test('deleting the file keeps the last good version in service', () =>
  withSite({ latestVersion: '1.0.0' }, async (h) => {
    renameSync(h.file, h.file + '.gone');
    await waitFor('the disappearance is logged', () => h.logs.some((line) => line.level === 'warn' && /gone/.test(line.msg)));
    assert.is(await latest(h), '1.0.0');
  }));

test('a file created after start is picked up', () =>
  withSite(undefined, async (h) => {
    assert.is(await latest(h), 'status 500');
    writeFileSync(h.file, JSON.stringify({ latestVersion: '5.0.0', fastdownload: { enabled: true, versions: [] } }));
    await waitFor('5.0.0 served', servesVersion(h, '5.0.0'));
    assert.is((await (await fetch(h.url + '/api/fastdownload')).json()).enabled, true);
  }));

test('regression: a config folder created after start is picked up by the stat fallback', async () => {
  // fs.watch cannot attach to a folder that does not exist: only the poll sees this.
  const folder = join(tempDir(), 'not-yet');
  const h = await startSite(join(folder, 'launcher.json'));
  try {
    assert.is(await latest(h), 'status 500');
    mkdirSync(folder);
    writeFileSync(h.file, JSON.stringify({ latestVersion: '6.0.0' }));
    await waitFor('6.0.0 served', servesVersion(h, '6.0.0'));
    // From then on the re-attached watch sees changes too.
    replaceByRename(h.file, JSON.stringify({ latestVersion: '6.0.1' }));
    await waitFor('6.0.1 served', servesVersion(h, '6.0.1'));
  } finally {
    await h.close();
  }
});

test('a burst of writes settles on the last one', () =>
  withSite({ latestVersion: '1.0.0' }, async (h) => {
    for (let i = 1; i <= 20; i++) writeFileSync(h.file, JSON.stringify({ latestVersion: `7.0.${i}` }));
    await waitFor('7.0.20 served', servesVersion(h, '7.0.20'));
  }));

test('saving identical bytes again keeps the ETag and rebuilds nothing', () =>
  withSite({ latestVersion: '1.0.0' }, async (h) => {
    const first = await fetch(h.url + '/api/info');
    const etag = first.headers.get('etag');
    await first.arrayBuffer();
    const loads = () => h.logs.filter((line) => line.msg === 'launcher config loaded').length;
    const unchanged = () => h.logs.filter((line) => line.msg.startsWith('launcher config unchanged')).length;
    assert.is(loads(), 1);
    replaceByRename(h.file, JSON.stringify({ latestVersion: '1.0.0' }));
    // Read and found the same, so the next save is a separate reload.
    await waitFor('the identical save read', () => unchanged() > 0);
    const again = await fetch(h.url + '/api/info');
    assert.is(again.headers.get('etag'), etag);
    await again.arrayBuffer();
    replaceByRename(h.file, JSON.stringify({ latestVersion: '1.0.1' }));
    await waitFor('1.0.1 served', servesVersion(h, '1.0.1'));
    assert.is(loads(), 2, 'the identical save was not a load');
  }));

test.run();
