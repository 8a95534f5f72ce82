// The seed (scripts/seed-plugins.ts): deterministic, within every field rule (the
// database refuses anything else), star counts equal to the ratings, and what it
// writes is served by the site like anything else: pictures stored on the image
// host (never a broken one), install histories behind every chart. A fresh
// database has no plugins.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildCatalogue } from '../../scripts/seed/catalogue.js';
import { HISTORY_DAYS, HISTORY_ROW_BUDGET, historyWindow } from '../../scripts/seed/install-history.js';
import { drawPictures, PICTURE_COUNTS } from '../../scripts/seed/pictures.js';
import { pictureTarget, storePictures, type SeedPictures } from '../../scripts/seed/store-pictures.js';
import { TAGS } from '../../scripts/seed/vocabulary.js';
import { REBUILD_INDEXES_FROM, writeCatalogue } from '../../scripts/seed/write.js';
import { closeTestSql, startTestImghost, startTestSite, tempDir, testLogger, testSql } from '../helpers/servers.js';

const sql = testSql();
test.after(() => closeTestSql());

const NOW = Date.parse('2026-01-01T00:00:00Z');

test('a migrated database starts with no plugins (nothing seeds on its own)', async () => {
  const [{ count }] = await sql<Array<{ count: number }>>`select count(*)::integer as count from plugins`;
  assert.is(count, 0);
});

test('the same seed gives the same catalogue; another seed another one', () => {
  const a = buildCatalogue({ plugins: 200, ratings: 1000, seed: 7, now: NOW });
  const b = buildCatalogue({ plugins: 200, ratings: 1000, seed: 7, now: NOW });
  const c = buildCatalogue({ plugins: 200, ratings: 1000, seed: 8, now: NOW });
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  assert.not.equal(JSON.stringify(a.plugins.map((p) => p.id)), JSON.stringify(c.plugins.map((p) => p.id)));
});

test('the catalogue looks like a store: a vocabulary of a few hundred tags, unique ids, mixed statuses, heavy-tailed installs', () => {
  assert.ok(TAGS.length >= 200, `${TAGS.length} tags`);
  const { plugins, ratings } = buildCatalogue({ plugins: 2000, ratings: 10_000, seed: 1, now: NOW });
  assert.is(new Set(plugins.map((p) => p.id.toLowerCase())).size, 2000);
  const statuses = new Set(plugins.map((p) => p.status));
  assert.equal([...statuses].sort(), ['approved', 'pending', 'rejected']);
  assert.ok(new Set(plugins.flatMap((p) => p.tags)).size > 100);
  const installs = plugins.map((p) => p.installCount).sort((x, y) => x - y);
  assert.ok(installs[installs.length - 1]! > 50 * installs[1000]!, 'the most installed plugin dwarfs the median');
  assert.ok(Math.abs(ratings.length - 10_000) < 500, `${ratings.length} ratings`);
  assert.ok(ratings.every((r) => plugins[r.plugin]!.status === 'approved'), 'only approved plugins are rated');
});

test('writing a catalogue respects every constraint and keeps the star counts equal to the ratings', async () => {
  const catalogue = buildCatalogue({ plugins: 300, ratings: 3000, seed: 3, now: NOW });
  const counts = await writeCatalogue(sql, catalogue);
  assert.is(counts.plugins, 300);
  const [row] = await sql<Array<{ plugins: number; ratings: number; replies: number; mismatched: number }>>`
    select (select count(*)::integer from plugins) as plugins,
           (select count(*)::integer from plugin_ratings) as ratings,
           (select count(*)::integer from plugin_rating_replies) as replies,
           (select count(*)::integer from plugins p
             where p.rating_count <> (select count(*) from plugin_ratings r where r.plugin_id = p.id)
                or p.rating_sum <> (select coalesce(sum(stars), 0) from plugin_ratings r where r.plugin_id = p.id)) as mismatched`;
  assert.equal({ ...row }, { plugins: 300, ratings: catalogue.ratings.length, replies: catalogue.replies.length, mismatched: 0 });
  // The trigger is back on: a rating through SQL still moves the counts.
  const [{ enabled }] = await sql<Array<{ enabled: string }>>`
    select tgenabled as enabled from pg_trigger where tgname = 'plugin_ratings_count_stars'`;
  assert.is(enabled, 'O');
});

