// An image host that keeps its files on disk never loads the S3 client or undici:
// loading them costs start-up time and memory, and their code, once run, makes
// Node's own per-request code slower in the whole process (measured 26 Nov 2026: git log -p docs/benchmarks.md).
import { execFileSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const APP = new URL('../../../src/services/imghost/app.js', import.meta.url).href;

test('importing the image host loads no module of undici; opening a bucket does', () => {
  const script = `
    const { createRequire } = await import('node:module');
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('undici')).length;
    await import(${JSON.stringify(APP)});
    const before = loaded();
    await import(${JSON.stringify(new URL('../../../src/services/imghost/storage/s3-client.js', import.meta.url).href)});
    console.log(JSON.stringify({ before, after: loaded() }));
  `;
  const { before, after } = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  assert.is(before, 0);
  assert.ok(after > 0, 'the check sees undici once it is loaded');
});

test.run();
