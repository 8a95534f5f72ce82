import type { Sql } from '../../src/db/pool.js';
import type { Catalogue, SeedUser } from './catalogue.js';
import { insertRows, type Column } from './insert-rows.js';

// Writes a catalogue in one transaction: all of it or nothing.
//
// The ratings trigger (sql/003_ratings.sql) would update the plugin row once
// per rating: a million row versions, each re-indexed, for a million ratings. So the
// plugins arrive with their star counts already computed from the catalogue, the
// trigger is switched off while the ratings go in, and before commit one
// query checks that every plugin's counts equal a count of its ratings (the
// transaction fails otherwise). ALTER TABLE is transactional: no other session ever
// sees the trigger off; they wait for the table until commit instead.

/** Seed accounts are marked by this provider subject prefix, so a re-run finds its own users and never a real one. */
export const SEED_SUBJECT_PREFIX = 'seed:';

const columns = (spec: string): Column[] =>
  spec.split(',').map((pair) => {
    const [name, type] = pair.trim().split(' ');
    return { name: name!, type: type! };
  });

// The domains (plugin_id, plugin_tags...) check every value as it is cast into the column.
const PLUGIN_COLUMNS = columns(
  'id text, submitter_id bigint, name text, version text, author text, description text, long_description text, ' +
    'download text, sha256 text, url text, icon text, tags text[], permissions text[], screenshots jsonb, status text, ' +
    'featured boolean, install_count bigint, stars_1 integer, stars_2 integer, stars_3 integer, stars_4 integer, ' +
    'stars_5 integer, review_action text, review_reason text, reviewed_at timestamptz, created_at timestamptz, updated_at timestamptz',
);
const RATING_COLUMNS = columns('plugin_id text, user_id bigint, stars smallint, comment text, created_at timestamptz, updated_at timestamptz');
const REPLY_COLUMNS = columns('plugin_id text, rating_user_id bigint, user_id bigint, body text, created_at timestamptz');
const INSTALL_DAY_COLUMNS = columns('plugin_id text, day date, installs bigint');

export interface SeedCounts {
  /** Seconds per step, for the curious and for tuning. */
  seconds: Record<string, number>;
  plugins: number;
  ratings: number;
  replies: number;
  installDays: number;
  users: number;
}

