// Benchmark of the plugin store's reads on the built site (`node dist/site.js`, its
// request log written to a file) over a real PostgreSQL, beside a bare node:http
// server answering the same bytes, through the shared harness (scripts/bench/
// harness.ts: server pinned to core 0, autocannon with 50 connections pinned to
// core 1, median of 3 runs). Run after `npx tsc -p test/tsconfig.json`:
//
//   node .test-build/scripts/bench-store.js
//
// For each catalogue size (BENCH_SIZES, default "10000,100000" plugins, seeded by
// scripts/seed with 5 ratings per plugin on average; then every plugin is given to
// one author, 2% are made pending and 1% of the approved get a pending update) it
// measures, as a visitor, as that author (of all of them) and as an administrator:
//
//   GET /apps/api/plugins?public=1&limit=100          the store front
//   GET /apps/api/plugins?q=<typo of a real name>     ranked, typo-tolerant search
//   GET /apps/api/plugins?tag=<common tag>&sort=rating
//   GET /apps/api/plugins?sort=installs&offset=5000&limit=50
//   GET /apps/api/plugins/<id>?include=related        detail with related plugins
//   GET /apps/api/plugins/<id>/ratings                a ratings page of the most rated plugin
//   GET /apps/api/plugins?limit=100                   what a logged-in author or administrator lists
//   GET /apps/api/plugins?scope=mine&limit=100        the author's own
//   GET /apps/api/plugins?scope=admin&limit=100       the administrators' list, every status
//   GET /apps/api/plugins?scope=admin&status=pending  the administrators' pending plugins
//   GET /apps/api/plugins/<pending id>                a detail only its author and administrators see
//   GET /apps/api/plugins?scope=...&update=pending    the review queue of pending updates
//
// Visitors ask with `Accept-Encoding: identity` (the launcher); authors and
// administrators with what Chromium sends (`gzip, deflate, br, zstd`; BENCH_OWNER_ENCODING
// to change it), as the site's pages they use do, so their large answers go out
// Brotli-compressed on both sides.
// (BENCH_WHO, default "visitor,author,admin", picks whose rows run; BENCH_ROWS, texts
// separated by commas, only the rows whose label contains one of them). Answers are kept
// per store generation (src/services/site/kept-answers.ts: the visitors' shared, an
// author's or administrator's their own), so the load measures a kept answer; the
// "first after a change" column is the answer built afresh after the generation
// moved (median of 5), and "a write every N ms" one more run of ours while another
// connection moves the generation every BENCH_WRITE_MS (default 100; 0: no such
// run), so that the rebuilds' cost under load shows. It prints requests/s, p50 and
// p99 beside the plain reference's figures, the targets (p99 under 50 ms at 10,000 plugins; at most
// twice that at 100,000), and the EXPLAIN (ANALYZE, BUFFERS) plan of every query
// each request runs, flagging any sequential scan of a store table.
//
// PostgreSQL: BENCH_DATABASE_URL, a server URL on which the benchmark may create
// and drop its databases (e.g. Debian's PostgreSQL 15); else an embedded one in a
// temporary folder. PostgreSQL itself is not pinned: it shares the two cores.

import { join } from 'node:path';
import postgres from 'postgres';
import { loadSettings } from '../src/boot.js';
import { createLogger, silentLogger } from '../src/lib/log.js';
import { projectRoot } from '../src/lib/project-root.js';
import { listen } from '../src/http/server.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { createPool, type Sql } from '../src/db/pool.js';
import { createSite } from '../src/services/site/app.js';
import { createSession } from '../src/services/site/auth/sessions.js';
import { explain, recordingSql, type Plan } from './bench/explain.js';
import {
  benchDir, buildDist, captureAnswer, compare, CONNECTIONS, freePort, machineLoad, runLoad, RUN_SECONDS, RUNS, startPinned, startPlain,
  type Comparison, type RunFigures, type Server,
} from './bench/harness.js';
import { buildCatalogue, type Catalogue } from './seed/catalogue.js';
import { writeCatalogue } from './seed/write.js';

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map((size) => Number(size.trim()));
const RATINGS_PER_PLUGIN = 5;
const P99_TARGET_MS = 50;
/** At the largest size, p99 may be at most this many times the first size's. */
const GROWTH_TARGET = 2;
/**
 * What each side asks for, as its client does. Visitors: the launcher, asking for
 * no coding (and the figures before stay comparable). Authors and administrators
 * use the site's pages in a browser, which asks for every coding it has (this is
 * Chromium's header): ours answers its kept lists Brotli-compressed, made once per
 * answer and generation, and the plain reference repeats those bytes
 * (captureAnswer takes them as sent).
 */
