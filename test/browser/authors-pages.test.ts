// The authors' and players' pages of issues 31 and 34, in a real Chromium: the
// plugin page says its permissions in words (the high-risk ones marked) and what
// its package runs; nobody's rating reads "no ratings yet", not five hollow stars;
// one install is "1 install"; changelog lists have their bullets; tag chips take at
// most two rows at 390 px (the rest behind "More…"); the header keeps Log in on its
// first line at 390 px; My plugins shows installs, rating and a captioned chart, and
// a pending plugin says so once; the submit page takes the ZIP first, fills the
// form from its plugin.json (id, version, author and permissions read-only) and
// keeps the outside link as the second way. Every page axe-clean in English and
// Chinese, light and dark, at 1280 and at 390 px wide with nothing wider than the
// window.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../src/db/pool.js';
import { launchChromium } from '../helpers/chromium.js';
import { axeViolations, openPageAs, startPagesSite, type PagesSite } from '../helpers/pages-site.js';
import { closeTestSql, testSql } from '../helpers/servers.js';
import { insertPlugin, testUser, type TestUser } from '../helpers/store-fixtures.js';
import { uploadVersion, zipOf } from '../site/store/versions/versions-client.js';
import { buildZip } from '../helpers/zip-writer.js';

const ID = 'ap-tool';
const PENDING = 'ap-waiting';
const TAGS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett', 'kilo', 'lima', 'mike', 'november'];
const PERMISSIONS = ['ui.nav', 'process.exec', 'my.custom'];
const manifest = (version: string, id = ID) => JSON.stringify({ id, name: 'AP Tool', version, author: 'ap-author', description: 'A tool', entry: 'main.py', permissions: PERMISSIONS });
const LANGUAGES = [
  { what: 'English', locale: 'en-US' },
  { what: 'Chinese', locale: 'zh-CN' },
] as const;

let site: PagesSite;
let browser: Browser;
let sql: Sql;
let author: TestUser;
let admin: TestUser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];
const checked = new Set<string>();

const pageAs = (user: TestUser | null, locale = 'en-US'): Promise<Page> => openPageAs(browser, site, user?.cookie ?? null, { contexts, problems }, locale);

/** axe-core in light and dark at 1280 and 390 px, and nothing wider than the window at 390 px. */
async function check(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const finding of await axeViolations(page)) problems.push(`axe ${name} ${width} ${scheme}: ${finding}`);
    }
  }
  const wide = await page.evaluate(() =>
    document.documentElement.scrollWidth <= 390
      ? []
      : [...document.querySelectorAll<HTMLElement>('body *')].filter((node) => node.getBoundingClientRect().right > 391).slice(0, 5).map((node) => `${node.tagName}#${node.id}.${node.className}`),
  );
  for (const node of wide) problems.push(`overflow ${name} at 390px: ${node}`);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
  checked.add(name);
}

const apiAs = async (user: TestUser, path: string, body?: unknown) => {
  const response = await fetch(site.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { cookie: user.cookie, 'content-type': 'application/json', origin: site.url },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};
const detail = async (id = ID) => (await apiAs(admin, `/apps/api/plugins/${id}`)).body.plugin;

/** How many rows the visible items of `selector` take. */
const rowsOf = (page: Page, selector: string) =>
  page.locator(selector).evaluateAll((nodes) => new Set(nodes.filter((node) => (node as HTMLElement).offsetParent !== null).map((node) => (node as HTMLElement).getBoundingClientRect().top)).size);

// uvu reports a failed before hook only as every test failing: say why.
test.before(async () => {
  try {
    await setUp();
  } catch (error) {
    console.error('setting up failed', error);
    throw error;
  }
});

async function setUp(): Promise<void> {
  site = await startPagesSite();
  browser = await launchChromium();
  sql = testSql();
  author = await testUser(sql, 'ap-author');
  admin = await testUser(sql, 'admin', { admin: true });
  await insertPlugin(sql, ID, author, 'approved', { name: 'AP Tool', tags: sql.array(TAGS, 25), permissions: sql.array(PERMISSIONS, 25) });
  await insertPlugin(sql, PENDING, author, 'pending', { name: 'AP Waiting' });
  // One install in the last 30 days.
  await sql`insert into plugin_install_days (plugin_id, day, installs) values (${ID}, (now() at time zone 'utc')::date - 2, 1)`;
  const first = await uploadVersion(site.url, ID, { zip: zipOf({ 'plugin.json': manifest('1.1.0'), 'main.py': 'print(1)', 'main.qml': 'Item {}' }), version: '1.1.0', changelog: '## Fixes\n\n- **faster** start\n- smaller' }, { cookie: author.cookie, origin: site.url });
  assert.is(first.status, 201, JSON.stringify(first.body));
  const approved = await apiAs(admin, `/apps/api/plugins/${ID}/review`, { action: 'approve', revision: (await detail()).revision });
  assert.is(approved.status, 200, JSON.stringify(approved.body));
  // What the package runs, as the upload computes it from entry and the fallback files.
  await sql`update plugin_versions set entry_kind = 'python+qml' where plugin_id = ${ID} and version = '1.1.0'`;
}

test('a detail carries its live package\'s entry kind, null for an outside link; a list does not', async () => {
  assert.is((await detail()).entryKind, 'python+qml');
  assert.is((await detail(PENDING)).entryKind, null);
  const list = await apiAs(admin, '/apps/api/plugins?limit=50');
  assert.ok(list.body.plugins.every((plugin: Record<string, unknown>) => !('entryKind' in plugin)));
});

test.after(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await site?.close();
  await closeTestSql();
});

