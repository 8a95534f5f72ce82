// What the soak's load reads and writes, made before it starts: the seed's
// catalogue (scripts/seed: plugins, ratings, replies, install histories, pictures
// stored through the image hosts), hosted package versions of the most installed
// plugins (ZIPs uploaded to the image hosts, the versions approved), visitors'
// accounts with sessions, and the plugins' authors' sessions.
import { createHash } from 'node:crypto';
import type { Logger } from '../../src/lib/log.js';
import type { Sql } from '../../src/db/pool.js';
import { createSession } from '../../src/services/site/auth/sessions.js';
import { storedZip } from '../bench/test-files.js';
import { buildCatalogue } from '../seed/catalogue.js';
import { drawPictures } from '../seed/pictures.js';
import { pictureTarget, storePictures } from '../seed/store-pictures.js';
import { writeCatalogue } from '../seed/write.js';

/** Where versions say their ZIP is (the column wants https); the soak fetches the path through its proxy. */
export const PUBLIC_IMAGE_HOST = 'https://img.soak.test';
const VERSIONS_EACH = 2;
/** Plugins with hosted versions and visitors' accounts, per request a second (40 and 120 at 100/s). */
const HOSTED_PER_RATE = 0.4;
const VISITORS_PER_RATE = 1.2;
export const PACKAGE_BYTES = 48 * 1024;
const ICONS = 60;

export interface StoredFile {
  /** Path on the image host. */
  path: string;
  sha256: string;
}

export interface HostedPlugin {
  id: string;
  authorCookie: string;
  versions: Array<{ version: string; path: string; sha256: string; bytes: Buffer }>;
}

export interface SoakData {
  /** Approved plugins, most installed first. */
  plugins: string[];
  tags: string[];
  searches: string[];
  icons: string[];
  images: Array<{ url: string; webpUrl: string }>;
  hosted: HostedPlugin[];
  visitorCookies: string[];
  /** What was stored before the load, re-fetched at the end with what it uploads. */
  stored: StoredFile[];
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A ZIP of one stored entry of random bytes (random: nothing to compress). */
export const packageZip = storedZip;

async function uploadPackage(imghost: string, name: string, zip: Buffer): Promise<{ path: string; sha256: string }> {
  const res = await fetch(`${imghost}/api/packages?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/zip' },
    body: new Uint8Array(zip),
  });
  const answer = (await res.json()) as { data?: { sha256: string; url: string } };
  if (res.status !== 201 || !answer.data) throw new Error(`seeding a package answered ${res.status}: ${JSON.stringify(answer)}`);
  return { path: new URL(answer.data.url, imghost).pathname, sha256: answer.data.sha256 };
}

export async function seedSoak(sql: Sql, imghost: string, options: { plugins: number; rate: number }, log: Logger): Promise<SoakData> {
  const { plugins, rate } = options;
  const drawn = await drawPictures(1);
  const target = await pictureTarget(imghost, undefined, '/nonexistent', log);
  if (target.kind !== 'upload') throw new Error(`the image hosts do not answer at ${imghost}`);
  const pictures = await storePictures(drawn, target);
  const catalogue = buildCatalogue({ plugins, ratings: plugins * 5, seed: 1, pictures });
  await writeCatalogue(sql, catalogue);

  const approved = await sql<Array<{ id: string; submitter: string }>>`
    select id, submitter_id::text as submitter from plugins where status = 'approved' order by install_count desc, id`;
  const hosted: HostedPlugin[] = [];
  const cookies = new Map<string, string>();
  for (const { id, submitter } of approved.slice(0, Math.max(8, Math.round(rate * HOSTED_PER_RATE)))) {
    if (!cookies.has(submitter)) cookies.set(submitter, `sid=${await createSession(sql, submitter)}`);
    const versions: HostedPlugin['versions'] = [];
    for (let v = 1; v <= VERSIONS_EACH; v++) {
      const version = `${v}.0.0-soak`;
      const bytes = packageZip(PACKAGE_BYTES);
      const stored = await uploadPackage(imghost, `${id}-${version}`, bytes);
      versions.push({ version, bytes, ...stored });
      await sql`
        insert into plugin_versions (plugin_id, version, changelog, sha256, size, download, entry_count, files, status, created_at)
        values (${id}, ${version}, ${`Soak version ${version}`}, ${stored.sha256}, ${bytes.length}, ${PUBLIC_IMAGE_HOST + stored.path}, 1, '[]',
                'approved', now() - interval '1 day' * ${VERSIONS_EACH - v})`;
    }
    hosted.push({ id, authorCookie: cookies.get(submitter)!, versions });
  }

  const visitorCookies: string[] = [];
  for (let i = 0; i < Math.max(30, Math.round(rate * VISITORS_PER_RATE)); i++) {
    const [user] = await sql<Array<{ id: string }>>`insert into users (username) values (${`soak-visitor-${i}`}) returning id::text as id`;
    visitorCookies.push(`sid=${await createSession(sql, user!.id)}`);
  }

  const iconList = (await (await fetch(`${imghost}/api/svg_files`)).json()) as string[];
  const tags = [...new Set(catalogue.plugins.flatMap((plugin) => plugin.tags))].slice(0, 80);
  // Words of plugin names, some with a letter dropped (the search is typo-tolerant).
  const words = [...new Set(catalogue.plugins.slice(0, 200).flatMap((plugin) => plugin.name.split(' ')).filter((word) => word.length > 4))];
  const searches = words.slice(0, 60).flatMap((word, i) => (i % 3 === 0 ? [word, word.slice(0, -2) + word.slice(-1)] : [word]));
  const all = [...pictures.icons, ...pictures.screenshots, ...pictures.avatars];
  const drawnAll = [...drawn.icons, ...drawn.screenshots, ...drawn.avatars];
  return {
    plugins: approved.map((row) => row.id),
    tags,
    searches,
    icons: iconList.slice(0, ICONS).map((name) => name.replace(/\.svg$/, '')),
    images: all,
    hosted,
    visitorCookies,
    stored: [
      ...all.map((picture, i) => ({ path: picture.url, sha256: sha256(drawnAll[i]!) })),
      ...hosted.flatMap((plugin) => plugin.versions.map(({ path, sha256 }) => ({ path, sha256 }))),
    ],
  };
}