const IDENTITY = { 'accept-encoding': 'identity' };
const BROWSER = { 'accept-encoding': process.env.BENCH_OWNER_ENCODING ?? 'gzip, deflate, br, zstd' };
const root = projectRoot();
const log = createLogger({ component: 'bench-store' }, { level: 'warn' });

type Who = 'visitor' | 'author' | 'admin';
const WHO = new Set((process.env.BENCH_WHO ?? 'visitor,author,admin').split(',').map((who) => who.trim()));
/** BENCH_ROWS: only the rows whose label contains one of these (comma-separated) texts; all when unset. */
const ROW_FILTER = (process.env.BENCH_ROWS ?? '').split(',').map((text) => text.trim()).filter(Boolean);
/** Plugins made pending (2%) and approved plugins given a pending update (1%), per 100. */
const PENDING_PERCENT = 2;
const PENDING_UPDATE_PERCENT = 1;
const FIRST_ANSWER_SAMPLES = 5;
/**
 * The run "under writes": one more run of ours while the generation moves every
 * this many ms (a stand-in for install clicks, ratings and edits), so every kept
 * answer is rebuilt that often under load. BENCH_WRITE_MS=0 leaves it out.
 */
const WRITE_EVERY_MS = Number(process.env.BENCH_WRITE_MS ?? 100);

interface Row {
  what: string;
  path: string;
  /** Who asks it, in the order measured. */
  who: Who[];
}

/** The requests measured, with values taken from the catalogue itself. */
function rowsFor(catalogue: Catalogue, pendingId: string): Row[] {
  const byInstalls = [...catalogue.plugins].sort((a, b) => b.installCount - a.installCount);
  const popular = byInstalls[0]!;
  const longest = popular.name.split(' ').reduce((a, b) => (b.length > a.length ? b : a));
  // One letter dropped near the end of its longest word: "Minimap" -> "Minimp".
  const typo = popular.name.replace(longest, longest.slice(0, -2) + longest.slice(-1)).toLowerCase();
  const tagCounts = new Map<string, number>();
  for (const plugin of catalogue.plugins) for (const tag of plugin.tags) tagCounts.set(tag.toLowerCase(), (tagCounts.get(tag.toLowerCase()) ?? 0) + 1);
  const commonTag = [...tagCounts].sort((a, b) => b[1] - a[1])[0]![0];
  const detail = byInstalls.slice(0, 100).reduce((a, b) => (b.tags.length > a.tags.length ? b : a));
  const mostRated = catalogue.plugins.reduce((a, b) => (total(b.stars) > total(a.stars) ? b : a));
  const all: Who[] = ['visitor', 'author', 'admin'];
  const rows: Row[] = [
    { what: 'list ?public=1&limit=100', path: '/apps/api/plugins?public=1&limit=100', who: ['visitor', 'author'] },
    { what: 'list ?limit=100', path: '/apps/api/plugins?limit=100', who: ['author', 'admin'] },
    { what: 'list ?scope=mine&limit=100', path: '/apps/api/plugins?scope=mine&limit=100', who: ['author'] },
    { what: 'list ?scope=admin&limit=100', path: '/apps/api/plugins?scope=admin&limit=100', who: ['admin'] },
    { what: 'list ?scope=admin&status=pending', path: '/apps/api/plugins?scope=admin&status=pending', who: ['admin'] },
    { what: `search ?q=${typo}`, path: `/apps/api/plugins?q=${encodeURIComponent(typo)}`, who: all },
    { what: `?tag=${commonTag}&sort=rating`, path: `/apps/api/plugins?tag=${encodeURIComponent(commonTag)}&sort=rating`, who: all },
    { what: '?sort=installs&offset=5000&limit=50', path: '/apps/api/plugins?sort=installs&offset=5000&limit=50', who: all },
    { what: `detail + related (${detail.tags.length} tags)`, path: `/apps/api/plugins/${detail.id}?include=related`, who: all },
    // Pending: only its author and administrators may see it (a visitor gets 404).
    { what: 'detail of a pending plugin', path: `/apps/api/plugins/${pendingId}`, who: ['author', 'admin'] },
    { what: 'review queue ?scope=mine&update=pending', path: '/apps/api/plugins?scope=mine&update=pending', who: ['author'] },
    { what: 'review queue ?scope=admin&update=pending', path: '/apps/api/plugins?scope=admin&update=pending', who: ['admin'] },
    { what: `ratings page (${total(mostRated.stars)} ratings)`, path: `/apps/api/plugins/${mostRated.id}/ratings`, who: all },
  ];
  return rows
    .filter((row) => ROW_FILTER.length === 0 || ROW_FILTER.some((text) => row.what.includes(text)))
    .map((row) => ({ ...row, who: row.who.filter((who) => WHO.has(who)) }))
    .filter((row) => row.who.length > 0);
}

