// The npm-shipped Chromium unpacks safely when two test processes start at once (the
// runner runs two files in parallel): each launches a whole browser, one copy stays,
// no half-unpacked folder is left behind.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../helpers/servers.js';

const run = promisify(execFile);
const helper = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '..', 'helpers', 'chromium.js')).href;
const program = `const b = await (await import(process.argv[1])).launchChromium(); console.log(b.version()); await b.close();`;

let scratch: string | undefined;
test.after(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

test('chromium: two processes unpacking the npm-shipped Chromium at once both launch it, one copy stays', async () => {
  scratch = tempDir('lw-chromium-');
  const env = { ...process.env, TMPDIR: scratch, CHROMIUM_PATH: '' };
  const launched = await Promise.all(
    [1, 2].map(() => run(process.execPath, ['--input-type=module', '-e', program, helper], { env, timeout: 120_000 })),
  );
  for (const { stdout } of launched) assert.match(stdout, /^\d+\.\d+\.\d+\.\d+\n$/);
  const left = readdirSync(scratch);
  assert.is(left.length, 1, `left in the temp folder: ${left.join(', ')}`);
  assert.match(left[0]!, /^launcher-web-chromium-\d+\.\d+\.\d+$/);
  assert.ok(readdirSync(join(scratch, left[0]!)).includes('chromium'));
});

test.run();