const WORDS = {
  'en-US': {
    permissions: [
      ['safe', "Add pages to the launcher's navigation ui.nav"],
      ['high', 'High risk Run programs on your computer process.exec'],
      ['high', 'High risk my.custom'],
    ],
    runs: ["Runs inside the launcher: Python code in the launcher's own process", 'A page in the launcher'],
    noRatings: 'No ratings yet.',
    oneInstall: '1 install in the last 30 days; the most in one day: 1.',
    more: 'More…',
  },
  'zh-CN': {
    permissions: [
      ['safe', '在启动器导航中添加页面 ui.nav'],
      ['high', '高风险 在你的电脑上运行程序 process.exec'],
      ['high', '高风险 my.custom'],
    ],
    runs: ['在启动器内运行：Python 代码，运行于启动器自身的进程中', '启动器中的一个页面'],
    noRatings: '还没有评分。',
    oneInstall: '最近 30 天共安装 1 次，单日最多 1 次。',
    more: '更多…',
  },
} as const;

for (const row of LANGUAGES) {
  test(`the plugin page says its permissions in words, the high-risk ones marked, and what its package runs (${row.what})`, async () => {
    const words = WORDS[row.locale];
    const page = await pageAs(null, row.locale);
    await page.goto(`${site.url}/apps/plugin/${ID}`);
    await page.locator('#entry li').first().waitFor();
    const permissions = await page.locator('#permissions li').evaluateAll((nodes) => nodes.map((node) => [(node as HTMLElement).dataset.risk, node.textContent!.replace(/\s+/g, ' ').trim()]));
    assert.equal(permissions, words.permissions);
    assert.is(await page.locator('#permissions li[data-risk="high"] .badge').count(), 2);
    assert.equal(await page.locator('#entry li').allTextContents(), words.runs);
    // Nobody rated it: said once, no summary of hollow stars.
    await page.locator('#ratings-status[data-state="empty"]').waitFor();
    assert.is(await page.textContent('#ratings-status'), words.noRatings);
    assert.ok(await page.isHidden('#rating-summary'));
    await page.locator('#stats-status[data-state="done"]').waitFor();
    assert.is(await page.textContent('#stats-status'), words.oneInstall);
    // The changelog's list has its bullets, as the description's.
    assert.is(await page.locator('#versions .prose ul li').first().evaluate((node) => getComputedStyle(node).listStyleType), 'disc');
    await check(page, 'plugin-' + row.locale);
  });

  test(`tag chips take at most two rows at 390 px, the rest behind "More…" (${row.what})`, async () => {
    const words = WORDS[row.locale];
    const page = await pageAs(null, row.locale);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${site.url}/apps/plugin/${ID}`);
    await page.locator('#tags li').first().waitFor();
    assert.ok((await rowsOf(page, '#tags li')) <= 2, 'the plugin\'s tags in two rows');
    const more = page.locator('#tags button', { hasText: words.more });
    assert.ok(await page.locator('#tags li[hidden]').count() > 0, 'some tags wait behind More');
    await more.click();
    assert.is(await page.locator('#tags li:not([hidden]) a').count(), TAGS.length);
    assert.is(await more.count(), 0);
    assert.is(await page.evaluate(() => document.activeElement?.closest('#tags') !== null), true, 'focus stays among the tags');

    await page.goto(`${site.url}/apps/`);
    await page.locator('#tags .chip').first().waitFor();
    assert.ok((await rowsOf(page, '#tags > .chip')) <= 2, 'the store\'s tag filter in two rows');
    await page.locator('#tags > button', { hasText: words.more }).click();
    assert.ok((await page.locator('#tags > .chip:not([hidden])').count()) >= TAGS.length);
    // An unrated plugin's card says so, not five hollow stars.
    assert.is(await page.locator(`#results .card[data-id="${ID}"] .card-stats .stars`).count(), 0);
    assert.match(String(await page.textContent(`#results .card[data-id="${ID}"] .card-stats`)), row.locale === 'en-US' ? /No ratings yet/ : /暂无评分/);
    await check(page, 'store-' + row.locale);
  });

  test(`at 390 px the header keeps Log in on its first line (${row.what})`, async () => {
    const page = await pageAs(null, row.locale);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${site.url}/apps/`);
    await page.locator('#login').waitFor();
    const [brand, login] = await Promise.all([page.locator('.brand').boundingBox(), page.locator('#login').boundingBox()]);
    assert.ok(login!.y < brand!.y + brand!.height, `Log in at ${login!.y}, the brand's line ${brand!.y}-${brand!.y + brand!.height}`);
  });

  test(`My plugins shows installs, rating and a captioned 30-day chart; a pending plugin says so once (${row.what})`, async () => {
    const page = await pageAs(author, row.locale);
    await page.goto(`${site.url}/apps/mine`);
    const live = page.locator(`#list li[data-id="${ID}"]`);
    await live.locator('figure.spark figcaption').waitFor();
    assert.is(await live.locator('figure.spark figcaption').textContent(), row.locale === 'en-US' ? '1 install in the last 30 days' : '最近 30 天安装 1 次');
    assert.is(await live.locator('figure.spark rect').count(), 30);
    assert.match(String(await live.locator('.card-stats').textContent()), row.locale === 'en-US' ? /No ratings yet.*0 installs/ : /暂无评分.*0/);
    const waiting = page.locator(`#list li[data-id="${PENDING}"]`);
    const said = row.locale === 'en-US' ? 'Pending review' : '待审核';
    assert.is(String(await waiting.textContent()).split(said).length - 1, 1, 'pending said once');
    await check(page, 'mine-' + row.locale);
  });
}