test('a second seed run adds to the catalogue without clashing ids or users', async () => {
  const taken = new Set((await sql<Array<{ id: string }>>`select lower(id) as id from plugins`).map((r) => r.id));
  const catalogue = buildCatalogue({ plugins: 100, ratings: 500, seed: 3, now: NOW, takenIds: taken });
  assert.ok(catalogue.plugins.every((p) => !taken.has(p.id.toLowerCase())));
  await writeCatalogue(sql, catalogue);
  const [{ count }] = await sql<Array<{ count: number }>>`select count(*)::integer as count from plugins`;
  assert.is(count, 400);
});

test('seeded plugins are served: list, detail, ratings page agree', async () => {
  const site = await startTestSite();
  try {
    const list = (await (await fetch(`${site.url}/apps/api/plugins?public=1&sort=installs&limit=5`)).json()) as {
      plugins: Array<{ id: string; ratingAvg: number; ratingCount: number }>;
    };
    assert.is(list.plugins.length, 5);
    const top = list.plugins[0]!;
    const ratings = (await (await fetch(`${site.url}/apps/api/plugins/${top.id}/ratings`)).json()) as { avg: number; count: number };
    assert.is(ratings.count, top.ratingCount);
    assert.is(ratings.avg, top.ratingAvg);
  } finally {
    await site.close();
  }
});

test('a large catalogue (indexes dropped and rebuilt) commits, with its indexes back, the generation trigger on, the store generation bumped once, and the derived tables filled', async () => {
  const generation = async () => BigInt((await sql`select generation::text as g from store_generation`)[0]!.g);
  const indexes = async () =>
    (await sql`select indexname from pg_indexes where tablename in ('plugins', 'plugin_ratings', 'plugin_search') order by 1`).map((row) => row.indexname);
  const before = { generation: await generation(), indexes: await indexes() };
  const taken = new Set((await sql<Array<{ id: string }>>`select lower(id) as id from plugins`).map((r) => r.id));
  const catalogue = buildCatalogue({ plugins: REBUILD_INDEXES_FROM, ratings: REBUILD_INDEXES_FROM, seed: 11, now: NOW, takenIds: taken });
  const counts = await writeCatalogue(sql, catalogue);
  assert.is(counts.plugins, REBUILD_INDEXES_FROM);
  assert.equal(await indexes(), before.indexes);
  assert.is(await generation(), before.generation + 1n);
  const [{ enabled }] = await sql<Array<{ enabled: string }>>`select tgenabled as enabled from pg_trigger where tgname = 'plugins_bump_generation'`;
  assert.is(enabled, 'O');
  // plugin_search (filled by its trigger) and plugin_tag_counts (sql/002) agree with plugins.
  const [row] = await sql<Array<{ plugins: number; searchable: number; tag_mismatches: number }>>`
    select (select count(*)::integer from plugins) as plugins,
           (select count(*)::integer from plugin_search s join plugins p using (id)) as searchable,
           (select count(*)::integer from (
              select tag, status, plugins from plugin_tag_counts where plugins > 0
              except
              select t.tag, p.status, count(*) from plugins p cross join unnest(p.tags_lower) as t (tag) group by 1, 2) as d) as tag_mismatches`;
  assert.equal({ ...row }, { plugins: row!.plugins, searchable: row!.plugins, tag_mismatches: 0 });
  // A change after the seed bumps the generation again (the trigger is back on).
  await sql`update plugins set name = 'Renamed after seeding' where id = ${catalogue.plugins[0]!.id}`;
  assert.is(await generation(), before.generation + 2n);
});

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

