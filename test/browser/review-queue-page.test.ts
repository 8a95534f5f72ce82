// The review queue for an administrator with 60 plugins waiting (issue 34), and
// what a version's package says on it (issue 31), in a real Chromium: tabs with
// their counts, which follow every decision; compact rows (icon thumbnail, name,
// author, kind, age, warning count), 20 a page, oldest first; the arrow keys move
// between rows and Enter opens one into its review, where pictures are thumbnails,
// the long description is Markdown rendered, labels carry no form hints, and an
// update's hosted ZIP shows its manifest, its permissions as words (high-risk ones
// marked, new ones against the live version) and every check. Axe-clean in English
// and Chinese, at 1280 and 390 wide; screenshots go to artifacts/pages/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Sql } from '../../src/db/pool.js';
import { projectRoot } from '../../src/lib/project-root.js';
import { makeJpeg, makePng } from '../fixtures/images/generate.js';
import { launchChromium } from '../helpers/chromium.js';
import { axeViolations, IMAGE_ORIGIN, openPageAs, startPagesSite, type PagesSite } from '../helpers/pages-site.js';
import { closeTestSql, testSql } from '../helpers/servers.js';
import { insertPlugin, testUser, type TestUser } from '../helpers/store-fixtures.js';
import { packageOf, uploadVersion } from '../site/store/versions/versions-client.js';

const SHOTS = join(projectRoot(), 'artifacts', 'pages');
const QUEUED = 60;
const HOSTED = 'rq-hosted';
let site: PagesSite;
let browser: Browser;
let sql: Sql;
let author: TestUser;
let admin: TestUser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];

const pageAs = (user: TestUser, locale = 'en-US'): Promise<Page> => openPageAs(browser, site, user.cookie, { contexts, problems }, locale);
const idOf = (n: number) => `rq-${String(n).padStart(2, '0')}`;

const apiAs = async (user: TestUser, path: string, body?: unknown) => {
  const response = await fetch(site.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { cookie: user.cookie, 'content-type': 'application/json', origin: site.url },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};
const detail = async (id: string) => (await apiAs(admin, `/apps/api/plugins/${id}`)).body.plugin;

/** An image stored on the image host, as the media upload leaves it: its https address and WebP preview. */
async function stored(bytes: Buffer, name: string): Promise<{ url: string; webpUrl: string }> {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(bytes)]), name);
  const answer = (await (await fetch(site.imghost.url + '/api/upload', { method: 'POST', body: form })).json()) as { data: { url: string; webpUrl: string } };
  return { url: IMAGE_ORIGIN + answer.data.url, webpUrl: IMAGE_ORIGIN + answer.data.webpUrl };
}

