// ICONS_DIR: third-party icons, broken files, the list following the folder, and a
// folder that cannot be read. Each server gets its own fixture folder.
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rawRequest } from '../../helpers/raw-http.js';
import { startTestImghost, tempDir, type TestServer } from '../../helpers/servers.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

function get(base: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return rawRequest(base, 'GET', path, { headers }).then((res) => ({ status: res.status, headers: res.headers, body: res.bytes, text: res.body }));
}

/** Polls until `check` passes; the catalog notices changes within ~100 ms (watch) or 2 s (poll). */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 6000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.unreachable(`timed out waiting for: ${what}`);
}

const FIXTURES: Record<string, string> = {
  'current.svg':
    '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2">' +
    '<path d="M4 4h16v16H4z"/><circle cx="12" cy="12" r="3" fill="currentColor"/></svg>',
  'explicit.svg':
    '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24">' +
    '<path fill="none" d="M0 0h24v24H0z"/><path fill="#123456" d="M2 2h20v20H2z"/><path fill="none" stroke="#abcdef" d="M4 12h16"/></svg>',
  'plain.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>',
  'wide_icon.v2.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20"/></svg>',
  'broken.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><path d="M0 0L24 24" </sv',
  'not-svg.svg': 'just some text, no markup',
  'huge.svg': '<svg xmlns="http://www.w3.org/2000/svg">' + '<!-- padding -->'.repeat(40_000) + '</svg>',
};

function fixtureFolder(): string {
  const dir = tempDir('lw-icons-');
  for (const [name, content] of Object.entries(FIXTURES)) writeFileSync(join(dir, name), content);
  // Not served: wrong extension, unsafe name, a folder, a symbolic link out of the folder.
  writeFileSync(join(dir, 'README.txt'), 'not an icon');
  writeFileSync(join(dir, 'bad name!.svg'), FIXTURES['plain.svg']!);
  mkdirSync(join(dir, 'folder.svg'));
  symlinkSync('/etc/passwd', join(dir, 'link.svg'));
  return dir;
}

let dir: string;
let server: TestServer;

test.before(async () => {
  dir = fixtureFolder();
  server = await startTestImghost({ ICONS_DIR: dir });
});

test.after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('ICONS_DIR: the list holds exactly the regular .svg files with safe names, sorted', async () => {
  const answer = await get(server.url, '/api/svg_files');
  assert.is(answer.status, 200);
  assert.equal(JSON.parse(answer.text), Object.keys(FIXTURES).sort());
});

test('ICONS_DIR: files that are not listed are not served (symlink, folder, bad name, other extension)', async () => {
  for (const path of ['/SF/link', '/SF/link.svg', '/SF/folder', '/SF/README.txt', '/SF/README', '/SF/bad%20name!']) {
    const answer = await get(server.url, path);
    assert.is(answer.status, 404, path);
    assert.is(answer.text, 'Icon not found');
    assert.not.match(answer.text, /root:/);
  }
});

test('ICONS_DIR: a currentColor icon takes the colour on stroke and fill, fill="none" stays', async () => {
  const answer = await get(server.url, '/SF/current?color=%23ff8800');
  assert.is(answer.status, 200);
  assert.match(answer.text, /stroke="#ff8800"/);
  assert.match(answer.text, /<circle[^>]*fill="#ff8800"/);
  assert.match(answer.text, /<svg[^>]*fill="none"/);
  assert.not.match(answer.text, /currentColor/i);
});

