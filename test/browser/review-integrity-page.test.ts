// The review page keeps what an administrator approves to what they saw (issue 17),
// in a real Chromium: each review sends the revision the page showed, an update the
// author changed meanwhile is refused and said so (in English and in Chinese), and
// "unlist" stands apart from "reject update", needs a reason and takes the plugin
// down with its update. An outside link launchers with default settings refuse is
// warned of (issue 31), in both languages.
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../src/db/pool.js';
import { launchChromium } from '../helpers/chromium.js';
import { axeViolations, openPageAs, startPagesSite, type PagesSite } from '../helpers/pages-site.js';
import { closeTestSql, testSql } from '../helpers/servers.js';
import { insertPlugin, testUser, type TestUser } from '../helpers/store-fixtures.js';

const WAIT = { timeout: 20_000 };
let site: PagesSite;
let browser: Browser;
let sql: Sql;
let author: TestUser;
let admin: TestUser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

function pageAs(user: TestUser, locale = 'en-US'): Promise<Page> {
  return openPageAs(browser, site, user.cookie, { contexts, problems }, locale);
}

const apiAs = async (user: TestUser, path: string, init: { method?: string; body?: unknown } = {}) => {
  const response = await fetch(site.url + path, {
    method: init.method ?? 'GET',
    headers: { cookie: user.cookie, 'content-type': 'application/json', origin: site.url },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};
/** Opens a queue row into its review (read from the plugin's detail). */
async function open(entry: Locator): Promise<void> {
  await entry.locator('.row-open').click(WAIT);
  await entry.locator('.review .actions').waitFor(WAIT);
}
const edit = (id: string, body: Record<string, unknown>) => apiAs(author, `/apps/api/plugins/${id}`, { method: 'PATCH', body });
const plugin = async (id: string) => (await apiAs(admin, `/apps/api/plugins/${id}`)).body.plugin;

test.before(async () => {
  site = await startPagesSite();
  browser = await launchChromium();
  sql = testSql();
  author = await testUser(sql, 'ri-author');
  admin = await testUser(sql, 'admin', { admin: true });
  for (const id of ['ri-swapped', 'ri-swapped-zh', 'ri-down']) {
    await insertPlugin(sql, id, author, 'approved', { download: `https://downloads.example.com/${id}-1.zip` });
    assert.is((await edit(id, { download: `https://downloads.example.com/${id}-2.zip` })).status, 200);
  }
  await insertPlugin(sql, 'ri-untrusted', author, 'pending', { download: 'https://downloads.example.org/ri-untrusted.zip' });
  await insertPlugin(sql, 'ri-trusted', author, 'pending', { download: 'https://github.com/me/ri/releases/download/v1/ri.zip' });
});

test.after(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await site?.close();
  await closeTestSql();
});

const messages = [
  { what: 'English', locale: 'en-US', id: 'ri-swapped', said: /changed while you were reviewing it/ },
  { what: 'Chinese', locale: 'zh-CN', id: 'ri-swapped-zh', said: /在你审核期间被修改了/ },
];
for (const row of messages) {
  test(`an update changed after the page showed it is not approved, and the page says so (${row.what})`, async () => {
    const page = await pageAs(admin, row.locale);
    await page.goto(`${site.url}/apps/review?tab=updates`);
    const entry = page.locator(`#queue li[data-id="${row.id}"][data-kind="update"]`);
    await open(entry);
    assert.is(await entry.locator('tr[data-field="download"] ins').textContent(), `https://downloads.example.com/${row.id}-2.zip`);
    // The author swaps the ZIP while the administrator reads.
    assert.is((await edit(row.id, { download: `https://downloads.example.com/${row.id}-evil.zip` })).status, 200);
    await entry.locator('.approve').click();
    await page.waitForFunction((id) => document.querySelector(`#queue li[data-id="${id}"] .actions > .status`)?.textContent !== '', row.id, WAIT);
    assert.match(String(await entry.locator('.actions > .status').textContent()), row.said);
    const now = await plugin(row.id);
    assert.is(now.download, `https://downloads.example.com/${row.id}-1.zip`, 'the live ZIP is unchanged');
    assert.is(now.pendingUpdate.download, `https://downloads.example.com/${row.id}-evil.zip`);

    // Read again, the page shows what the update is now, and approves that.
    await page.reload();
    await open(entry);
    assert.is(await entry.locator('tr[data-field="download"] ins').textContent(), `https://downloads.example.com/${row.id}-evil.zip`);
    await entry.locator('.approve').click();
    await entry.locator('.done').waitFor(WAIT);
    assert.is((await plugin(row.id)).download, `https://downloads.example.com/${row.id}-evil.zip`);
  });
}

test('unlist stands apart from reject update, needs a reason, and takes the plugin down with its update', async () => {
  const page = await pageAs(admin);
  await page.goto(`${site.url}/apps/review?tab=updates`);
  const entry = page.locator('#queue li[data-id="ri-down"][data-kind="update"]');
  await open(entry);
  assert.is(await entry.locator('.reject').textContent(), 'Reject update');
  assert.is(await entry.locator('.unlist').textContent(), 'Unlist plugin');
  for (const finding of await axeViolations(page)) problems.push(`axe: ${finding}`);

  await entry.locator('.unlist').click();
  await page.waitForFunction(() => document.querySelector('#queue li[data-id="ri-down"] .actions > .status')?.textContent !== '', undefined, WAIT);
  assert.match(String(await entry.locator('.actions > .status').textContent()), /Give a reason to unlist/);
  assert.is((await plugin('ri-down')).status, 'approved');

  await entry.locator('input').fill('Ships malware');
  await entry.locator('.unlist').click();
  await entry.locator('.done').waitFor(WAIT);
  assert.is(await entry.locator('.done').textContent(), 'Plugin ri-down unlisted.');
  const down = await plugin('ri-down');
  assert.equal([down.status, down.review.reason, down.pendingUpdate], ['rejected', 'Ships malware', null]);
});

const hostWarnings = [
  { what: 'English', locale: 'en-US', said: /^downloads\.example\.org is not on the Bloret launcher’s default list of download hosts: launchers with default settings refuse the whole store list while this plugin is listed\.$/ },
  { what: 'Chinese', locale: 'zh-CN', said: /^downloads\.example\.org 不在 Bloret 启动器默认信任的下载主机列表中/ },
];
for (const row of hostWarnings) {
  test(`an outside link off the launcher's default list is warned of on the review page, one on a trusted host is not (${row.what})`, async () => {
    const page = await pageAs(admin, row.locale);
    await page.goto(`${site.url}/apps/review`);
    const warned = page.locator('#queue li[data-id="ri-untrusted"][data-kind="new"]');
    await open(warned);
    await open(page.locator('#queue li[data-id="ri-trusted"]'));
    const warnings = await warned.locator('p.pending').allTextContents();
    assert.is(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0]!, row.said);
    assert.is(await page.locator('#queue li[data-id="ri-trusted"] p.pending').count(), 0);
    for (const finding of await axeViolations(page)) problems.push(`axe (${row.what}): ${finding}`);
  });
}

test('no script errors and no accessibility findings', () => {
  assert.equal(problems, []);
});

test.run();