/** axe (light and dark) and nothing wider than the window, at 1280 and at 390 wide; a screenshot of each. */
async function check(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width == 390 ? 844 : 800 });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const finding of await axeViolations(page)) problems.push(`axe ${name} ${width} ${scheme}: ${finding}`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    const wide = await page.evaluate((max) =>
      document.documentElement.scrollWidth <= max
        ? []
        : [...document.querySelectorAll<HTMLElement>('body *')].filter((node) => node.getBoundingClientRect().right > max + 1).slice(0, 5).map((node) => `${node.tagName}#${node.id}.${node.className}`), width);
    for (const node of wide) problems.push(`overflow ${name} at ${width}px: ${node}`);
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: width == 1280 });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test.before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  site = await startPagesSite();
  browser = await launchChromium();
  sql = testSql();
  author = await testUser(sql, 'rq-author');
  admin = await testUser(sql, 'admin', { admin: true });
  const icons = [];
  for (const seed of [1, 2, 3, 4, 5, 6]) icons.push((await stored(await makePng(seed, 128, 128), `icon${seed}.png`)).url);
  const shots = [await stored(await makeJpeg(7, 640, 400), 'one.jpg'), await stored(await makeJpeg(8, 640, 400), 'two.jpg')];
  // 60 new plugins waiting, rq-00 the longest (60 hours), rq-59 the newest; every
  // tenth without an icon (its letter stands in).
  const now = Date.now();
  for (let n = 0; n < QUEUED; n++) {
    const at = new Date(now - (QUEUED - n) * 3600_000);
    await insertPlugin(sql, idOf(n), author, 'pending', {
      name: `Queued Plugin ${n}`, author: `Studio ${n % 7}`, created_at: at, updated_at: at,
      icon: n % 10 == 9 ? null : icons[n % icons.length], url: 'https://example.com/home',
      // Most on GitHub; every seventh on a host the launcher does not trust by default (a warning).
      download: n % 7 == 0 ? `https://downloads.example.com/${idOf(n)}.zip` : `https://github.com/studio/${idOf(n)}/releases/download/v1/${idOf(n)}.zip`,
    });
  }
  await sql`update plugins set screenshots = ${sql.json(shots as never)},
              long_description = ${'## Features\n\n- **Fast** maps\n- Works offline\n\nSee [the guide](https://example.com/guide).'}
             where id = ${idOf(0)}`;
  // An approved plugin whose hosted 1.0.0 is live and whose 1.1.0 waits: a native
  // program, and permissions the live version did not have (one the launcher does not know).
  await insertPlugin(sql, HOSTED, author, 'approved', { name: 'Hosted Tools' });
  const first = await uploadVersion(site.url, HOSTED, { zip: packageOf(HOSTED, '1.0.0', { 'main.py': 'print(1)' }, { permissions: ['ui.nav'] }), changelog: 'First' }, { cookie: author.cookie, origin: site.url });
  assert.is(first.status, 201, JSON.stringify(first.body));
  assert.is((await apiAs(admin, `/apps/api/plugins/${HOSTED}/review`, { action: 'approve', revision: (await detail(HOSTED)).revision })).status, 200);
  const zip = packageOf(HOSTED, '1.1.0', { 'main.py': 'print(2)', 'bin/tool': '\u007fELF\u0002\u0001' + 'x'.repeat(200) }, { permissions: ['ui.nav', 'process.exec', 'net.custom'] });
  const second = await uploadVersion(site.url, HOSTED, { zip, changelog: '- **Faster** tools' }, { cookie: author.cookie, origin: site.url });
  assert.is(second.status, 201, JSON.stringify(second.body));
});

test.after(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await site?.close();
  await closeTestSql();
});

const rows = (page: Page) => page.locator('#queue > li');
const ids = (page: Page) => rows(page).evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.id));
const counts = (page: Page) => page.evaluate(() => ['pending', 'updates', 'reports'].map((kind) => document.getElementById('count-' + kind)!.textContent!.trim()));

