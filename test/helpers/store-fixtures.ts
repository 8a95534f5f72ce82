// Plugins, users and ratings written straight into the database, for tests that
// need a state the API cannot reach or need many rows fast (a rating on a pending
// plugin, fifty raters). Values follow the same rules as the API, since the
// database refuses anything else (sql/002_plugins.sql).
import type { Sql } from '../../src/db/pool.js';
import { testSessionCookie } from './fake-idp.js';

export interface TestUser {
  id: string;
  username: string;
  /** `sid=...`, for the Cookie header. */
  cookie: string;
}

/** A user with a live session; `avatar` is stored so answers can be checked for it. */
export async function testUser(sql: Sql, username: string, options: { admin?: boolean; avatar?: string } = {}): Promise<TestUser> {
  const cookie = await testSessionCookie(sql, username, options);
  const [row] = await sql<Array<{ id: string }>>`
    update users set avatar = ${options.avatar ?? `https://avatars.example/${username}.png`}
     where lower(username) = lower(${username}) returning id::text as id`;
  return { id: row!.id, username, cookie };
}

export type Status = 'pending' | 'approved' | 'rejected';

/** A plugin in `status` submitted by `submitter`, with fields overridable (snake_case columns). */
export async function insertPlugin(
  sql: Sql,
  id: string,
  submitter: TestUser,
  status: Status = 'approved',
  columns: Record<string, unknown> = {},
): Promise<void> {
  const row = {
    id,
    submitter_id: submitter.id,
    name: `Plugin ${id}`,
    version: '1.0.0',
    author: submitter.username,
    description: `The ${id} plugin`,
    download: `https://downloads.example.com/${id}.zip`,
    status,
    ...columns,
  };
  await sql`insert into plugins ${sql(row as never)}`;
}

/** A rating written directly (also on plugins that are not approved, which the API refuses). */
export async function insertRating(sql: Sql, pluginId: string, user: TestUser, stars: number, comment = ''): Promise<void> {
  await sql`insert into plugin_ratings (plugin_id, user_id, stars, comment) values (${pluginId}, ${user.id}, ${stars}, ${comment})`;
}

/** A reply by `author` to `rater`'s rating; answers its id. */
export async function insertReply(sql: Sql, pluginId: string, rater: TestUser, author: TestUser, body: string): Promise<number> {
  const [row] = await sql<Array<{ id: string }>>`
    insert into plugin_rating_replies (plugin_id, rating_user_id, user_id, body)
    values (${pluginId}, ${rater.id}, ${author.id}, ${body}) returning id::text as id`;
  return Number(row!.id);
}
