// The API tokens page in a real Chromium: an author logs in, creates a token, sees
// its secret once (copied to the clipboard), finds it in the list without the
// secret, uses it from a script, and revokes it. axe-core checks the page.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { launchChromium } from '../helpers/chromium.js';
import { axeViolations, loginAs, startPagesSite, type PagesSite } from '../helpers/pages-site.js';
import { closeTestSql } from '../helpers/servers.js';

const WAIT = { timeout: 20_000 };
let site: PagesSite;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

test.before(async () => {
  site = await startPagesSite();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  context.setDefaultTimeout(WAIT.timeout);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url });
  page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('dialog', (dialog) => dialog.accept());
});
test.after(async () => {
  await context?.close();
  await browser?.close();
  await site?.close();
  await closeTestSql();
});

test('logged out: the page says to log in and shows no form', async () => {
  await page.goto(site.url + '/apps/tokens');
  await page.waitForSelector('#status[data-state="error"]', WAIT);
  assert.is(await page.isVisible('#token-form'), false);
});

test('create, copy once, list without the secret, use, revoke', async () => {
  await loginAs(page, site, 'token-author', '');
  await page.goto(site.url + '/apps/tokens');
  await page.waitForSelector('#status[data-state="empty"]', WAIT);
  await page.fill('#token-name', 'release workflow');
  await page.check('input[value="media:upload"]');
  await page.selectOption('#token-days', '30');
  await page.click('#token-form button[type="submit"]');
  await page.waitForSelector('#token-secret:not([hidden])', WAIT);
  const secret = await page.inputValue('#token-secret-value');
  assert.match(secret, /^lwt_[A-Za-z0-9_-]{43}$/);
  await page.click('#token-copy');
  await page.waitForSelector('#token-copy-status:has-text("Copied")', WAIT);
  assert.is(await page.evaluate(() => navigator.clipboard.readText()), secret);

  await page.waitForSelector('#list .row-item', WAIT);
  const listed = await page.textContent('#list');
  assert.ok(listed!.includes('release workflow') && listed!.includes('plugins:write,media:upload'), listed!);
  assert.ok(listed!.includes(secret.slice(0, 10)), 'the prefix is shown');
  assert.not.ok(listed!.includes(secret), 'the secret is not in the list');
  const violations = await axeViolations(page);
  assert.equal(violations, []);

  // The token works from a script until it is revoked on the page.
  const use = () => fetch(site.url + '/apps/api/plugins/none-such', { method: 'PATCH', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: '{"version":"2"}' });
  assert.is((await use()).status, 404);
  await page.click('#list .row-item button');
  await page.waitForSelector('#status[data-state="empty"]', WAIT);
  assert.is((await use()).status, 401);

  // After a reload the secret is gone for good.
  await page.reload();
  await page.waitForSelector('#status[data-state="empty"]', WAIT);
  assert.is(await page.isVisible('#token-secret'), false);
  assert.equal(problems, []);
});

test.run();
