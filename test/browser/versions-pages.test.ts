// Hosted versions in the pages (issue 19), in a real Chromium: the author uploads
// a ZIP on the edit page (a progress bar, then "pending"; a reused number and a
// bad ZIP said under their field, in English and in Chinese), My plugins shows the
// pending version, the administrator sees its hash, size, changelog, file list and
// its difference against the live version on the review page and approves it, and
// the plugin page lists it first in its Versions section with the live size beside
// the SHA-256. Every page axe-clean in English, Chinese and the dark theme, and no
// wider than the window at 390 px.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../src/db/pool.js';
import { launchChromium } from '../helpers/chromium.js';
import { axeViolations, openPageAs, startPagesSite, type PagesSite } from '../helpers/pages-site.js';
import { closeTestSql, testSql } from '../helpers/servers.js';
import { insertPlugin, testUser, type TestUser } from '../helpers/store-fixtures.js';
import { uploadVersion, zipOf } from '../site/store/versions/versions-client.js';

const WAIT = { timeout: 20_000 };
const ID = 'pv-tool';
let site: PagesSite;
let browser: Browser;
let sql: Sql;
let author: TestUser;
let admin: TestUser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

function pageAs(user: TestUser | null, locale = 'en-US'): Promise<Page> {
  return openPageAs(browser, site, user?.cookie ?? null, { contexts, problems }, locale);
}

