// A small client of the store API for tests: users with sessions, JSON requests
// with an optional client address (the test site trusts X-Forwarded-For).
import type { Sql } from '../../../src/db/pool.js';
import { testSessionCookie } from '../../helpers/fake-idp.js';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export interface RequestOptions {
  cookie?: string;
  body?: unknown;
  /** Sent as X-Forwarded-For: the client address under TRUST_PROXY=true. */
  ip?: string;
}

export function storeClient(baseUrl: string) {
  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (options.cookie) headers.cookie = options.cookie;
    if (options.ip) headers['x-forwarded-for'] = options.ip;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const response = await fetch(baseUrl + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
  return {
    request,
    get: (path: string, options?: RequestOptions) => request('GET', path, options),
    post: (path: string, body?: unknown, options?: RequestOptions) => request('POST', path, { ...options, body }),
    patch: (path: string, body: unknown, options?: RequestOptions) => request('PATCH', path, { ...options, body }),
  };
}

export type StoreClient = ReturnType<typeof storeClient>;

/** A valid new plugin with id `id`, fields overridable. */
export function newPlugin(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    name: `Plugin ${id}`,
    version: '1.0.0',
    author: 'Some Author',
    description: `The ${id} plugin`,
    download: `https://downloads.example.com/${id}.zip`,
    tags: ['tools'],
    ...fields,
  };
}

export interface Users {
  alice: string;
  bob: string;
  admin: string;
}

/** Session cookies of two ordinary users and an administrator. */
export async function storeUsers(sql: Sql, prefix = ''): Promise<Users> {
  return {
    alice: await testSessionCookie(sql, `${prefix}alice`),
    bob: await testSessionCookie(sql, `${prefix}bob`),
    admin: await testSessionCookie(sql, `${prefix}root`, { admin: true }),
  };
}

/** Creates a plugin as `cookie` and reviews it to `status` as `admin`. */
export async function pluginIn(
  client: StoreClient,
  users: Users,
  status: 'pending' | 'approved' | 'rejected',
  id: string,
  fields: Record<string, unknown> = {},
  owner = users.alice,
): Promise<any> {
  const created = await client.post('/apps/api/plugins', newPlugin(id, fields), { cookie: owner });
  if (created.status !== 201) throw new Error(`creating ${id}: ${created.status} ${JSON.stringify(created.body)}`);
  if (status === 'pending') return created.body.plugin;
  const action = status === 'approved' ? 'approve' : 'reject';
  const reviewed = await client.post(`/apps/api/plugins/${id}/review`, { action, reason: 'test' }, { cookie: users.admin });
  if (reviewed.status !== 200) throw new Error(`reviewing ${id}: ${reviewed.status} ${JSON.stringify(reviewed.body)}`);
  return reviewed.body.plugin;
}