for (const row of LANGUAGES) {
  test(`the edit page names the plugin, marks required fields, and its fixed id looks fixed (${row.what})`, async () => {
    const page = await pageAs(author, row.locale);
    await page.goto(`${site.url}/apps/edit/${ID}`);
    await page.locator('#plugin-form').waitFor({ state: 'visible' });
    await page.waitForFunction(() => (document.getElementById('f-id') as HTMLInputElement).disabled);
    assert.is(await page.textContent('#form-title'), row.locale === 'en-US' ? 'Edit AP Tool' : '编辑 AP Tool');
    assert.match(await page.title(), /^(Edit|编辑) AP Tool/);
    assert.equal(await page.locator('label.req').evaluateAll((nodes) => nodes.map((node) => (node as HTMLLabelElement).htmlFor)), ['f-id', 'f-name', 'f-version', 'f-download']);
    assert.is(await page.locator('label.req[for="f-name"]').evaluate((node) => getComputedStyle(node, '::after').content), '" *"');
    const background = (selector: string) => page.locator(selector).evaluate((node) => getComputedStyle(node).backgroundColor);
    assert.is.not(await background('#f-id'), await background('#f-name'), 'a disabled field looks disabled');
    await check(page, 'edit-' + row.locale);
  });
}

test('a version uploaded on the edit page says what happens next; one is withdrawn after a confirmation', async () => {
  const page = await pageAs(author);
  await page.goto(`${site.url}/apps/edit/${ID}`);
  await page.locator('#version-form').waitFor({ state: 'visible' });
  await page.setInputFiles('#v-file', { name: 'ap-tool.zip', mimeType: 'application/zip', buffer: zipOf({ 'plugin.json': manifest('1.2.0'), 'main.py': 'print(2)' }) });
  assert.is(await page.textContent('#v-file-name'), 'ap-tool.zip');
  await page.fill('#v-changelog', '- one\n- two');
  await page.click('#v-send');
  await page.locator('#v-status[data-state="done"]').waitFor();
  assert.match(String(await page.textContent('#v-status')), /^Version 1\.2\.0 uploaded\. Next, an administrator reviews it/);
  assert.ok(await page.locator('#v-status.notice').isVisible());
  const item = page.locator('#v-list li[data-version="1.2.0"]');
  await item.waitFor();
  assert.is(await item.getAttribute('data-status'), 'pending');

  // Dismissed: nothing happens. Accepted: withdrawn.
  const dialogs: string[] = [];
  page.once('dialog', (dialog) => (dialogs.push(dialog.message()), dialog.dismiss()));
  await item.locator('button').click();
  assert.is(await item.getAttribute('data-status'), 'pending');
  page.once('dialog', (dialog) => (dialogs.push(dialog.message()), dialog.accept()));
  await item.locator('button').click();
  await page.locator('#v-list li[data-version="1.2.0"][data-status="withdrawn"]').waitFor();
  assert.is(await page.textContent('#v-list-status'), 'Version 1.2.0 withdrawn.');
  assert.match(dialogs[0]!, /^Withdraw version 1\.2\.0\?/);
  assert.is(dialogs.length, 2);
  assert.is((await detail()).pendingUpdate, null);
  await check(page, 'edit-withdrawn');
});

