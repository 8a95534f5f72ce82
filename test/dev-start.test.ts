// `npm start` (src/dev.ts) prints both addresses once both services listen. The
// log gathers its lines for up to 100 ms before a write (lib/log.ts), so the
// start-up's lines used to come out after the addresses and around them; they are
// written first now, and the addresses end what a newcomer sees.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../src/lib/project-root.js';
import { tempDir } from './helpers/servers.js';

const DEV = fileURLToPath(new URL('../src/dev.js', import.meta.url));

test('npm start prints the addresses after the start-up log lines, then stops on SIGTERM', async () => {
  const child = spawn(process.execPath, [DEV], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: process.env.TEST_DB_URL,
      HOST: '127.0.0.1',
      SITE_PORT: '0',
      IMGHOST_PORT: '0',
      DATA_DIR: join(tempDir(), 'data'),
      LAUNCHER_CONFIG: join(projectRoot(), 'config', 'launcher.example.json'),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const until = Date.now() + 30_000;
  while (!out.includes('Ctrl-C stops both')) {
    if (Date.now() > until || child.exitCode !== null) throw new Error(`npm start did not print its addresses: ${out}${err}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGTERM');
  assert.is(await exited, 0, err);
  const banner = out.indexOf('\n  site:');
  assert.ok(banner > 0, out);
  const before = out.slice(0, banner).split('\n').filter(Boolean);
  assert.ok(before.some((line) => JSON.parse(line).msg === 'launcher config loaded'), out.slice(0, banner));
  assert.match(out.slice(banner), /site: {7}http:\/\/127\.0\.0\.1:\d+\n {2}image host: http:\/\/127\.0\.0\.1:\d+/);
});

test.run();