test('60 new plugins: 20 compact rows a page, oldest first, each tab with its count', async () => {
  const page = await pageAs(admin);
  await page.goto(`${site.url}/apps/review`);
  await rows(page).first().waitFor();
  assert.equal(await ids(page), Array.from({ length: 20 }, (_, n) => idOf(n)));
  await page.waitForFunction(() => document.getElementById('count-pending')!.textContent !== '');
  assert.equal(await counts(page), ['60', '1', '0']);
  assert.match(String(await page.textContent('#status')), /^60 waiting for review\. 1–20, oldest first\.$/);
  assert.is(await page.getAttribute('#tab-new', 'aria-current'), 'page');

  // A row: icon thumbnail (a picture that loaded, not a path), name, author, kind, age, warnings.
  const row = rows(page).first().locator('.row-open');
  const about = String(await row.textContent());
  // Its one warning: downloads.example.com is not a host the launcher trusts by default.
  assert.is(await rows(page).nth(1).locator('.warnings').textContent(), 'No warnings', 'a GitHub link');
  assert.match(about, /^Queued Plugin 0 by Studio 0New plugin\d days ago1 warning$/, about);
  await page.waitForFunction(() => (document.querySelector('#queue > li .row-open img') as HTMLImageElement | null)?.naturalWidth === 128);
  assert.is(await rows(page).nth(9).locator('.row-open .letter').textContent(), 'Q', 'no icon: its letter');
  assert.ok((await page.locator('#queue').boundingBox())!.height < 20 * 80, 'compact: under 80 px a row');
  await check(page, 'review-queue');

  await page.locator('#next').click();
  await page.waitForFunction(() => document.querySelector('#queue > li')?.getAttribute('data-id') === 'rq-20');
  assert.equal(await ids(page), Array.from({ length: 20 }, (_, n) => idOf(n + 20)));
  assert.match(String(await page.textContent('#page-info')), /^21–40/);
  assert.ok(page.url().endsWith('?tab=new&page=2'), page.url());
  await page.reload();
  await page.waitForFunction(() => document.querySelector('#queue > li')?.getAttribute('data-id') === 'rq-20');
  await page.locator('#prev').click();
  await page.waitForFunction(() => document.querySelector('#queue > li')?.getAttribute('data-id') === 'rq-00');
});

test('keyboard: arrow keys, Home and End move between rows; Enter opens one and closes it', async () => {
  const page = await pageAs(admin);
  await page.goto(`${site.url}/apps/review`);
  const focused = () => page.evaluate(() => (document.activeElement?.closest('li') as HTMLElement | null)?.dataset.id);
  await rows(page).first().locator('.row-open').focus();
  for (const { key, to } of [
    { key: 'ArrowDown', to: 'rq-01' }, { key: 'ArrowDown', to: 'rq-02' }, { key: 'ArrowUp', to: 'rq-01' },
    { key: 'End', to: 'rq-19' }, { key: 'ArrowDown', to: 'rq-19' }, { key: 'Home', to: 'rq-00' }, { key: 'ArrowUp', to: 'rq-00' },
  ]) {
    await page.keyboard.press(key);
    assert.is(await focused(), to, key);
  }
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  const entry = rows(page).nth(1);
  await entry.locator('.review table').waitFor();
  assert.is(await entry.locator('.row-open').getAttribute('aria-expanded'), 'true');
  await page.keyboard.press('Enter');
  assert.ok(await entry.locator('.review').isHidden(), 'Enter again closes it');
});

test('an opened review: pictures as thumbnails, the long description as Markdown, labels without the form hints', async () => {
  const page = await pageAs(admin);
  await page.goto(`${site.url}/apps/review`);
  const entry = page.locator(`#queue li[data-id="${idOf(0)}"]`);
  await entry.locator('.row-open').click();
  await entry.locator('tr[data-field="screenshots"]').waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('#queue .review img')].every((img) => img.complete && img.naturalWidth > 0));
  assert.is(await entry.locator('tr[data-field="icon"] img').count(), 1);
  assert.is(await entry.locator('tr[data-field="screenshots"] img.shot-thumb').count(), 2);
  assert.not.match(String(await entry.locator('table').textContent()), /\/img\//, 'no raw picture paths');
  assert.match(String(await entry.locator('p.pending').textContent()), /^downloads\.example\.com is not on the Bloret launcher’s default list/);
  assert.not.match(String(await entry.locator('.review').textContent()), /object|null|undefined/, 'nothing but words');
  const long = entry.locator('tr[data-field="longDescription"] .prose');
  assert.is(await long.locator('h3').textContent(), 'Features');
  assert.is(await long.locator('li strong').textContent(), 'Fast');
  assert.is(await long.locator('a').getAttribute('href'), 'https://example.com/guide');
  assert.is(await entry.locator('tr[data-field="url"] th').textContent(), 'Homepage');
  assert.is(await entry.locator('tr[data-field="screenshots"] th').textContent(), 'Screenshots');
  // The reason's placeholder is whole: its input is wide enough for it.
  const fits = await entry.locator('.reason input').evaluate((input: HTMLInputElement) => {
    input.scrollIntoView();
    const probe = document.createElement('span');
    probe.style.cssText = `position: absolute; white-space: pre; font: ${getComputedStyle(input).font}`;
    probe.textContent = input.placeholder;
    document.body.append(probe);
    const width = probe.getBoundingClientRect().width;
    probe.remove();
    return width <= input.clientWidth - 8 || `${width} in ${input.clientWidth}`;
  });
  assert.is(fits, true, 'the reason placeholder is not cut');
  await check(page, 'review-open');
});