/** axe-core (light, then dark theme), and no element wider than the window at 390 px. */
async function check(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const finding of await axeViolations(page)) problems.push(`axe ${name} ${scheme}: ${finding}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 390, height: 844 });
  const wide = await page.evaluate(() =>
    document.documentElement.scrollWidth <= 390
      ? []
      : [...document.querySelectorAll<HTMLElement>('body *')].filter((node) => node.getBoundingClientRect().right > 391).slice(0, 5).map((node) => `${node.tagName}#${node.id}.${node.className}`),
  );
  for (const node of wide) problems.push(`overflow ${name} at 390px: ${node}`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

const apiAs = async (user: TestUser, path: string, body?: unknown) => {
  const response = await fetch(site.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { cookie: user.cookie, 'content-type': 'application/json', origin: site.url },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};
const detail = async () => (await apiAs(admin, `/apps/api/plugins/${ID}`)).body.plugin;

const LIVE_FILES = { 'plugin.json': JSON.stringify({ id: ID, name: 'pv', version: '1.1.0' }), 'main.py': 'print(1)', 'old.txt': 'gone soon' };
const NEW_FILES = { 'plugin.json': JSON.stringify({ id: ID, name: 'pv', version: '1.2.0' }), 'main.py': 'print(2)', 'new.txt': 'hello' };

test.before(async () => {
  site = await startPagesSite();
  browser = await launchChromium();
  sql = testSql();
  author = await testUser(sql, 'pv-author');
  admin = await testUser(sql, 'admin', { admin: true });
  await insertPlugin(sql, ID, author, 'approved');
  // A hosted live version 1.1.0 to compare the next one with.
  const first = await uploadVersion(site.url, ID, { zip: zipOf(LIVE_FILES), version: '1.1.0', changelog: 'First hosted build' }, { cookie: author.cookie, origin: site.url });
  assert.is(first.status, 201, JSON.stringify(first.body));
  const approved = await apiAs(admin, `/apps/api/plugins/${ID}/review`, { action: 'approve', revision: (await detail()).revision });
  assert.is(approved.status, 200, JSON.stringify(approved.body));
});

test.after(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await site?.close();
  await closeTestSql();
});

test('the author uploads a ZIP on the edit page: progress shown, then the version is pending', async () => {
  const page = await pageAs(author);
  await page.goto(`${site.url}/apps/edit/${ID}`);
  await page.locator('#version-form').waitFor({ state: 'visible' });
  // Every time the progress bar is shown or hidden.
  await page.evaluate(() => {
    const bar = document.getElementById('v-progress')!;
    (window as any).progressShown = [];
    new MutationObserver(() => (window as any).progressShown.push(!bar.hidden)).observe(bar, { attributes: true, attributeFilter: ['hidden'] });
  });
  await page.setInputFiles('#v-file', { name: 'pv-tool.zip', mimeType: 'application/zip', buffer: zipOf(NEW_FILES) });
  await page.fill('#v-changelog', '## Fixes\n\n- **faster** start');
  await page.click('#v-send');
  await page.locator('#v-status[data-state="done"]').waitFor();
  // What happens next, said in words: the version's number is the package's.
  assert.match(String(await page.textContent('#v-status')), /^Version 1\.2\.0 uploaded\. Next, an administrator reviews it/);
  assert.equal(await page.evaluate(() => (window as any).progressShown), [true, false]);
  assert.is((await detail()).pendingUpdate.version, '1.2.0');

  // The same number again: said under the version field.
  await page.setInputFiles('#v-file', { name: 'pv-tool.zip', mimeType: 'application/zip', buffer: zipOf(NEW_FILES) });
  await page.click('#v-send');
  await page.locator('#v-status[data-state="error"]').waitFor();
  // The number comes from the package, so a used one is said at the file.
  assert.match(String(await page.textContent('#v-file-error')), /already has \(or had\) this version number/);
  assert.is(await page.getAttribute('#v-file', 'aria-invalid'), 'true');
  await check(page, 'edit');
});

test('a ZIP the store refuses is said under the file field, in Chinese', async () => {
  const page = await pageAs(author, 'zh-CN');
  await page.goto(`${site.url}/apps/edit/${ID}`);
  await page.locator('#version-form').waitFor({ state: 'visible' });
  await page.setInputFiles('#v-file', { name: 'broken.zip', mimeType: 'application/zip', buffer: Buffer.from('not a zip at all, only text') });
  await page.click('#v-send');
  await page.locator('#v-status[data-state="error"]').waitFor();
  assert.match(String(await page.textContent('#v-file-error')), /^无法接受这个 ZIP：./);
  assert.not.match(String(await page.textContent('#v-file-error')), /Not an acceptable package/, 'the API\'s own prefix is not said twice');
  assert.is(await page.textContent('#v-changelog-error'), '');
  await check(page, 'edit-zh');
});

test('My plugins shows the pending version', async () => {
  const page = await pageAs(author);
  await page.goto(`${site.url}/apps/mine`);
  const line = page.locator(`#list li[data-id="${ID}"] .pending-version`);
  await line.waitFor();
  assert.is(await line.getAttribute('data-version'), '1.2.0');
  assert.match(String(await line.textContent()), /Pending review.*Version 1\.2\.0 is waiting for review\./);
  await check(page, 'mine');
});

for (const row of [{ what: 'English', locale: 'en-US' }, { what: 'Chinese', locale: 'zh-CN' }]) {
  test(`the review page shows the pending ZIP: hash, size, changelog, files, difference (${row.what})`, async () => {
    const page = await pageAs(admin, row.locale);
    await page.goto(`${site.url}/apps/review?tab=updates`);
    await page.locator(`#queue li[data-id="${ID}"] .row-open`).click();
    const pkg = page.locator(`#queue li[data-id="${ID}"][data-kind="update"] .package[data-version="1.2.0"]`);
    await pkg.waitFor();
    const proposed = (await detail()).pendingUpdate.package;
    assert.is(await pkg.locator('.hash').textContent(), proposed.sha256);
    assert.is(await pkg.locator('.prose h3').textContent(), 'Fixes');
    // The file lists (up to 1,000 names) are behind a button.
    assert.is(await pkg.locator('ul.files').count(), 0);
    // plugin.json changed too: it names the new version.
    assert.match(String(await pkg.locator('h4').first().textContent()), /1\D+1\D+2/);
    // The checks' warnings: counted on the row, each check listed (issue 31).
    const n = proposed.warningCount;
    const said = row.locale === 'en-US' ? (n == 0 ? 'No warnings' : n == 1 ? '1 warning' : `${n} warnings`) : n == 0 ? '无警告' : `${n} 条警告`;
    assert.is(await page.locator(`#queue li[data-id="${ID}"] .warnings`).textContent(), said);
    assert.is(await pkg.locator('.checks li').count(), proposed.checks.length);
    await pkg.locator('.show-files').click();
    await pkg.locator('ul.files li').first().waitFor();
    const files = await pkg.locator('ul.files:last-of-type li').allTextContents();
    assert.equal(files.map((file) => file.replace(/ \(.*\)$/, '')).sort(), Object.keys(NEW_FILES).sort());
    const changes = await pkg.locator('[data-change]').evaluateAll((nodes) => nodes.map((node) => [(node as HTMLElement).dataset.change, node.textContent]));
    const words = row.locale === 'en-US' ? ['Added: ', 'Removed: ', 'Changed: '] : ['新增：', '删除：', '修改：'];
    assert.equal(changes, [['added', `${words[0]}new.txt`], ['removed', `${words[1]}old.txt`], ['changed', `${words[2]}plugin.json`], ['changed', `${words[2]}main.py`]]);
    await check(page, 'review-' + row.locale);
  });
}

test('approved on the review page, the version is live and first in the plugin page\'s Versions', async () => {
  const admins = await pageAs(admin);
  await admins.goto(`${site.url}/apps/review?tab=updates`);
  const entry = admins.locator(`#queue li[data-id="${ID}"][data-kind="update"]`);
  await entry.locator('.row-open').click();
  await entry.locator('.package').waitFor();
  await entry.locator('.approve').click();
  await entry.locator('.done').waitFor();
  const live = await detail();
  assert.is(live.version, '1.2.0');

  const page = await pageAs(null);
  await page.goto(`${site.url}/apps/plugin/${ID}`);
  await page.locator('#versions-section').waitFor({ state: 'visible' });
  const versions = await page.locator('#versions > li').evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.version));
  assert.equal(versions, ['1.2.0', '1.1.0']);
  const first = page.locator('#versions > li').first();
  assert.is(await first.locator('.hash').textContent(), live.sha256);
  assert.is(await first.locator('.prose strong').textContent(), 'faster');
  assert.match(String(await first.locator('a').getAttribute('href')), new RegExp(`/pkg/${live.sha256}/`));
  assert.is(await page.inputValue('#sha'), live.sha256);
  // A small ZIP's size in bytes reads "B" (Intl's short unit said "488 byte").
  assert.match(String(await page.textContent('#pkg-size')), /^Size: \d+ B$/);
  await check(page, 'plugin');
});

test('a version removed for malware shows its state to the author, and no link to its file', async () => {
  const removed = await fetch(`${site.url}/apps/api/plugins/${ID}/versions/1.1.0`, { method: 'DELETE', headers: { cookie: admin.cookie, origin: site.url } });
  assert.is(removed.status, 200);
  const page = await pageAs(author);
  await page.goto(`${site.url}/apps/plugin/${ID}`);
  const item = page.locator('#versions > li[data-version="1.1.0"]');
  await item.waitFor();
  assert.is(await item.getAttribute('data-status'), 'removed');
  assert.is(await item.locator('a').count(), 0, 'no download link');
  assert.is(await page.locator('#versions > li[data-version="1.2.0"] a').count(), 1, 'the live one keeps its link');
});

test('no script errors, no accessibility findings, nothing wider than 390 px', () => {
  assert.equal(problems, []);
});

test.run();