test('pictures: a few dozen drawn images, the same bytes for the same seed, of the sizes the pages show', async () => {
  const [a, b] = [await drawPictures(5), await drawPictures(5)];
  for (const kind of ['icons', 'screenshots', 'avatars'] as const) {
    assert.is(a[kind].length, PICTURE_COUNTS[kind]);
    assert.equal(a[kind].map(md5), b[kind].map(md5), `${kind}: not deterministic`);
    assert.is(new Set(a[kind].map(md5)).size, a[kind].length, `${kind}: two alike`);
  }
  const sizes = [
    { what: 'icon', bytes: a.icons[0]!, format: 'png', width: 128, height: 128 },
    { what: 'screenshot', bytes: a.screenshots[0]!, format: 'jpeg', width: 960, height: 540 },
    { what: 'avatar', bytes: a.avatars[0]!, format: 'png', width: 96, height: 96 },
  ];
  for (const { what, bytes, format, width, height } of sizes) {
    const meta = await sharp(bytes).metadata();
    assert.equal({ format: meta.format, width: meta.width, height: meta.height }, { format, width, height }, what);
  }
});

async function assertServed(base: string, pictures: SeedPictures, files: Awaited<ReturnType<typeof drawPictures>>): Promise<void> {
  for (const kind of ['icons', 'screenshots', 'avatars'] as const) {
    for (const [i, picture] of pictures[kind].entries()) {
      assert.match(picture.url, new RegExp(`^/img/\\d+/${md5(files[kind][i]!)}$`));
      assert.is(picture.webpUrl, picture.url + '.webp');
      const res = await fetch(base + picture.url);
      assert.is(res.status, 200, picture.url);
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(files[kind][i]!), `${picture.url}: other bytes`);
    }
  }
  const preview = await fetch(base + pictures.screenshots[0]!.webpUrl);
  assert.is(preview.status, 200);
  assert.is(preview.headers.get('content-type'), 'image/webp');
}

test('pictures go to a running image host through its upload API, with IMGHOST_UPLOAD_TOKEN', async () => {
  const imghost = await startTestImghost({ IMGHOST_UPLOAD_TOKEN: 'seed-secret' });
  try {
    const files = await drawPictures(6);
    const target = await pictureTarget(imghost.url, 'seed-secret', tempDir(), testLogger());
    assert.is(target.kind, 'upload');
    await assertServed(imghost.url, await storePictures(files, target), files);
    const refused = await pictureTarget(imghost.url, 'wrong', tempDir(), testLogger());
    const error = await storePictures(files, refused).then(() => null, (e: Error) => e);
    assert.match(String(error?.message), /IMGHOST_UPLOAD_TOKEN/);
  } finally {
    await imghost.close();
  }
});

test('without an image host answering, pictures go into its folder, and the image host started on it serves them', async () => {
  const dataDir = tempDir();
  const files = await drawPictures(7);
  const target = await pictureTarget('http://127.0.0.1:9', undefined, `${dataDir}/images`, testLogger());
  assert.is(target.kind, 'folder');
  const pictures = await storePictures(files, target);
  // A second run stores nothing new: the same bytes are the same files.
  assert.equal((await storePictures(files, target)).icons.map((p) => p.url.split('/')[3]), pictures.icons.map((p) => p.url.split('/')[3]));
  const imghost = await startTestImghost({ DATA_DIR: dataDir });
  try {
    await assertServed(imghost.url, pictures, files);
  } finally {
    await imghost.close();
  }
});