test("an outside download's check: said plainly when it could not be fetched, its manifest and checks when it was", async () => {
  // As the package checks leave them (src/services/site/store/package-checks), no longer due.
  await sql`update plugin_package_checks set status = 'unreachable', reason = 'connection refused', due_at = null, checked_at = now()
             where plugin_id = ${idOf(2)}`;
  await sql`update plugin_package_checks set status = 'ok', sha256 = ${'ab'.repeat(32)}, due_at = null, checked_at = now(),
              manifest = ${sql.json({ id: idOf(3), name: 'Queued Plugin 3', version: '1.0.0', entry: 'main.py' } as never)},
              checks = ${sql.json([{ code: 'high-risk-permission', level: 'warn', message: 'Asks for net.http, a high-risk permission the launcher grants on install' }] as never)}
             where plugin_id = ${idOf(3)}`;
  const page = await pageAs(admin);
  await page.goto(`${site.url}/apps/review`);
  const unreachable = page.locator(`#queue li[data-id="${idOf(2)}"]`);
  await unreachable.locator('.row-open').click();
  assert.match(String(await unreachable.locator('.download-check p.check').textContent()), /could not be fetched \(connection refused\): approving now does not pin its SHA-256/);
  const ok = page.locator(`#queue li[data-id="${idOf(3)}"]`);
  assert.is(await ok.locator('.warnings').textContent(), '1 warning', 'the fetched file\'s warning counts on its row');
  await ok.locator('.row-open').click();
  const found = ok.locator('.download-check[data-status="ok"]');
  assert.match(String(await found.locator('p.check').textContent()), new RegExp('ab'.repeat(32)));
  assert.equal(await found.locator('.checks li').evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).dataset.code)), ['high-risk-permission']);
  assert.ok((await found.locator('.manifest dd').allTextContents()).includes('main.py'));
  await check(page, 'review-download-check');
});

test('counts follow every decision: approve and reject move the tabs and the status line; focus goes to the next row', async () => {
  const page = await pageAs(admin);
  await page.goto(`${site.url}/apps/review`);
  const first = page.locator(`#queue li[data-id="${idOf(0)}"]`);
  await first.locator('.row-open').click();
  await first.locator('.approve').click();
  await first.locator('.done').waitFor();
  await page.waitForFunction(() => document.getElementById('count-pending')!.textContent === ' 59');
  assert.match(String(await page.textContent('#status')), /^59 waiting for review\./);
  assert.is(await page.evaluate(() => (document.activeElement?.closest('li') as HTMLElement | null)?.dataset.id), idOf(1));

  await page.keyboard.press('Enter');
  const second = page.locator(`#queue li[data-id="${idOf(1)}"]`);
  await second.locator('.reason input').fill('The download is not the plugin');
  await second.locator('.reject').click();
  await second.locator('.done').waitFor();
  await page.waitForFunction(() => document.getElementById('count-pending')!.textContent === ' 58');
  assert.equal([(await detail(idOf(0))).status, (await detail(idOf(1))).status], ['approved', 'rejected']);
  // The next page starts after what is still waiting: rq-20, as 2 of the first 20 left the queue.
  await page.locator('#next').click();
  await page.waitForFunction(() => document.querySelector('#queue > li')?.getAttribute('data-id') === 'rq-20');
});

