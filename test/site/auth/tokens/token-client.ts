// A JSON client of the site for token tests: a request carries a session cookie,
// an API token (Authorization: Bearer), both, or neither. Each answer is checked
// against the site's OpenAPI document.
import type { Sql } from '../../../../src/db/pool.js';
import { SITE_OPENAPI } from '../../../../src/services/site/openapi/document.js';
import { assertDocumented } from '../../../helpers/openapi.js';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export interface Caller {
  cookie?: string;
  token?: string;
  /** Extra headers, e.g. Origin. */
  headers?: Record<string, string>;
}

export function tokenClient(baseUrl: string) {
  /** `raw`: the body's exact text, sent as it is (with the caller's content-type, if any). */
  return async (method: string, path: string, caller: Caller = {}, body?: unknown, raw?: string): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    Object.assign(headers, caller.headers);
    if (caller.cookie) headers.cookie = caller.cookie;
    if (caller.token !== undefined) headers.authorization = `Bearer ${caller.token}`;
    const text = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    const response = await fetch(baseUrl + path, { method, headers, body: text });
    const answerText = await response.text();
    // Every answer these tests see must be one /openapi.json describes.
    assertDocumented(SITE_OPENAPI, method, path, response.status, response.headers.get('content-type'), answerText);
    let parsed: unknown = answerText;
    try {
      parsed = JSON.parse(answerText);
    } catch {
      // not JSON: the assertion on it will show the text
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
}

export type TokenClient = ReturnType<typeof tokenClient>;

/** Creates a token as the session `cookie`; answers the secret (throws unless 201). */
export async function newToken(request: TokenClient, cookie: string, fields: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const answer = await request('POST', '/apps/api/tokens', { cookie }, { name: 'ci', scopes: ['plugins:write'], ...fields });
  if (answer.status !== 201) throw new Error(`creating a token: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { id: answer.body.token.id, secret: answer.body.secret };
}

/** Makes the token expired, as if its lifetime had passed. */
export async function expireToken(sql: Sql, id: string): Promise<void> {
  await sql`update api_tokens set expires_at = now() - interval '1 second' where id = ${id}`;
}