test('the seeded store shows no broken picture: every icon, screenshot and avatar is a stored one, named in-site, and the site leads to it', async () => {
  const imghost = await startTestImghost();
  const site = await startTestSite({ IMAGE_HOST_URL: imghost.url, IMAGE_HOST_PUBLIC_URL: imghost.url });
  try {
    const pictures = await storePictures(await drawPictures(8), await pictureTarget(imghost.url, undefined, tempDir(), testLogger()));
    const taken = new Set((await sql<Array<{ id: string }>>`select lower(id) as id from plugins`).map((r) => r.id));
    const catalogue = buildCatalogue({ plugins: 200, ratings: 1000, seed: 8, takenIds: taken, pictures });
    await writeCatalogue(sql, catalogue);
    const ids = catalogue.plugins.map((p) => p.id);
    const [row] = await sql<Array<{ icons: string[]; shots: string[]; avatars: string[]; with_icon: number }>>`
      select array(select distinct icon from plugins where id = any(${ids}) and icon is not null) as icons,
             array(select distinct coalesce(s ->> 'url', s #>> '{}') from plugins, jsonb_array_elements(screenshots) s where id = any(${ids})
                   union select distinct s ->> 'webpUrl' from plugins, jsonb_array_elements(screenshots) s where id = any(${ids}) and s ? 'webpUrl') as shots,
             array(select distinct avatar from users where provider_subject like 'seed:%' and avatar <> '') as avatars,
             (select count(*)::integer from plugins where id = any(${ids}) and icon is not null) as with_icon`;
    const stored = new Set([...pictures.icons, ...pictures.screenshots, ...pictures.avatars].flatMap((p) => [p.url, p.webpUrl]));
    assert.ok(row!.with_icon > 100, `${row!.with_icon} of 200 plugins have an icon`);
    assert.ok(row!.shots.length > 5 && row!.avatars.length > 5);
    for (const url of [...row!.icons, ...row!.shots, ...row!.avatars]) {
      assert.ok(stored.has(url), `${url} is not a stored picture`);
      const res = await fetch(site.url + url);
      assert.is(res.status, 200, `${url} through the site`);
      assert.match(String(res.headers.get('content-type')), /^image\//);
    }
  } finally {
    await site.close();
    await imghost.close();
  }
});

test('install histories: every approved plugin with installs has some, none beyond its install count or the window, none for the others; the chart has bars', async () => {
  const now = Date.now();
  const taken = new Set((await sql<Array<{ id: string }>>`select lower(id) as id from plugins`).map((r) => r.id));
  const catalogue = buildCatalogue({ plugins: 300, ratings: 1000, seed: 9, now, takenIds: taken });
  const counts = await writeCatalogue(sql, catalogue);
  assert.ok(counts.installDays > 300, `${counts.installDays} install days`);
  const ids = catalogue.plugins.map((p) => p.id);
  const [row] = await sql<Array<{ over: number; outside: number; hidden: number; without: number }>>`
    with sums as (select plugin_id, sum(installs) as installs, min(day) as first from plugin_install_days where plugin_id = any(${ids}) group by plugin_id)
    select (select count(*)::integer from sums join plugins p on p.id = sums.plugin_id where sums.installs > p.install_count) as over,
           (select count(*)::integer from plugin_install_days where plugin_id = any(${ids})
             and (day > (now() at time zone 'utc')::date or day <= (now() at time zone 'utc')::date - ${HISTORY_DAYS}::integer)) as outside,
           (select count(*)::integer from sums join plugins p on p.id = sums.plugin_id where p.status <> 'approved') as hidden,
           (select count(*)::integer from plugins p where p.id = any(${ids}) and p.status = 'approved' and p.install_count >= 50
             and p.created_at < now() - interval '30 days' and not exists (select 1 from sums where sums.plugin_id = p.id)) as without`;
  assert.equal({ ...row }, { over: 0, outside: 0, hidden: 0, without: 0 });
  const site = await startTestSite();
  try {
    const top = [...catalogue.plugins].filter((p) => p.status === 'approved').sort((a, b) => b.installCount - a.installCount)[0]!;
    for (const days of [30, 90, 365]) {
      const stats = (await (await fetch(`${site.url}/apps/api/plugins/${top.id}/stats?days=${days}`)).json()) as { days: Array<{ installs: number }>; total: number };
      assert.ok(stats.total > 0 && stats.days.filter((d) => d.installs > 0).length > days / 3, `${days} days: ${stats.total} installs`);
    }
  } finally {
    await site.close();
  }
});

test('install histories stay a bounded number of rows: a year for small catalogues, the chart\'s shortest window for 100,000 plugins', () => {
  const rows = [
    { approved: 0, days: 365 },
    { approved: 1000, days: 365 },
    { approved: 10_000, days: 40 },
    { approved: 100_000, days: 30 },
  ];
  for (const { approved, days } of rows) assert.is(historyWindow(approved), days, `${approved} plugins`);
  let count = 0;
  for (const _ of buildCatalogue({ plugins: 50_000, ratings: 0, seed: 2, allApproved: true }).installDays) count++;
  assert.is(count, HISTORY_ROW_BUDGET);
});

test.run();