const updates = [
  { what: 'English', locale: 'en-US', exec: 'Run programs on your computer', high: 'High risk', added: 'New', tab: 'Updates' },
  { what: 'Chinese', locale: 'zh-CN', exec: '在你的电脑上运行程序', high: '高风险', added: '新增', tab: '更新' },
];
for (const row of updates) {
  test(`an update's ZIP: manifest, permissions as words with what is new, every check, the warning count (${row.what})`, async () => {
    const proposed = (await detail(HOSTED)).pendingUpdate.package;
    const page = await pageAs(admin, row.locale);
    await page.goto(`${site.url}/apps/review?tab=updates`);
    assert.match(String(await page.textContent('#tab-updates')), new RegExp(`^${row.tab}`));
    const entry = page.locator(`#queue li[data-id="${HOSTED}"][data-kind="update"]`);
    assert.is(await entry.locator('.warnings').getAttribute('data-n'), String(proposed.warningCount));
    assert.ok(proposed.warningCount >= 4, JSON.stringify(proposed.checks));
    await entry.locator('.row-open').click();
    const pkg = entry.locator('.package[data-version="1.1.0"]');
    await pkg.waitFor();

    const manifest = await pkg.locator('.manifest dt').evaluateAll((nodes) => nodes.map((node) => [node.textContent, node.nextElementSibling?.textContent]));
    assert.ok(manifest.some(([key, value]) => key === 'id' && value === HOSTED), JSON.stringify(manifest));
    assert.ok(manifest.some(([key, value]) => key === 'version' && value === '1.1.0'), JSON.stringify(manifest));
    // Every value as text: an entry object as JSON, an empty one as a dash.
    assert.ok(manifest.every(([, value]) => value && !/\[object|^undefined$|^null$/.test(value)), JSON.stringify(manifest));

    const permissions = await entry.locator('.perms li').evaluateAll((nodes) => nodes.map((node) => ({ risk: (node as HTMLElement).dataset.risk, change: (node as HTMLElement).dataset.change, text: node.textContent })));
    assert.equal(permissions.map((p) => [p.risk, p.change ?? null]), [['safe', null], ['high', 'added'], ['high', 'added']]);
    assert.is(permissions[1]!.text, `${row.high}${row.added} ${row.exec} process.exec`);
    assert.is(permissions[2]!.text, `${row.high}${row.added} net.custom`, 'an unknown id reads as itself, high risk');

    const checks = await pkg.locator('.checks li').evaluateAll((nodes) => nodes.map((node) => [(node as HTMLElement).dataset.code, (node as HTMLElement).dataset.level, node.querySelector('code')?.textContent ?? null]));
    assert.equal(checks, proposed.checks.map((c: { code: string; level: string; file?: string }) => [c.code, c.level, c.file ?? null]));
    assert.ok(checks.some(([code, , file]) => code === 'native-executable' && file === 'bin/tool'), JSON.stringify(checks));
    assert.is(await pkg.locator('.prose strong').textContent(), 'Faster');
    await check(page, `review-update-${row.locale}`);
  });
}

test('the reports and featured tabs are axe-clean too, with the counts on every tab', async () => {
  for (const locale of ['en-US', 'zh-CN']) {
    const page = await pageAs(admin, locale);
    for (const tab of ['reports', 'featured']) {
      await page.goto(`${site.url}/apps/review?tab=${tab}`);
      await page.waitForFunction(() => document.getElementById('count-pending')!.textContent !== '');
      assert.is(await page.getAttribute(`#tab-${tab}`, 'aria-current'), 'page');
      assert.ok(await page.locator('#queue-tab').isHidden(), 'no queue on this tab');
      await check(page, `review-${tab}-${locale}`);
    }
  }
});

test('no script errors, no accessibility findings, nothing wider than the window', () => {
  assert.equal(problems, []);
});

test.run();
