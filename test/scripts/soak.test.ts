// scripts/soak.ts run for real for about 40 s at a low rate with one round of
// faults: it starts the built services, seeds, drives the mix, runs each fault
// and records its window, judges every condition (PASS or FAIL, exit 1 on a FAIL,
// 2 only when it could not run), finds every upload again, and writes its JSON
// and SVG. Whether the services pass the outage conditions is the soak's finding,
// not this test's: it checks that the soak measures and says so.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../src/lib/project-root.js';
import { tempDir } from '../helpers/servers.js';

const SCRIPT = join(projectRoot(), '.test-build', 'scripts', 'soak.js');
const CONDITIONS = [
  'no request outside a fault window fails',
  'no visitor read answered before a PostgreSQL outage fails during it',
  'no upload answered 2xx is lost',
];

function runSoak(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Result {
  settings: { rate: number; seconds: number; bucketSeconds: number; bucket: string };
  faults: Array<{ kind: string; start: number; end: number; what: string }>;
  faultErrors: string[];
  rows: Array<{ requests: number; errors: Record<string, number>; p99Ms: number; rssMiB: Record<string, number> }>;
  perKind: Record<string, { requests: number }>;
  uploads: { stored: number; lost: string[] };
  conditions: Array<{ name: string; pass: boolean; detail: string }>;
}

test('a 40-second soak with one round of faults measures, judges every condition and writes its JSON and picture', async () => {
  const out = tempDir('lw-soak-');
  const run = await runSoak({ SOAK_MINUTES: '0.67', SOAK_RATE: '15', SOAK_PLUGINS: '100', SOAK_GRACE_SECONDS: '3', SOAK_OUT: out });
  const log = run.stdout + run.stderr;
  assert.ok(run.code === 0 || run.code === 1, `exit ${run.code}\n${log}`);

  const result = JSON.parse(readFileSync(join(out, 'soak.json'), 'utf8')) as Result;
  assert.is(result.settings.seconds, 40);
  assert.equal(result.faultErrors, [], log);
  const bucket = result.settings.bucket === 's3rver';
  assert.ok(bucket || log.includes('bucket faults skipped: object storage not available'), log);
  assert.equal(result.faults.map((f) => f.kind), bucket ? ['postgres', 'imghost', 'bucket'] : ['postgres', 'imghost']);
  for (const fault of result.faults) assert.ok(fault.start > 0 && fault.end > fault.start, JSON.stringify(fault));

  // The fixed rate: 15 requests a second for 40 s (follow-ups such as a preview after an upload come on top).
  const requests = result.rows.reduce((sum, row) => sum + row.requests, 0);
  assert.ok(requests >= 560 && requests <= 700, `${requests} requests`);
  assert.ok(result.rows.length >= 9, `${result.rows.length} rows of ${result.settings.bucketSeconds} s`);
  for (const kind of ['info', 'list', 'detail', 'icon', 'updates']) assert.ok(result.perKind[kind]!.requests > 0, kind);
  const roles = Object.keys(result.rows[0]!.rssMiB);
  for (const role of ['site-1', 'site-2', 'imghost-1', 'imghost-2', 'postgres']) assert.ok(roles.includes(role), role);
  assert.ok(result.rows[0]!.rssMiB['site-1']! > 10, 'RSS is read from /proc');

  const names = result.conditions.map((c) => c.name);
  for (const name of [...CONDITIONS, 'RSS flat: site-1', 'RSS flat: imghost-2']) assert.ok(names.includes(name), name);
  for (const condition of result.conditions) assert.ok(log.includes(`${condition.pass ? 'PASS' : 'FAIL'}  ${condition.name}`), condition.name);
  assert.is(run.code, result.conditions.every((c) => c.pass) ? 0 : 1);
  // Seeded pictures (52) and packages (16) alone are over sixty files; none may be lost.
  assert.ok(result.uploads.stored > 60 && result.uploads.lost.length === 0, JSON.stringify(result.uploads));
  assert.ok(result.conditions.find((c) => c.name === 'no upload answered 2xx is lost')!.pass);

  const svg = readFileSync(join(out, 'soak.svg'), 'utf8');
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  // Each fault window is shaded in each of the three panels.
  assert.is(svg.match(/<rect [^>]*opacity="0\.7"><title>/g)?.length, 3 * result.faults.length);
  assert.is(svg.match(/<polyline /g)?.length, 2 + roles.length);
});

test.run();