test('ICONS_DIR: explicit fill and stroke colours are replaced, fill="none" paths kept', async () => {
  const answer = await get(server.url, '/SF/explicit.svg?color=red');
  assert.is(answer.status, 200);
  assert.is((answer.text.match(/fill="none"/g) ?? []).length, 2);
  assert.match(answer.text, /<path fill="red" d="M2 2h20v20H2z"\/>/);
  assert.match(answer.text, /stroke="red"/);
  assert.not.match(answer.text, /#123456|#abcdef/);
});

test('ICONS_DIR: an icon relying on the default fill is recoloured, also as PNG', async () => {
  const svg = await get(server.url, '/SF/plain?color=blue');
  assert.match(svg.text, /<svg[^>]*fill="blue"/);
  const png = await get(server.url, '/SF/plain?png=true&size=32&color=blue');
  assert.is(png.status, 200);
  const stats = await sharp(png.body).stats();
  const [r, g, b] = stats.channels;
  assert.is(Math.round(r!.mean), 0);
  assert.is(Math.round(g!.mean), 0);
  assert.is(Math.round(b!.mean), 255);
});

test('ICONS_DIR: PNG size sets the width of a non-square icon; height follows', async () => {
  const answer = await get(server.url, '/SF/wide_icon.v2?png=1&size=200');
  assert.is(answer.status, 200);
  const meta = await sharp(answer.body).metadata();
  assert.is(meta.width, 200);
  assert.is(meta.height, 100);
});

test('ICONS_DIR: a broken SVG as PNG is 500 Error processing icon, as text', async () => {
  for (const query of ['png=true', 'png=true&size=64&color=red']) {
    const answer = await get(server.url, `/SF/broken?${query}`);
    assert.is(answer.status, 500);
    assert.match(String(answer.headers['content-type']), /^text\/plain/);
    assert.is(answer.text, 'Error processing icon');
    assert.is(answer.headers.etag, undefined);
  }
});

test('ICONS_DIR: a file that is not SVG, or too large, is 500 Error processing icon', async () => {
  for (const path of ['/SF/not-svg', '/SF/not-svg?png=true', '/SF/huge', '/SF/huge?png=true']) {
    const answer = await get(server.url, path);
    assert.is(answer.status, 500, path);
    assert.is(answer.text, 'Error processing icon');
  }
});

test('ICONS_DIR: the list and /SF follow files added, changed and removed', async () => {
  writeFileSync(join(dir, 'added.svg'), FIXTURES['current.svg']!);
  await eventually('added.svg listed', async () => JSON.parse((await get(server.url, '/api/svg_files')).text).includes('added.svg'));
  const added = await get(server.url, '/SF/added?color=red');
  assert.is(added.status, 200);
  assert.match(added.text, /stroke="red"/);

  // Replaced the way editors and deploys do it: a new file renamed over the old one.
  const before = await get(server.url, '/SF/added?color=red');
  writeFileSync(join(dir, '.tmp-added'), FIXTURES['plain.svg']!);
  renameSync(join(dir, '.tmp-added'), join(dir, 'added.svg'));
  await eventually('added.svg re-read', async () => (await get(server.url, '/SF/added?color=red')).headers.etag !== before.headers.etag);
  assert.match((await get(server.url, '/SF/added?color=red')).text, /<rect/);

  rmSync(join(dir, 'added.svg'));
  await eventually('added.svg gone', async () => !JSON.parse((await get(server.url, '/api/svg_files')).text).includes('added.svg'));
  assert.is((await get(server.url, '/SF/added')).status, 404);
  // The exact request answered (and remembered) before: forgotten with the folder change.
  assert.is((await get(server.url, '/SF/added?color=red')).status, 404);
});

test('ICONS_DIR removed after start: /api/svg_files 500 Unable to scan directory, then heals', async () => {
  const own = fixtureFolder();
  const host = await startTestImghost({ ICONS_DIR: own });
  try {
    assert.is((await get(host.url, '/SF/current')).status, 200);
    rmSync(own, { recursive: true, force: true });
    await eventually('list fails', async () => (await get(host.url, '/api/svg_files')).status === 500);
    const failed = await get(host.url, '/api/svg_files');
    assert.match(String(failed.headers['content-type']), /^text\/plain/);
    assert.is(failed.text, 'Unable to scan directory');
    assert.is((await get(host.url, '/SF/current')).status, 404);

    mkdirSync(own);
    writeFileSync(join(own, 'back.svg'), FIXTURES['plain.svg']!);
    await eventually('list back', async () => (await get(host.url, '/api/svg_files')).status === 200);
    assert.equal(JSON.parse((await get(host.url, '/api/svg_files')).text), ['back.svg']);
    assert.is((await get(host.url, '/SF/back')).status, 200);
  } finally {
    await host.close();
    rmSync(own, { recursive: true, force: true });
  }
});

test('ICONS_DIR missing at start: the service starts, the list is 500 Unable to scan directory', async () => {
  const host = await startTestImghost({ ICONS_DIR: join(tempDir(), 'does-not-exist') });
  try {
    const answer = await get(host.url, '/api/svg_files');
    assert.is(answer.status, 500);
    assert.is(answer.text, 'Unable to scan directory');
    assert.is((await get(host.url, '/SF/anything')).status, 404);
    assert.is((await get(host.url, '/healthz')).status, 200);
  } finally {
    await host.close();
  }
});

test.run();
