// `npm test`: one PostgreSQL for the run (embedded, or TEST_DATABASE_URL), a migrated
// template database, and a fresh copy of it for each test file. Each file runs in
// its own Node process (two at a time) so one file's servers, timers or crash
// cannot affect another. Ends with the line `N passed, N failed`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { createLogger } from '../src/lib/log.js';
import { EmbeddedPostgresError, StartAborted, startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import type { Sql } from '../src/db/pool.js';

const here = dirname(fileURLToPath(import.meta.url));
/** test/ in the checkout (this file runs from .test-build/test/). */
const sourceRoot = join(here, '..', '..', 'test');
const FILE_TIMEOUT_MS = 5 * 60_000;
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? 2);
const log = createLogger({ component: 'test-runner' }, { level: 'warn' });

interface FileResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  output: string;
  ms: number;
}

/**
 * The compiled test files whose source still exists: tsc never deletes output, so a
 * test renamed or removed would otherwise keep running from .test-build.
 */
function findTestFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) found.push(...findTestFiles(full));
    else if (entry.endsWith('.test.js') && existsSync(join(sourceRoot, relative(here, full)).replace(/\.js$/, '.ts'))) found.push(full);
  }
  return found.sort();
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = '/' + name;
  return parsed.href;
}

// With --coverage, each test process writes V8 coverage here and c8 reports it at
// the end, before the closing line (which must stay the last line printed).
const coverageDir = process.argv.includes('--coverage') ? join(tmpdir(), `launcher-web-coverage-${process.pid}`) : undefined;
const coverageEnv: Record<string, string> = coverageDir ? { NODE_V8_COVERAGE: coverageDir } : {};

function reportCoverage(): void {
  if (!coverageDir) return;
  const root = join(here, '..', '..');
  spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'c8', 'bin', 'c8.js'), 'report', '--temp-directory', coverageDir, '--reporter=text-summary',
      '--src', 'src', '--include', 'src/**', '--exclude-after-remap'],
    { cwd: root, stdio: 'inherit' },
  );
}

function runFile(file: string, databaseUrl: string): Promise<FileResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], {
      env: { ...process.env, ...coverageEnv, TEST_DB_URL: databaseUrl, NO_COLOR: '1', LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      output += `\n[runner] killed after ${FILE_TIMEOUT_MS / 1000} s\n`;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const count = (label: string) => Number(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(output)?.[1] ?? NaN);
      const total = count('Total');
      const passed = count('Passed');
      const skipped = count('Skipped') || 0;
      // uvu's Total counts the tests that ran: skipped ones are not in it.
      let failed = Number.isNaN(total) ? 1 : total - passed;
      // A crash after the summary, or a non-zero exit with every test passing, is still a failure.
      if (code !== 0 && failed === 0) failed = 1;
      resolve({ file, passed: Number.isNaN(passed) ? 0 : passed, failed, skipped, output, ms: Date.now() - started });
    });
  });
}

async function main() {
  const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const files = findTestFiles(here).filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));
  if (files.length === 0) {
    console.log('no test files matched');
    console.log('0 passed, 1 failed');
    process.exitCode = 1;
    return;
  }

  let embedded: EmbeddedDatabase | undefined;
  let scratch: string | undefined;
  let serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    scratch = await mkdtemp(join(tmpdir(), 'launcher-web-test-'));
    // mkdtemp makes 0700; as root, PostgreSQL runs as another user that must enter it.
    await chmod(scratch, 0o755);
    const startup = new AbortController();
    stopOnSignal(() => {
      startup.abort();
      return (embedded?.stop() ?? Promise.resolve()).then(() => rm(scratch!, { recursive: true, force: true }));
    });
    embedded = await startEmbeddedPostgres({ dir: join(scratch, 'pg'), log, ephemeral: true, signal: startup.signal });
    serverUrl = embedded.url;
  }
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} }) as unknown as Sql;
  const prefix = `lwt_${process.pid}`;
  const template = `${prefix}_template`;
  const created: string[] = [];
  const results: FileResult[] = [];
  try {
    await admin.unsafe(`create database ${template}`);
    created.push(template);
    const templateSql = postgres(withDatabase(serverUrl, template), { max: 1, onnotice: () => {} }) as unknown as Sql;
    await migrate(templateSql, log);
    await templateSql.end();

    const queue = files.map((file, index) => ({ file, db: `${prefix}_${index}` }));
    const worker = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        await admin.unsafe(`create database ${item.db} template ${template}`);
        created.push(item.db);
        const result = await runFile(item.file, withDatabase(serverUrl!, item.db));
        const name = relative(here, item.file);
        const skipped = result.skipped ? `, ${result.skipped} skipped` : '';
        process.stdout.write(`\n── ${name} (${result.ms} ms): ${result.passed} passed, ${result.failed} failed${skipped}\n`);
        if (result.failed > 0 || process.env.TEST_VERBOSE) process.stdout.write(result.output);
        // A file that skips tests says why in a line of its own (test/helpers/git-history.ts).
        else if (result.skipped) process.stdout.write(result.output.split('\n').filter((line) => line.startsWith('skipped: ')).map((line) => line + '\n').join(''));
        results.push(result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, files.length) }, worker));
  } finally {
    if (!embedded) {
      for (const name of created.reverse()) await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
    }
    await admin.end({ timeout: 2 });
    await embedded?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }

  const passed = results.reduce((sum, r) => sum + r.passed, 0);
  const failed = results.reduce((sum, r) => sum + r.failed, 0);
  const skipped = results.reduce((sum, r) => sum + r.skipped, 0);
  reportCoverage();
  if (coverageDir) await rm(coverageDir, { recursive: true, force: true });
  const failedFiles = results.filter((r) => r.failed > 0).map((r) => relative(here, r.file));
  if (failedFiles.length) console.log(`\nfailing files: ${failedFiles.join(', ')}`);
  console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  if (failed > 0) process.exitCode = 1;
}

/**
 * Ctrl-C stops the run's PostgreSQL (it runs in a session of its own, so the
 * terminal's signal does not reach it) and removes its folder, then exits 130.
 */
function stopOnSignal(stop: () => Promise<unknown>): void {
  let stopping = false;
  const handler = () => {
    if (stopping) return;
    stopping = true;
    console.log('\ninterrupted: stopping the test PostgreSQL');
    void stop().finally(() => process.exit(130));
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, handler);
}

// The exit code is set explicitly: nothing loaded on the way may turn a failing run
// into a passing one.
main().then(
  () => process.exit(process.exitCode ?? 0),
  (error) => {
    // Interrupted while PostgreSQL started: the signal handler stops it and exits.
    if (error instanceof StartAborted) return;
    // An embedded PostgreSQL that cannot start says why in one line.
    console.error(error instanceof EmbeddedPostgresError ? error.message : error);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
