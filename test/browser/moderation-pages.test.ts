// The moderation and insight parts of the pages (issue 13) in a real Chromium: the
// install chart on a plugin's page (bars for the seeded days, the period switch,
// its text alternative), the report dialog for a plugin and for a rating (409 and
// 429 said clearly), the reports tab of the review page resolving reports, the
// notifications in the header (count, list, read one, read all, keyboard), the
// sparklines of My plugins (one request), and the webhook section of the tokens
// page. axe-core checks each page, in English and in Chinese.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../src/lib/project-root.js';
import type { Sql } from '../../src/db/pool.js';
import { launchChromium } from '../helpers/chromium.js';
import { axeViolations, startPagesSite, type PagesSite } from '../helpers/pages-site.js';
import { closeTestSql, testSql } from '../helpers/servers.js';
import { insertPlugin, testUser, type TestUser } from '../helpers/store-fixtures.js';

const WAIT = { timeout: 20_000 };
const SHOTS = join(projectRoot(), 'artifacts', 'pages');
const PLUGIN = 'mod-lanterns';
let site: PagesSite;
let browser: Browser;
let sql: Sql;
let author: TestUser;
let rater: TestUser;
let reporter: TestUser;
let admin: TestUser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];
const axeFindings: string[] = [];
const overflows: string[] = [];

/** Installs seeded per day: days ago → installs (40 days ago is outside 30, inside 90). */
const SEEDED = new Map([
  [0, 2],
  [3, 9],
  [10, 4],
  [40, 50],
]);

/** A page logged in as `user` (its session cookie set in a fresh profile), watched for script errors. */
async function pageAs(user: TestUser | null, locale = 'en-US'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale });
  context.setDefaultTimeout(WAIT.timeout);
  contexts.push(context);
  if (user) await context.addCookies([{ name: 'sid', value: user.cookie.slice('sid='.length), url: site.url }]);
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/^Failed to load resource/.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  page.on('dialog', (dialog) => dialog.accept());
  return page;
}

/**
 * axe-core on the page as it is now; then, at 1280 and 390 px wide, nothing wider
 * than the window and a screenshot under artifacts/pages/ (not committed).
 */
