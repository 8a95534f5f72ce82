// Backup and restore as docs/operations.md tells operators to do it: an instance
// filled over HTTP (accounts logging in, plugins submitted and approved, hosted
// versions, ratings and replies, images), its database dumped with pg_dump and then
// its image host's data folder copied, both wiped, both restored, fresh services
// started: every answer and every file is the same, byte for byte.
//
// pg_dump is the WebAssembly build of pg_dump 18 from npm (test/helpers/pg-dump.ts
// says why); it writes plain SQL, restored by running it, where operators use
// -Fc and pg_restore. Either way the database gets the same rows.
import { createHash } from 'node:crypto';
import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import postgres from 'postgres';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate } from '../../src/db/migrate.js';
import { createPool, type Sql } from '../../src/db/pool.js';
import { createLocalAccount } from '../../src/services/site/auth/local-accounts.js';
import { makeJpeg, makePng } from '../fixtures/images/generate.js';
import { uploadThroughSite } from '../helpers/media.js';
import { dumpDatabase, restoreDump } from '../helpers/pg-dump.js';
import { startTestImghost, startTestSite, tempDir, testLogger, type TestServer } from '../helpers/servers.js';
import { newPlugin, storeClient } from '../site/store/store-client.js';
import { uploadVersion, zipOf } from '../site/store/versions/versions-client.js';

// The image host's public address stays the same across the restore (as a real
// one's does), while the test's image host listens on a new random port.
const IMAGES_PUBLIC = 'https://img.backup.test';
const PASSWORD = 'correct horse battery staple';

interface Instance {
  sql: Sql;
  imghost: TestServer;
  site: TestServer;
  close(): Promise<void>;
}

async function startInstance(databaseUrl: string, dataDir: string): Promise<Instance> {
  const sql = createPool(databaseUrl);
  const imghost = await startTestImghost({ DATA_DIR: dataDir });
  const site = await startTestSite({ IMAGE_HOST_URL: imghost.url, IMAGE_HOST_PUBLIC_URL: IMAGES_PUBLIC }, sql, { start: false });
  return {
    sql,
    imghost,
    site,
    close: async () => {
      await site.close();
      await imghost.close();
      await sql.end({ timeout: 2 });
    },
  };
}

/** Status, type and body bytes (a JSON body as text, to read in a failure; a file's SHA-256). */
async function fetched(url: string, cookie?: string): Promise<string> {
  const response = await fetch(url, { headers: cookie ? { cookie } : {} });
  const type = response.headers.get('content-type') ?? '';
  const body = Buffer.from(await response.arrayBuffer());
  const bytes = type.includes('json') ? body.toString('utf8') : `sha256 ${createHash('sha256').update(body).digest('hex')}`;
  return `${response.status} ${type} ${body.length} bytes: ${bytes}`;
}

async function logIn(siteUrl: string, username: string): Promise<string> {
  const response = await fetch(`${siteUrl}/apps/auth/password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
  assert.is(response.status, 200, await response.clone().text());
  return response.headers.getSetCookie().map((line) => line.split(';', 1)[0]).join('; ');
}

type Reader = 'visitor' | 'alice' | 'bob' | 'admin';

interface Filled {
  /** Site paths with whom to read them as. */
  reads: Array<[path: string, reader: Reader]>;
  /** The readers' session cookies (the sessions are backed up too). */
  cookies: Record<Reader, string | undefined>;
  /** Image host paths: every image, preview and package. */
  files: string[];
}

/** Fills the instance as its users would, over HTTP. */
async function fill(instance: Instance): Promise<Filled> {
  const { site, sql } = instance;
  const client = storeClient(site.url);
  for (const username of ['bk-alice', 'bk-bob', 'bk-carol']) await createLocalAccount(sql, { username, password: PASSWORD });
  await createLocalAccount(sql, { username: 'bk-admin', password: PASSWORD, admin: true });
  const [alice, bob, carol, admin] = await Promise.all(['bk-alice', 'bk-bob', 'bk-carol', 'bk-admin'].map((name) => logIn(site.url, name)));

  const images: string[] = [];
  const upload = async (bytes: Buffer, name: string) => {
    const answer = await uploadThroughSite(site.url, alice, bytes, name);
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    images.push(new URL(answer.body.data.url).pathname, new URL(answer.body.data.webpUrl).pathname);
    return answer.body.data as { url: string; webpUrl: string };
  };
  const icon = await upload(await makePng(1), 'icon.png');
  const shot = await upload(await makeJpeg(2, 320, 200), 'shot.jpg');

  const plugins = ['bk-minimap', 'bk-chat', 'bk-pending'];
  for (const id of plugins) {
    const fields = { icon: icon.url, screenshots: [{ url: shot.url, webpUrl: shot.webpUrl }], description: `# ${id}\n\nBacked up and **restored**.` };
    const created = await client.post('/apps/api/plugins', newPlugin(id, fields), { cookie: alice });
    assert.is(created.status, 201, JSON.stringify(created.body));
    if (id === 'bk-pending') continue;
    assert.is((await client.post(`/apps/api/plugins/${id}/review`, { action: 'approve' }, { cookie: admin })).status, 200);
  }

  const packages: string[] = [];
  for (const [id, version] of [['bk-minimap', '1.1.0'], ['bk-minimap', '1.2.0'], ['bk-chat', '2.0.0']] as const) {
    const zip = zipOf({ 'plugin.json': JSON.stringify({ id, name: id, version }), 'main.py': `print(${JSON.stringify(version)})` });
    const answer = await uploadVersion(site.url, id, { zip, version, changelog: `## ${version}\n- better` }, { cookie: alice });
    assert.is(answer.status, 201, JSON.stringify(answer.body));
    packages.push(new URL(answer.body.version.download).pathname);
    const record = (await client.get(`/apps/api/plugins/${id}`, { cookie: admin })).body.plugin;
    const approved = await client.post(`/apps/api/plugins/${id}/review`, { action: 'approve', revision: record.revision }, { cookie: admin });
    assert.is(approved.status, 200, JSON.stringify(approved.body));
  }

  for (const [cookie, stars, comment] of [[bob, 5, 'Works well'], [carol, 3, 'Fine']] as const) {
    for (const id of ['bk-minimap', 'bk-chat']) {
      const rated = await client.request('PUT', `/apps/api/plugins/${id}/ratings`, { cookie, body: { stars, comment } });
      assert.is(rated.status, 200, JSON.stringify(rated.body));
    }
  }
  const replied = await client.post('/apps/api/plugins/bk-minimap/ratings/bk-carol/replies', { body: 'Thanks, fixed in 1.2.0' }, { cookie: alice });
  assert.is(replied.status, 201, JSON.stringify(replied.body));

  const reads: Filled['reads'] = [
    ['/apps/api/plugins?limit=50', 'visitor'],
    ['/apps/api/plugins?q=minimap', 'visitor'],
    ['/apps/api/me', 'bob'],
    ['/apps/api/plugins/bk-pending', 'admin'],
    ['/apps/api/plugins/bk-pending', 'alice'],
  ];
  for (const id of ['bk-minimap', 'bk-chat']) {
    for (const path of ['', '/versions', '/ratings', '/install-link', '/manifest.json']) reads.push([`/apps/api/plugins/${id}${path}`, 'visitor']);
    reads.push([`/apps/api/plugins/${id}/ratings`, 'bob'], [`/apps/api/plugins/${id}`, 'admin']);
  }
  reads.push(['/apps/api/plugins/bk-minimap/versions/1.1.0', 'visitor'], ['/apps/api/plugins/bk-chat/versions/2.0.0', 'visitor']);
  return { reads, cookies: { visitor: undefined, alice, bob, admin }, files: [...images, ...packages] };
}