const SUBMIT_WORDS = {
  'en-US': { zip: "The plugin's ZIP", read: 'Filled in from the plugin.json of ap-zip.zip. The store reads the package again when you submit.', orLink: "Choose the plugin's ZIP, or link to one hosted elsewhere." },
  'zh-CN': { zip: '插件的 ZIP', read: '已根据 ap-zip-zh.zip 中的 plugin.json 填写。提交时商店会再次读取该包。', orLink: '请选择插件的 ZIP，或链接到托管在别处的 ZIP。' },
} as const;

for (const row of LANGUAGES) {
  test(`the submit page takes the ZIP first, fills the form from its plugin.json, and sends both (${row.what})`, async () => {
    const words = SUBMIT_WORDS[row.locale];
    const id = row.locale === 'en-US' ? 'ap-zip' : 'ap-zip-zh';
    const page = await pageAs(author, row.locale);
    await page.goto(`${site.url}/apps/submit`);
    await page.locator('#plugin-form').waitFor({ state: 'visible' });
    // The ZIP comes first and is required; the outside link is the second way, folded.
    assert.is(await page.locator('#plugin-form .field').first().getAttribute('id'), 'zip-field');
    assert.is(await page.textContent('#zip-field .label.req'), words.zip);
    assert.is(await page.locator('#zip-field .label.req').evaluate((node) => getComputedStyle(node, '::after').content), '" *"');
    assert.ok(await page.locator('#link-way summary').isVisible());
    assert.ok(await page.isHidden('#f-download'), 'the link is folded away');
    assert.equal(await page.locator('#plugin-form label.req').evaluateAll((nodes) => nodes.map((node) => (node as HTMLLabelElement).htmlFor)), ['f-download', 'f-id', 'f-name', 'f-version']);
    // Neither a ZIP nor a link: said at the ZIP, before anything is sent.
    await page.click('#save');
    assert.is(await page.textContent('#f-file-error'), words.orLink);
    assert.is(await page.evaluate(() => document.activeElement?.id), 'zip-file');

    // A wrapper folder (files at the root beside it do not count), deflated, as most tools write it.
    await page.setInputFiles('#zip-file', {
      name: `${id}.zip`,
      mimeType: 'application/zip',
      buffer: zipOf({ [`${id}/plugin.json`]: manifest('2.0.0', id), [`${id}/main.py`]: 'print(3)', 'README.md': 'read me' }),
    });
    await page.locator('#zip-status:not(:empty)').waitFor();
    assert.is(await page.textContent('#zip-status'), words.read);
    assert.is(await page.textContent('#f-file-error'), '');
    for (const [field, value] of [['id', id], ['name', 'AP Tool'], ['version', '2.0.0'], ['author', 'ap-author'], ['description', 'A tool']] as const) {
      assert.is(await page.inputValue(`#f-${field}`), value, field);
    }
    for (const field of ['id', 'version', 'author', 'permissions']) assert.ok(await page.isDisabled(`#f-${field}`), `${field} is the package's`);
    for (const field of ['name', 'description']) assert.ok(await page.isEnabled(`#f-${field}`), `${field} may be replaced`);
    assert.equal(await page.locator('#permissions-chips .chip span').allTextContents(), PERMISSIONS);
    assert.is(await page.locator('#permissions-chips .chip button').first().isVisible(), false, 'no way to remove a permission the package asks for');
    assert.ok(await page.isHidden('#link-way'), 'one way at a time');
    assert.ok(await page.locator('#zip-clear').isVisible());
    await check(page, 'submit-' + row.locale);

    await page.fill('#f-name', 'AP Zip');
    await page.locator('#f-tags').pressSequentially('zip, first');
    await page.keyboard.press('Enter');
    await page.click('#save');
    await page.waitForURL(new RegExp(`/apps/mine\\?saved=${id}$`));
    const plugin = await detail(id);
    assert.is(plugin.name, 'AP Zip');
    assert.is(plugin.version, '2.0.0');
    assert.is(plugin.author, 'ap-author');
    assert.is(plugin.description, 'A tool');
    assert.equal(plugin.tags, ['zip', 'first']);
    assert.equal(plugin.permissions, PERMISSIONS);
    assert.is(plugin.status, 'pending');
    assert.match(plugin.download, /\/pkg\/[0-9a-f]{64}\//);
  });
}

test('a ZIP the store refuses is said under the ZIP, with focus there; removing it brings the link back', async () => {
  const page = await pageAs(author);
  await page.goto(`${site.url}/apps/submit`);
  await page.locator('#plugin-form').waitFor({ state: 'visible' });
  await page.setInputFiles('#zip-file', { name: 'none.zip', mimeType: 'application/zip', buffer: zipOf({ 'main.py': 'print(4)' }) });
  await page.locator('#zip-status:not(:empty)').waitFor();
  assert.match(String(await page.textContent('#zip-status')), /^none\.zip chosen\. This browser cannot read its plugin\.json/);
  await page.fill('#f-name', 'No Manifest');
  await page.click('#save');
  await page.locator('#f-file-error:not(:empty)').waitFor();
  assert.match(String(await page.textContent('#f-file-error')), /^This ZIP cannot be accepted: no plugin\.json \(or cwplugin\.json\) in the package/);
  assert.is(await page.getAttribute('#zip-file', 'aria-invalid'), 'true');
  assert.is(await page.evaluate(() => document.activeElement?.id), 'zip-file');
  assert.is((await apiAs(admin, '/apps/api/plugins/no-manifest')).status, 404, 'nothing was made');
  await check(page, 'submit-refused');

  await page.click('#zip-clear');
  assert.ok(await page.locator('#link-way summary').isVisible(), 'the outside link is back');
  for (const field of ['id', 'version', 'author', 'permissions']) assert.ok(await page.isEnabled(`#f-${field}`), `${field} typed again`);
  assert.is(await page.evaluate(() => document.activeElement?.id), 'zip-file');
});

// A manifest over the store's 64 KiB bound is not inflated on the page (a few KiB of
// deflate can inflate to gigabytes); an entry that declares a small size is not believed.
for (const row of [
  { what: 'declares its size', declaredSize: undefined },
  { what: 'declares less than it inflates to', declaredSize: 200 },
]) {
  test(`a plugin.json over 64 KiB is not read on the submit page (it ${row.what})`, async () => {
    const large = JSON.stringify({ id: 'ap-large', name: 'AP Large', version: '3.0.0', author: 'ap-author', description: 'Large', padding: ' '.repeat(70 * 1024) });
    const page = await pageAs(author);
    await page.goto(`${site.url}/apps/submit`);
    await page.locator('#plugin-form').waitFor({ state: 'visible' });
    const zip = buildZip([{ name: 'plugin.json', data: Buffer.from(large), declaredSize: row.declaredSize }]);
    await page.setInputFiles('#zip-file', { name: 'large.zip', mimeType: 'application/zip', buffer: zip });
    await page.locator('#zip-status:not(:empty)').waitFor();
    assert.match(String(await page.textContent('#zip-status')), /^large\.zip chosen\. This browser cannot read its plugin\.json/);
    assert.is(await page.inputValue('#f-id'), '', 'the form is not filled from it');
  });
}

test('no script errors, no accessibility findings, nothing wider than 390 px', () => {
  for (const name of ['plugin-en-US', 'plugin-zh-CN', 'store-en-US', 'store-zh-CN', 'mine-en-US', 'mine-zh-CN', 'edit-en-US', 'edit-zh-CN', 'submit-en-US', 'submit-zh-CN', 'submit-refused']) assert.ok(checked.has(name), `${name} was checked`);
  assert.equal(problems, []);
});

test.run();