/**
 * One author of every plugin (the issue's author of all of them), 2% of the plugins
 * pending, 1% of the approved with a pending update, and an administrator; answers
 * the author's and the administrator's users.id.
 */
async function shapeForOwners(sql: Sql, size: number): Promise<{ author: string; admin: string; pendingId: string }> {
  return sql.begin(async (tx) => {
    // Every row of the catalogue is rewritten: more than the pool's statement bound on a busy machine.
    await tx.unsafe('set local statement_timeout = 0');
    const [author] = await tx<Array<{ id: string }>>`select submitter_id::text as id from plugins order by id limit 1`;
    await tx`update plugins set submitter_id = ${author!.id}`;
    await tx`update plugins set status = 'pending' where id in (select id from plugins order by md5(id) limit ${Math.round((size * PENDING_PERCENT) / 100)})`;
    await tx`
      insert into plugin_pending_updates (plugin_id, changed, version, description, submitted_at)
      select id, array['description', 'version'], '9.9.9', 'An update waiting for review', now() - interval '1 minute' * row_number() over ()
        from (select id from plugins where status = 'approved' order by md5(id || 'update') limit ${Math.round((size * PENDING_UPDATE_PERCENT) / 100)}) as chosen`;
    const [admin] = await tx<Array<{ id: string }>>`
      insert into users (username, is_admin) values (${`bench-admin-${process.pid}`}, true) returning id::text as id`;
    const [pending] = await tx<Array<{ id: string }>>`select id from plugins where status = 'pending' order by id limit 1`;
    return { author: author!.id, admin: admin!.id, pendingId: pending!.id };
  });
}

function total(stars: readonly number[]): number {
  return stars.reduce((a, b) => a + b, 0);
}

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = '/' + name;
  return url.href;
}