async function snapshot(instance: Instance, filled: Filled): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  for (const [path, reader] of filled.reads) answers.set(`site ${path} as ${reader}`, await fetched(instance.site.url + path, filled.cookies[reader]));
  for (const path of filled.files) answers.set(`image host ${path}`, await fetched(instance.imghost.url + path));
  return answers;
}

test('an instance backed up (database, then files), wiped and restored serves the same answers and files byte for byte', async () => {
  const admin = postgres(process.env.TEST_DB_URL!, { max: 1, onnotice: () => {} });
  const database = `${new URL(process.env.TEST_DB_URL!).pathname.slice(1)}_live`;
  const databaseUrl = Object.assign(new URL(process.env.TEST_DB_URL!), { pathname: `/${database}` }).href;
  const dataDir = join(tempDir('lw-backup-'), 'data');
  const backupDir = tempDir('lw-backup-copy-');
  let instance: Instance | undefined;
  try {
    await admin.unsafe(`create database ${database}`);
    const created = createPool(databaseUrl);
    assert.ok((await migrate(created, testLogger())) > 0, 'npm run migrate makes the schema');
    await created.end();
    instance = await startInstance(databaseUrl, dataDir);
    const filled = await fill(instance);
    const before = await snapshot(instance, filled);
    assert.ok([...before.values()].every((answer) => answer.startsWith('200 ')), [...before].filter(([, a]) => !a.startsWith('200 ')).map(([k, a]) => `${k}: ${a.slice(0, 200)}`).join('\n'));

    // The backup, while the services run: the database first, then the files.
    const dump = await dumpDatabase(databaseUrl);
    // An upload between the two: in the file copy, named by no row of the dump.
    const stray = await uploadThroughSite(instance.site.url, filled.cookies.alice, await makePng(99), 'late.png');
    assert.is(stray.status, 200, JSON.stringify(stray.body));
    await cp(dataDir, join(backupDir, 'data'), { recursive: true });

    // Lost: both services gone, the database dropped, the data folder deleted.
    await instance.close();
    instance = undefined;
    await admin.unsafe(`drop database ${database} with (force)`);
    await rm(dataDir, { recursive: true, force: true });

    // Restored: the files back, then the database, then the services.
    await cp(join(backupDir, 'data'), dataDir, { recursive: true });
    await admin.unsafe(`create database ${database}`);
    await restoreDump(databaseUrl, dump);
    const restored = createPool(databaseUrl);
    assert.is(await migrate(restored, testLogger()), 0, 'the migrations runner finds the schema current');
    await restored.end();
    instance = await startInstance(databaseUrl, dataDir);

    const after = await snapshot(instance, filled);
    for (const [what, answer] of before) assert.is(after.get(what), answer, what);
    const late = new URL(stray.body.data.url).pathname;
    assert.is((await fetch(instance.imghost.url + late)).status, 200, 'the stray file came back too, harmlessly');
  } finally {
    await instance?.close();
    await admin.unsafe(`drop database if exists ${database} with (force)`);
    await admin.end({ timeout: 2 });
    await rm(join(dataDir, '..'), { recursive: true, force: true });
    await rm(backupDir, { recursive: true, force: true });
  }
});

test.run();
