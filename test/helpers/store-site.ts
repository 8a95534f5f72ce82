// The store as its API tests start it, from a file's `test.before`: the file's
// database, a site (or two processes of it on that database), when asked an image
// host that the site uploads packages to, a store client of the first site, and
// three users named after the file's prefix: `<prefix>-author`, `<prefix>-other`
// and `<prefix>-admin`, an administrator. close() stops it all, for `test.after`.
import type { Sql } from '../../src/db/pool.js';
import { storeClient, type StoreClient } from '../site/store/store-client.js';
import { testUser, type TestUser } from './store-fixtures.js';
import { closeTestSql, startTestImghost, startTestSite, testSql, type TestServer } from './servers.js';

export interface StoreSiteOptions {
  /** Start an image host and point the site at it (IMAGE_HOST_URL, and IMAGE_HOST_PUBLIC_URL unless `settings` says otherwise). */
  imageHost?: boolean;
  /** The site's settings besides the image host's, as the environment gives them; they win over the image host's. */
  settings?: Record<string, string>;
  /** How many site processes on the database (and image host), all started before any test: 1 unless said. */
  sites?: number;
}

export interface StoreSite {
  sql: Sql;
  /** The first of `sites`, the one `client` talks to. */
  site: TestServer;
  sites: TestServer[];
  client: StoreClient;
  author: TestUser;
  other: TestUser;
  admin: TestUser;
  close(): Promise<void>;
}

/** A user's session, as the options of a store client's request. */
export const as = (user: TestUser) => ({ cookie: user.cookie });

export function startStoreSite(prefix: string, options: StoreSiteOptions & { imageHost: true }): Promise<StoreSite & { imghost: TestServer }>;
export function startStoreSite(prefix: string, options?: StoreSiteOptions): Promise<StoreSite>;
export async function startStoreSite(prefix: string, options: StoreSiteOptions = {}): Promise<StoreSite & { imghost?: TestServer }> {
  const sql = testSql();
  const imghost = options.imageHost ? await startTestImghost() : undefined;
  const settings = { ...(imghost ? { IMAGE_HOST_URL: imghost.url, IMAGE_HOST_PUBLIC_URL: imghost.url } : {}), ...options.settings };
  const sites: TestServer[] = [];
  for (let n = 0; n < (options.sites ?? 1); n++) sites.push(await startTestSite(settings));
  return {
    sql,
    imghost,
    site: sites[0]!,
    sites,
    client: storeClient(sites[0]!.url),
    author: await testUser(sql, `${prefix}-author`),
    other: await testUser(sql, `${prefix}-other`),
    admin: await testUser(sql, `${prefix}-admin`, { admin: true }),
    close: async () => {
      for (const site of [...sites].reverse()) await site.close();
      await imghost?.close();
      await closeTestSql();
    },
  };
}