async function axe(page: Page, name: string): Promise<void> {
  for (const finding of await axeViolations(page)) axeFindings.push(`${name}: ${finding}`);
  mkdirSync(SHOTS, { recursive: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    const wide = await page.evaluate((max) => [...document.querySelectorAll<HTMLElement>('body *')].filter((node) => node.getBoundingClientRect().right > max + 1 && !node.closest('dialog:not([open])')).map((node) => `${node.tagName}#${node.id}.${node.className}`).slice(0, 5), width);
    if (wide.length > 0) overflows.push(`${name} at ${width}px: ${wide.join(', ')}`);
    await page.screenshot({ path: join(SHOTS, `moderation-${name.replace(/ /g, '-')}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

const apiAs = async (user: TestUser, path: string, init: { method?: string; body?: unknown } = {}) => {
  const response = await fetch(site.url + path, {
    method: init.method ?? 'GET',
    headers: { cookie: user.cookie, 'content-type': 'application/json', origin: site.url },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

test.before(async () => {
  try {
    site = await startPagesSite();
    browser = await launchChromium();
    sql = testSql();
    author = await testUser(sql, 'mod-author');
    rater = await testUser(sql, 'mod-rater');
    reporter = await testUser(sql, 'mod-reporter');
    admin = await testUser(sql, 'admin', { admin: true });
    await insertPlugin(sql, PLUGIN, author, 'approved', { name: 'Moderated Lanterns' });
    await insertPlugin(sql, 'mod-second', author, 'pending');
    for (const [daysAgo, installs] of SEEDED) {
      await sql`insert into plugin_install_days (plugin_id, day, installs) values (${PLUGIN}, (now() at time zone 'utc')::date - ${daysAgo}::int, ${installs})`;
    }
  } catch (error) {
    console.error('setup failed:', error);
    throw error;
  }
});

test.after(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await site?.close();
  await closeTestSql();
});

/** The chart's bars as [count, index of the tallest, tallest height]. */
const bars = (page: Page) =>
  page.evaluate(() => {
    const heights = [...document.querySelectorAll('#chart rect')].map((rect) => Number(rect.getAttribute('height')));
    return [heights.length, heights.indexOf(Math.max(...heights)), Math.max(...heights)];
  });

test('plugin page: the install chart has one bar per day, the tallest the busiest day, a summary as its text, and switches period', async () => {
  // One real install click today, beside the seeded days.
  assert.is((await fetch(`${site.url}/apps/api/plugins/${PLUGIN}/install-click`, { method: 'POST' })).status, 200);
  const page = await pageAs(null);
  await page.goto(`${site.url}/apps/plugin/${PLUGIN}`);
  await page.waitForFunction(() => document.querySelectorAll('#chart rect').length === 30, undefined, WAIT);
  assert.equal(await bars(page), [30, 29 - 3, 100], '30 bars, the one of 3 days ago full height');
  const today = await page.evaluate(() => Number(document.querySelector('#chart rect:last-child')!.getAttribute('height')));
  assert.ok(Math.abs(today - (100 * 3) / 9) < 0.01, `today's bar is 3/9 of the tallest: ${today}`);
  const thirty = 2 + 1 + 9 + 4;
  assert.is(await page.getAttribute('#chart', 'aria-label'), `${thirty} installs in the last 30 days; the most in one day: 9.`);
  assert.is(await page.getAttribute('#chart', 'role'), 'img');
  assert.is(await page.textContent('#stats-status'), `${thirty} installs in the last 30 days; the most in one day: 9.`);
  assert.is(await page.getAttribute('[data-days="30"]', 'aria-pressed'), 'true');
  await axe(page, 'plugin chart');

  await page.locator('[data-days="90"]').click();
  await page.waitForFunction(() => document.querySelectorAll('#chart rect').length === 90, undefined, WAIT);
  assert.equal(await bars(page), [90, 89 - 40, 100], 'the day 40 days ago is the tallest of 90');
  assert.match(String(await page.getAttribute('#chart', 'aria-label')), /^66 installs in the last 90 days; the most in one day: 50\.$/);
  assert.is(await page.getAttribute('[data-days="90"]', 'aria-pressed'), 'true');
  assert.is(await page.getAttribute('[data-days="30"]', 'aria-pressed'), 'false');
  await page.locator('[data-days="365"]').click();
  await page.waitForFunction(() => document.querySelectorAll('#chart rect').length === 365, undefined, WAIT);
});

test('plugin page in Chinese: the chart summary and the report button are Chinese', async () => {
  const page = await pageAs(reporter, 'zh-CN');
  await page.goto(`${site.url}/apps/plugin/${PLUGIN}`);
  await page.waitForFunction(() => document.querySelectorAll('#chart rect').length === 30, undefined, WAIT);
  assert.is(await page.textContent('#stats-status'), '最近 30 天共安装 16 次，单日最多 9 次。');
  assert.is(await page.textContent('#report-plugin'), '举报此插件');
  await axe(page, 'plugin zh');
});

test('report dialog: a plugin, with a reason and a note; the counter; Escape; a second report is 409, the daily limit 429, both said clearly', async () => {
  const page = await pageAs(reporter);
  await page.goto(`${site.url}/apps/plugin/${PLUGIN}`);
  const open = page.locator('#report-plugin');
  await open.waitFor({ state: 'visible', ...WAIT });
  await open.click();
  await page.waitForSelector('#report[open]', WAIT);
  assert.is(await page.textContent('#report-title'), 'Report Moderated Lanterns');
  // Modal: focus is inside the dialog; Escape closes it and focus goes back to the button.
  assert.ok(await page.evaluate(() => document.getElementById('report')!.contains(document.activeElement)), 'focus in the dialog');
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !(document.getElementById('report') as HTMLDialogElement).open, undefined, WAIT);
  assert.is(await page.evaluate(() => document.activeElement?.id), 'report-plugin');

  await open.click();
  await page.waitForSelector('#report[open]', WAIT);
  assert.equal(await page.locator('#report-reason option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value)), ['malware', 'broken', 'spam', 'abuse', 'copyright', 'other']);
  await page.selectOption('#report-reason', 'spam');
  await page.fill('#report-note', 'Adverts for another launcher in every screenshot.');
  assert.is(await page.textContent('#report-counter'), '49 / 500 characters');
  await page.fill('#report-note', 'x'.repeat(501));
  assert.is(await page.getAttribute('#report-note', 'aria-invalid'), 'true');
  await page.locator('#report-form button[type="submit"]').click();
  assert.match(String(await page.textContent('#report-error')), /500/);
  await page.fill('#report-note', 'Adverts for another launcher in every screenshot.');
  await axe(page, 'report dialog');
  await page.locator('#report-form button[type="submit"]').click();
  await page.waitForFunction(() => !(document.getElementById('report') as HTMLDialogElement).open, undefined, WAIT);
  assert.match(String(await page.textContent('#report-status')), /Thank you/);
  const queue = await apiAs(admin, '/apps/api/reports?status=open');
  const filed = queue.body.reports.find((report: any) => report.target.type === 'plugin' && report.target.plugin === PLUGIN);
  assert.equal([filed.reporter, filed.reason, filed.note], ['mod-reporter', 'spam', 'Adverts for another launcher in every screenshot.']);

  // The same target again: the API says 409, the dialog says why and stays open.
  await open.click();
  await page.waitForSelector('#report[open]', WAIT);
  assert.is(await page.textContent('#report-error'), '', 'a fresh dialog has no error');
  await page.locator('#report-form button[type="submit"]').click();
  await page.waitForFunction(() => /already reported/.test(document.getElementById('report-error')?.textContent ?? ''), undefined, WAIT);
  assert.ok(await page.isVisible('#report'), 'still open');

  // Past the daily limit (answered here as the API would, ten reports being slow to reach).
  await page.route('**/apps/api/reports', (route) =>
    route.fulfill({ status: 429, contentType: 'application/json', headers: { 'retry-after': '3600' }, body: JSON.stringify({ success: false, code: 'RATE_LIMITED', error: 'At most 10 reports a day; try again later' }) }),
  );
  await page.locator('#report-form button[type="submit"]').click();
  await page.waitForFunction(() => /at most 10 reports a day/.test(document.getElementById('report-error')?.textContent ?? ''), undefined, WAIT);
  await page.unroute('**/apps/api/reports');
  await page.locator('#report-cancel').click();
});

test('report dialog: a rating, from the ratings list; no report button on one’s own rating', async () => {
  assert.is((await apiAs(rater, `/apps/api/plugins/${PLUGIN}/ratings`, { method: 'PUT', body: { stars: 1, comment: 'Rude words here' } })).status, 200);
  const page = await pageAs(reporter);
  await page.goto(`${site.url}/apps/plugin/${PLUGIN}`);
  const rating = page.locator('#ratings .rating[data-user="mod-rater"]');
  await rating.waitFor(WAIT);
  await rating.locator('.report-rating').click();
  await page.waitForSelector('#report[open]', WAIT);
  assert.is(await page.textContent('#report-title'), 'Report mod-rater’s rating');
  await page.selectOption('#report-reason', 'abuse');
  await page.locator('#report-form button[type="submit"]').click();
  await page.waitForFunction(() => /Thank you/.test(document.getElementById('ratings-status')?.textContent ?? ''), undefined, WAIT);

  const own = await pageAs(rater);
  await own.goto(`${site.url}/apps/plugin/${PLUGIN}`);
  await own.locator('#ratings .rating[data-user="mod-rater"] .reply-open').waitFor(WAIT);
  assert.is(await own.locator('#ratings .rating[data-user="mod-rater"] .report-rating').count(), 0);
});

test('review page, reports tab: targets grouped with counts; hide the rating, unlist the plugin with a reason; the list updates', async () => {
  // A second reporter of the rating: one target, two reports.
  const second = await testUser(sql, 'mod-second-reporter');
  assert.is((await apiAs(second, '/apps/api/reports', { method: 'POST', body: { target: { type: 'rating', plugin: PLUGIN, user: 'mod-rater' }, reason: 'spam', note: '' } })).status, 201);
  const page = await pageAs(admin);
  await page.goto(`${site.url}/apps/review?tab=reports`);
  const ratingTarget = page.locator(`#reports > li[data-target='${JSON.stringify({ type: 'rating', plugin: PLUGIN, user: 'mod-rater' })}']`);
  const pluginTarget = page.locator(`#reports > li[data-target='${JSON.stringify({ type: 'plugin', plugin: PLUGIN })}']`);
  await ratingTarget.waitFor(WAIT);
  assert.is(await page.getAttribute('#tab-reports', 'aria-current'), 'page');
  assert.ok(await page.isHidden('#queue-tab'), 'the queue is on the other tab');
  assert.match(String(await page.textContent('#status')), /^3 open reports\./);
  assert.is(await ratingTarget.locator('.badge').textContent(), '2 reports');
  assert.is(await ratingTarget.locator('ul > li').count(), 2);
  assert.match(String(await ratingTarget.textContent()), /mod-rater’s rating of mod-lanterns/);
  assert.match(String(await ratingTarget.textContent()), /Abuse or harassment · reported by mod-reporter/);
  assert.is(await pluginTarget.locator('.badge').textContent(), '1 report');
  assert.ok(await pluginTarget.locator('[data-action="hide-rating"]').isHidden(), 'a plugin has no rating to hide');
  await axe(page, 'review reports');
  const zh = await pageAs(admin, 'zh-CN');
  await zh.goto(`${site.url}/apps/review?tab=reports`);
  await zh.waitForSelector('#reports > li', WAIT);
  assert.match(String(await zh.textContent('#status')), /^共 3 条待处理举报。/);
  assert.is(await zh.locator('#reports > li >> nth=0 >> [data-action="dismiss"]').textContent(), '驳回举报');
  await axe(zh, 'review reports zh');

  const before = await apiAs(admin, `/apps/api/plugins/${PLUGIN}/ratings`);
  assert.is(before.body.count, 1);
  await ratingTarget.locator('[data-action="hide-rating"]').click();
  await ratingTarget.waitFor({ state: 'detached', ...WAIT });
  await page.waitForFunction(() => /^Resolved\. 1 open report\./.test(document.getElementById('status')?.textContent ?? ''), undefined, WAIT);
  assert.is((await apiAs(admin, `/apps/api/plugins/${PLUGIN}/ratings`)).body.count, 0, 'the hidden rating left the statistics');
  // Its rater still sees it, and the plugin's page says why nobody else does.
  const own = await pageAs(rater);
  await own.goto(`${site.url}/apps/plugin/${PLUGIN}`);
  await own.locator('#rate-hidden').waitFor({ state: 'visible', ...WAIT });
  assert.match(String(await own.textContent('#rate-hidden')), /A moderator hid your rating/);

  await pluginTarget.locator('input').fill('Adverts are not allowed');
  await pluginTarget.locator('[data-action="unlist"]').click();
  await page.waitForSelector('#status[data-state="empty"]', WAIT);
  assert.is(await page.textContent('#status'), 'No open reports.');
  const plugin = (await apiAs(admin, `/apps/api/plugins/${PLUGIN}`)).body.plugin;
  assert.equal([plugin.status, plugin.review?.reason], ['rejected', 'Adverts are not allowed']);
  assert.ok(await page.locator('#tab-new').isVisible(), 'the other tabs are a link away');
  // The reports tab's count follows the resolutions (read again after each).
  await page.waitForFunction(() => document.getElementById('count-reports')?.textContent === ' 0', undefined, WAIT);
});

test('notifications: the unread count in the header, the list newest first, read one, read all, keyboard and focus', async () => {
  const page = await pageAs(reporter);
  await page.goto(`${site.url}/apps/`);
  const bell = page.locator('#notes-button');
  await bell.waitFor({ state: 'visible', ...WAIT });
  const listed = (await apiAs(reporter, '/apps/api/notifications')).body;
  assert.is(listed.unread, 2, 'one resolution per report');
  assert.is(await page.textContent('#notes-count'), '2');
  assert.is(await bell.getAttribute('aria-label'), 'Notifications, 2 unread');
  assert.is(await bell.getAttribute('aria-expanded'), 'false');

  await bell.click();
  await page.waitForSelector('#notes-panel:not([hidden])', WAIT);
  assert.is(await bell.getAttribute('aria-expanded'), 'true');
  assert.is(await page.evaluate(() => document.activeElement?.id), 'notes-panel', 'focus moves to the list');
  const ids = await page.locator('#notes-list > li').evaluateAll((items) => items.map((item) => Number((item as HTMLElement).dataset.id)));
  assert.equal(ids, listed.notifications.map((note: { id: number }) => note.id), 'newest first, as the API sends them');
  assert.equal(await page.locator('#notes-list > li > strong').allTextContents(), ['Your report about mod-lanterns was handled', 'Your report about mod-lanterns was handled']);
  assert.is(await page.getAttribute('#notes-list > li >> nth=0 >> a', 'href'), `/apps/plugin/${PLUGIN}`);
  assert.is(await page.locator('#notes-list > li.unread').count(), 2);
  assert.match(String(await page.textContent('#notes-status')), /^2 unread\.$/);
  await axe(page, 'notifications open');

  await page.locator('#notes-list > li >> nth=1 >> button').click();
  await page.waitForFunction(() => document.getElementById('notes-count')?.textContent === '1', undefined, WAIT);
  assert.is(await page.locator('#notes-list > li.unread').count(), 1);
  assert.ok(await page.locator('#notes-list > li >> nth=1 >> .mark').isHidden(), 'a read one has no unread mark');
  assert.is(await bell.getAttribute('aria-label'), 'Notifications, 1 unread');
  assert.is((await apiAs(reporter, '/apps/api/notifications')).body.unread, 1);

  await page.locator('#notes-all').click();
  await page.waitForFunction(() => document.getElementById('notes-count')?.textContent === '', undefined, WAIT);
  assert.is(await page.locator('#notes-list > li.unread').count(), 0);
  assert.ok(await page.isDisabled('#notes-all'), 'nothing left to mark');
  assert.is(await page.textContent('#notes-status'), '0 unread.');
  assert.is((await apiAs(reporter, '/apps/api/notifications')).body.unread, 0);

  await page.keyboard.press('Escape');
  await page.waitForSelector('#notes-panel[hidden]', { state: 'attached', ...WAIT });
  assert.is(await bell.getAttribute('aria-expanded'), 'false');
  assert.is(await page.evaluate(() => document.activeElement?.id), 'notes-button', 'focus back on the button');

  // A visitor has no notifications button, and asks for none.
  const visitor = await pageAs(null);
  const asked: string[] = [];
  visitor.on('request', (request) => request.url().includes('/notifications') && asked.push(request.url()));
  await visitor.goto(`${site.url}/apps/`);
  await visitor.waitForSelector('#login', WAIT);
  assert.ok(await visitor.isHidden('#notes-button'));
  assert.equal(asked, []);
});

test('notifications in Chinese: kind-based messages for the author (a rating, an unlisting)', async () => {
  const page = await pageAs(author, 'zh-CN');
  let requests = 0;
  page.on('request', (request) => request.url().includes('/apps/api/notifications') && requests++);
  await page.goto(`${site.url}/apps/mine`);
  const bell = page.locator('#notes-button');
  await bell.waitFor({ state: 'visible', ...WAIT });
  await bell.click();
  await page.waitForSelector('#notes-panel:not([hidden])', WAIT);
  const messages = await page.locator('#notes-list > li > strong').allTextContents();
  assert.ok(messages.includes('mod-rater 给 mod-lanterns 打了分'), messages.join(' | '));
  assert.match(String(await bell.getAttribute('aria-label')), /^通知，\d+ 条未读$/);
  assert.is(requests, 1, 'one request for the page');
  await axe(page, 'notifications zh');
});

test('My plugins: a sparkline of the last 30 days per plugin, from one request', async () => {
  const page = await pageAs(author);
  const asked: string[] = [];
  page.on('request', (request) => request.url().includes('/stats') && asked.push(new URL(request.url()).pathname + new URL(request.url()).search));
  await page.goto(`${site.url}/apps/mine`);
  const spark = page.locator(`#list li[data-id="${PLUGIN}"] .spark[role="img"]`);
  await spark.waitFor(WAIT);
  assert.is(await spark.locator('rect').count(), 30);
  assert.is(await spark.getAttribute('aria-label'), '16 installs in the last 30 days');
  // The pending plugin (no installs) has its line of 30 empty days too.
  assert.is(await page.locator('#list li[data-id="mod-second"] .spark rect').count(), 30);
  assert.equal(asked.length, 1, asked.join());
  assert.match(asked[0]!, /^\/apps\/api\/stats\/installs\?days=30&ids=/);
  await axe(page, 'mine sparklines');
});

test('tokens page: the webhook is set, its secret shown once, rotated, removed; a bad address is said', async () => {
  const page = await pageAs(author);
  await page.goto(`${site.url}/apps/tokens`);
  await page.waitForSelector('#hook:not([hidden])', WAIT);
  assert.is(await page.textContent('#hook-state'), 'No webhook is set.');
  assert.ok(await page.isHidden('#hook-remove'));
  await page.fill('#hook-url', 'http://hooks.example.com/lw');
  await page.locator('#hook-form button[type="submit"]').click();
  await page.waitForSelector('#hook-status[data-state="error"]', WAIT);
  assert.match(String(await page.textContent('#hook-status')), /https/);

  await page.fill('#hook-url', 'https://hooks.example.com/lw');
  await page.locator('#hook-form button[type="submit"]').click();
  await page.waitForSelector('#hook-secret:not([hidden])', WAIT);
  const secret = await page.inputValue('#hook-secret-value');
  assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  await page.waitForFunction(() => /hooks\.example\.com/.test(document.getElementById('hook-state')?.textContent ?? ''), undefined, WAIT);
  assert.ok(await page.isVisible('#hook-remove'));
  assert.is((await apiAs(author, '/apps/api/webhook')).body.webhook.url, 'https://hooks.example.com/lw');
  await axe(page, 'tokens webhook');

  await page.locator('#hook-rotate').click();
  await page.waitForFunction((old) => (document.getElementById('hook-secret-value') as HTMLInputElement).value !== old, secret, WAIT);
  assert.match(await page.inputValue('#hook-secret-value'), /^whsec_/);

  await page.reload();
  await page.waitForSelector('#hook:not([hidden])', WAIT);
  assert.ok(await page.isHidden('#hook-secret'), 'the secret is shown once');
  await page.locator('#hook-remove').click();
  await page.waitForFunction(() => document.getElementById('hook-state')?.textContent === 'No webhook is set.', undefined, WAIT);
  assert.is((await apiAs(author, '/apps/api/webhook')).body.webhook, null);
});

test('in Chinese and in the dark: My plugins with sparklines, the tokens page with the webhook, the open notifications', async () => {
  const zh = await pageAs(author, 'zh-CN');
  await zh.goto(`${site.url}/apps/mine`);
  await zh.waitForSelector('#list .spark[role="img"]', WAIT);
  assert.match(String(await zh.getAttribute('#list .spark[role="img"]', 'aria-label')), /^最近 30 天安装 \d+ 次$/);
  await axe(zh, 'mine zh');
  await zh.goto(`${site.url}/apps/tokens`);
  await zh.waitForSelector('#hook:not([hidden])', WAIT);
  assert.is(await zh.textContent('#hook-state'), '尚未设置 Webhook。');
  await axe(zh, 'tokens zh');

  // The plugin is unlisted by now: its author still sees it.
  const dark = await pageAs(author);
  await dark.emulateMedia({ colorScheme: 'dark' });
  await dark.goto(`${site.url}/apps/plugin/${PLUGIN}`);
  await dark.waitForFunction(() => document.querySelectorAll('#chart rect').length === 30, undefined, WAIT);
  await dark.locator('#notes-button').click();
  await dark.waitForSelector('#notes-panel:not([hidden])', WAIT);
  await axe(dark, 'plugin dark notifications');
});

test('no serious or critical axe-core violation, nothing wider than the window, no script errors', () => {
  assert.equal(axeFindings, []);
  assert.equal(overflows, []);
  assert.equal(problems, []);
});

test.run();