export async function writeCatalogue(sql: Sql, catalogue: Catalogue): Promise<SeedCounts> {
  return (await sql.begin(async (txSql) => {
    const tx = txSql as unknown as Sql;
    const seconds: Record<string, number> = {};
    let mark = performance.now();
    const step = (name: string) => {
      const now = performance.now();
      seconds[name] = Math.round(now - mark) / 1000;
      mark = now;
    };
    // The pool bounds statements for requests (src/db/deadline.ts); a seed's are big.
    await tx.unsafe('set local statement_timeout = 0');
    // The store's generation (sql/008_generations.sql) is bumped by a deferred
    // row trigger: 100,000 trigger calls for one bump (about a tenth of the plugins'
    // time), and events pending at commit, which CREATE INDEX refuses. The seed turns it
    // off for its own statements and bumps the generation once itself, in the same
    // transaction, so readers see the new catalogue and the new number together.
    // The same for the visibility generation (sql/008), which plugins added move, and
    // the ratings generation (sql/008), which ratings and replies added move.
    // The package checks' trigger (sql/007) is off too: the catalogue's download links
    // are made up, and checks of them would only fill the log with unreachable hosts.
    await tx.unsafe('alter table plugins disable trigger plugins_bump_generation, disable trigger plugins_bump_visibility_rows, disable trigger plugins_align_package_check');
    await tx.unsafe('update store_generation set generation = generation + 1, visibility = visibility + 1, ratings = ratings + 1');
    const authorIds = await ensureUsers(tx, catalogue.authors);
    const raterIds = await ensureUsers(tx, catalogue.raters);
    step('users');

    const large = catalogue.plugins.length >= REBUILD_INDEXES_FROM;
    // plugin_search (sql/004) is filled by a trigger on plugins, row for row with them:
    // its full-text GIN index grown entry by entry cost more than everything else.
    const pluginIndexes = large ? [...await dropSecondaryIndexes(tx, 'plugins'), ...await dropSecondaryIndexes(tx, 'plugin_search')] : [];
    await insertRows(tx, 'plugins', PLUGIN_COLUMNS, (function* () {
      for (const p of catalogue.plugins) {
        yield [p.id, authorIds[p.submitter]!, p.name, p.version, p.author, p.description, p.longDescription, p.download,
          p.sha256, p.url, p.icon, p.tags, p.permissions, p.screenshots, p.status, p.featured, p.installCount,
          ...p.stars, p.review?.action ?? null, p.review?.reason ?? null, p.review?.at ?? null, p.createdAt, p.updatedAt];
      }
    })());
    step('plugins');
    await tx.unsafe('alter table plugins enable trigger plugins_bump_generation, enable trigger plugins_bump_visibility_rows, enable trigger plugins_align_package_check');
    await recreateIndexes(tx, pluginIndexes);
    step('plugin indexes');

    const ratingIndexes = large ? await dropSecondaryIndexes(tx, 'plugin_ratings') : [];
    await tx.unsafe('alter table plugin_ratings disable trigger plugin_ratings_count_stars, disable trigger plugin_ratings_bump_ratings');
    await insertRows(tx, 'plugin_ratings', RATING_COLUMNS, (function* () {
      for (const r of catalogue.ratings) {
        yield [catalogue.plugins[r.plugin]!.id, raterIds[r.rater]!, r.stars, r.comment, r.createdAt, r.updatedAt];
      }
    })());
    await tx.unsafe('alter table plugin_ratings enable trigger plugin_ratings_count_stars, enable trigger plugin_ratings_bump_ratings');
    step('ratings');
    await recreateIndexes(tx, ratingIndexes);
    step('rating indexes');

    await tx.unsafe('alter table plugin_rating_replies disable trigger plugin_rating_replies_bump_ratings');
    await insertRows(tx, 'plugin_rating_replies', REPLY_COLUMNS, (function* () {
      for (const r of catalogue.replies) {
        yield [catalogue.plugins[r.plugin]!.id, raterIds[r.rater]!, authorIds[r.author]!, r.body, r.createdAt];
      }
    })());
    await tx.unsafe('alter table plugin_rating_replies enable trigger plugin_rating_replies_bump_ratings');
    step('replies');

    const installDays = await insertRows(tx, 'plugin_install_days', INSTALL_DAY_COLUMNS, (function* () {
      for (const d of catalogue.installDays) yield [catalogue.plugins[d.plugin]!.id, d.day, d.installs];
    })());
    step('install days');

    const ids = catalogue.plugins.map((p) => p.id);
    const [mismatch] = await tx<Array<{ id: string }>>`
      select p.id
        from plugins p
        left join (select plugin_id, count(*) filter (where stars = 1) as s1, count(*) filter (where stars = 2) as s2,
                          count(*) filter (where stars = 3) as s3, count(*) filter (where stars = 4) as s4,
                          count(*) filter (where stars = 5) as s5
                     from plugin_ratings where plugin_id = any(${ids}) group by plugin_id) r on r.plugin_id = p.id
       where p.id = any(${ids})
         and (p.stars_1, p.stars_2, p.stars_3, p.stars_4, p.stars_5)
             is distinct from (coalesce(r.s1, 0)::integer, coalesce(r.s2, 0)::integer, coalesce(r.s3, 0)::integer,
                               coalesce(r.s4, 0)::integer, coalesce(r.s5, 0)::integer)
       limit 1`;
    if (mismatch) throw new Error(`seed: star counts of ${mismatch.id} disagree with its ratings`);
    step('check');
    return {
      seconds,
      plugins: catalogue.plugins.length,
      ratings: catalogue.ratings.length,
      replies: catalogue.replies.length,
      installDays,
      users: catalogue.authors.length + catalogue.raters.length,
    };
  })) as SeedCounts;
}

/**
 * Dropped and rebuilt around the inserts of a large seed: building a trigram GIN
 * index once over 100,000 rows is many times faster than growing it row by row.
 * The definitions are read from the database (pg_get_indexdef), so they stay those
 * of the migrations. Indexes behind constraints (primary key, unique) stay.
 */
export const REBUILD_INDEXES_FROM = 5000;

async function dropSecondaryIndexes(sql: Sql, table: string): Promise<string[]> {
  const indexes = await sql<Array<{ name: string; definition: string }>>`
    select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
      from pg_index i
     where i.indrelid = ${table}::regclass
       and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
       and not i.indisunique`;
  for (const index of indexes) await sql.unsafe(`drop index ${index.name}`);
  return indexes.map((index) => index.definition);
}

async function recreateIndexes(sql: Sql, definitions: string[]): Promise<void> {
  if (definitions.length === 0) return;
  await sql.unsafe(`set local maintenance_work_mem = '256MB'`);
  for (const definition of definitions) await sql.unsafe(definition);
}

/** Creates the seed accounts that do not exist yet; answers users.id per user, in order. */
async function ensureUsers(sql: Sql, users: SeedUser[]): Promise<string[]> {
  const subjects = users.map((user) => SEED_SUBJECT_PREFIX + user.username.toLowerCase());
  await sql`
    insert into users (provider_subject, username, avatar)
    select * from unnest(${subjects}::text[], ${users.map((u) => u.username)}::text[], ${users.map((u) => u.avatar)}::text[])
    on conflict do nothing`;
  const rows = await sql<Array<{ id: string; provider_subject: string }>>`
    select id::text as id, provider_subject from users where provider_subject = any(${subjects}::text[])`;
  const bySubject = new Map(rows.map((row) => [row.provider_subject, row.id]));
  return subjects.map((subject, index) => {
    const id = bySubject.get(subject);
    if (!id) throw new Error(`seed: the user name "${users[index]!.username}" belongs to an account the seed did not create; seed another database or pick another --seed`);
    return id;
  });
}