/** Every query each row runs (asked by its first asker), explained, through the site mounted in this process. */
async function plansOf(sql: Sql, rows: Row[], headersOf: Record<Who, Record<string, string>>): Promise<Map<string, Plan[]>> {
  const recording = recordingSql(sql);
  const config = loadSettings({ HOST: '127.0.0.1', SITE_PORT: '0', DATA_DIR: join(root, 'data'), PUBLIC_URL: 'http://bench.test' });
  // No webhook worker: its polls would be recorded with the pages' queries.
  const site = createSite({ config, sql: recording.sql, log: silentLogger, webhooks: { start: false }, packageChecks: { start: false } });
  const server = await listen(site.handler, '127.0.0.1', 0);
  const plans = new Map<string, Plan[]>();
  try {
    for (const row of rows) {
      recording.take();
      const response = await fetch(server.url + row.path, { headers: headersOf[row.who[0]!] });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${row.path} answered ${response.status}`);
      const explained: Plan[] = [];
      for (const query of recording.take()) explained.push(await explain(sql, query));
      plans.set(`${row.what}, ${row.who[0]}`, explained);
    }
  } finally {
    await server.close(1000);
    await site.close();
  }
  return plans;
}

type Measured = (Comparison & { firstMs: number; underWrites: RunFigures | undefined }) | { what: string; failure: string };

interface SizeResult {
  size: number;
  seedSeconds: number;
  comparisons: Measured[];
  plans: Map<string, Plan[]>;
}

async function measureSize(serverUrl: string, size: number): Promise<SizeResult> {
  const name = `lw_bench_store_${size}_${process.pid}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(serverUrl, name);
  const sql = createPool(url);
  const servers: Server[] = [];
  try {
    await migrate(sql, log);
    const started = performance.now();
    const catalogue = buildCatalogue({ plugins: size, ratings: size * RATINGS_PER_PLUGIN, seed: 1, allApproved: true });
    await writeCatalogue(sql, catalogue);
    const owners = await shapeForOwners(sql, size);
    // VACUUM as well as ANALYZE, as autovacuum does some seconds after a bulk load:
    // left to autovacuum, it ran during the first row measured (its p99 read 2-4x the
    // same row measured later), and index-only scans need the visibility map it sets.
    // VACUUM cannot run in a transaction: its own connection, with no statement bound
    // (the pool's is for requests; 100,000 plugins take longer on a busy machine).
    const maintenance = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await maintenance.unsafe('set statement_timeout = 0');
      await maintenance.unsafe('vacuum (analyze)');
    } finally {
      await maintenance.end();
    }
    const seedSeconds = (performance.now() - started) / 1000;
    process.stdout.write(`${size} plugins seeded in ${seedSeconds.toFixed(1)} s (${catalogue.ratings.length} ratings)\n`);

    const rows = rowsFor(catalogue, owners.pendingId);
    const headersOf: Record<Who, Record<string, string>> = {
      visitor: IDENTITY,
      author: { ...BROWSER, cookie: `sid=${await createSession(sql, owners.author)}` },
      admin: { ...BROWSER, cookie: `sid=${await createSession(sql, owners.admin)}` },
    };
    const plans = await plansOf(sql, rows, headersOf);

    const dir = await benchDir('bench-store-');
    const port = await freePort();
    const site = await startPinned({
      name: 'site',
      args: [join(root, 'dist', 'site.js')],
      cwd: dir, // no stray .env
      port,
      logFile: join(dir, 'site.log'),
      readyPath: '/readyz',
      env: {
        HOST: '127.0.0.1',
        SITE_PORT: String(port),
        DATA_DIR: dir,
        DATABASE_URL: url,
        LAUNCHER_CONFIG: join(root, 'config', 'launcher.example.json'),
        LOG_LEVEL: 'info',
      },
    });
    servers.push(site);
    const comparisons: Measured[] = [];
    for (const row of rows) {
      for (const who of row.who) {
        const headers = headersOf[who];
        const what = `${row.what}, ${who}`;
        const firstMs = await firstAnswerMs(sql, site.origin + row.path, headers);
        // The plain reference only: here the target is the p99, and a third side would make the run half as long again.
        const plain = await startPlain(`plain-${comparisons.length}`, await captureAnswer(site.origin, row.path, headers), dir);
        try {
          const compared = await compare({ what, ours: site, plain, path: row.path, headers, target: 0 });
          const writes = WRITE_EVERY_MS > 0 ? await underWrites(sql, site, row.path, headers) : undefined;
          comparisons.push({ ...compared, firstMs, underWrites: writes });
        } catch (error) {
          // Answers other than 200 (a 503 when the database did not answer in time): a
          // finding to report, not a reason to lose the other rows.
          comparisons.push({ what, failure: error instanceof Error ? error.message : String(error) });
        } finally {
          await plain.stop();
        }
        process.stdout.write(`  measured ${what}\n`);
      }
    }
    return { size, seedSeconds, comparisons, plans };
  } finally {
    for (const server of servers) await server.stop();
    await sql.end({ timeout: 5 });
    await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end({ timeout: 5 });
  }
}

/** How long the answer takes when built afresh: the generation moved just before (median of a few). */
async function firstAnswerMs(sql: Sql, url: string, headers: Record<string, string>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < FIRST_ANSWER_SAMPLES; i++) {
    await sql`update store_generation set generation = generation + 1`;
    const started = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    times.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/**
 * One run of ours while the generation moves every WRITE_EVERY_MS (committed by
 * another connection, as another site process or a click would): each move makes
 * the next request of each question rebuild its answer, concurrent ones waiting on
 * that one build. Answers other than 200 fail the row.
 */
async function underWrites(sql: Sql, site: Server, path: string, headers: Record<string, string>): Promise<RunFigures> {
  let running = true;
  const writer = (async () => {
    while (running) {
      await sql`update store_generation set generation = generation + 1`;
      await new Promise((resolve) => setTimeout(resolve, WRITE_EVERY_MS));
    }
  })();
  try {
    const figures = await runLoad(site, path, RUN_SECONDS, headers, 200);
    if (figures.wrong > 0) throw new Error(`${path} under writes: ${figures.wrong} answers were not 200 (or failed)`);
    return figures;
  } finally {
    running = false;
    await writer;
  }
}

/** The figures and plans of one size, printed as soon as it is measured; `first` is the baseline size. */
function report(result: SizeResult, first: SizeResult): void {
  const line = (cells: Array<string | number>) => '| ' + cells.join(' | ') + ' |';
  const header = [
    'request', 'ours req/s', 'plain req/s', 'p50 ours/plain ms', 'p99 ours/plain ms', 'server CPU µs/req ours/plain',
    'first after a change, ms', `a write every ${WRITE_EVERY_MS} ms: req/s, p99 ms, CPU µs/req`, 'log lines/req', 'target',
  ];
  const rows = result.comparisons.map((c, index) => {
    if ('failure' in c) return line([c.what, 'FAILED', '', '', '', '', '', '', '', c.failure]);
    const baseline = first.comparisons[index];
    const base = baseline && !('failure' in baseline) ? baseline.ours.p99 : P99_TARGET_MS;
    const target = result === first
      ? `p99 < ${P99_TARGET_MS} ms ${c.ours.p99 < P99_TARGET_MS ? 'met' : 'MISSED'}`
      : `p99 ≤ ${GROWTH_TARGET}× the ${first.size} figure (${(GROWTH_TARGET * base).toFixed(0)} ms) ${c.ours.p99 <= GROWTH_TARGET * base ? 'met' : 'MISSED'}`;
    return line([
      c.what, c.ours.rps.toFixed(0), c.plain.rps.toFixed(0), `${c.ours.p50} / ${c.plain.p50}`, `${c.ours.p99} / ${c.plain.p99}`,
      `${c.ours.cpuUs.toFixed(0)} / ${c.plain.cpuUs.toFixed(0)}`, c.firstMs.toFixed(1),
      c.underWrites ? `${c.underWrites.rps.toFixed(0)}, ${c.underWrites.p99}, ${c.underWrites.cpuUs.toFixed(0)}` : '-',
      c.logLinesPerRequest.toFixed(2), target,
    ]);
  });
  process.stdout.write(
    `\n${result.size} approved plugins (seeded in ${result.seedSeconds.toFixed(1)} s)\n` +
      `node dist/site.js (request log to a file) and the plain node:http reference on core 0; autocannon on core 1, ${CONNECTIONS} connections, ` +
      `median of ${RUNS} runs of ${RUN_SECONDS} s; PostgreSQL unpinned; ${machineLoad()} at the end\n\n` +
      [line(header), line(header.map(() => '---')), ...rows].join('\n') + '\n',
  );
  process.stdout.write(`\n## Plans at ${result.size} plugins\n`);
  const scans: string[] = [];
  for (const [what, plans] of result.plans) {
    for (const plan of plans) {
      if (plan.seqScans.length) scans.push(`${what} (${plan.seqScans.join(', ')})`);
      const flag = plan.seqScans.length ? `  SEQUENTIAL SCAN of ${plan.seqScans.join(', ')}` : '  (indexes only)';
      process.stdout.write(`\n### ${what}: ${plan.title}${flag}\n${plan.plan}\n`);
    }
  }
  process.stdout.write(scans.length ? `\nsequential scans of store tables at ${result.size}: ${scans.join('; ')}\n` : `\nat ${result.size}, every plan reads the store tables through indexes\n`);
}

async function main(): Promise<void> {
  // BENCH_SKIP_BUILD=1 measures the dist/ already built (say, while a test run uses it).
  if (process.env.BENCH_SKIP_BUILD !== '1') buildDist();
  let embedded: EmbeddedDatabase | undefined;
  let serverUrl = process.env.BENCH_DATABASE_URL;
  if (!serverUrl) {
    embedded = await startEmbeddedPostgres({ dir: join(await benchDir('bench-store-pg-'), 'pg'), log, ephemeral: true });
    serverUrl = embedded.url;
  }
  try {
    let first: SizeResult | undefined;
    for (const size of SIZES) {
      const result = await measureSize(serverUrl, size);
      first ??= result;
      report(result, first);
    }
  } finally {
    await embedded?.stop();
  }
}

await main();
