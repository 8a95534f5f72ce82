// The store with 10,000 plugins shows its first results, a search and its last page
// in the test browser, and a site without an identity provider logs a local account
// in through the header's form. How soon the first results come is measured by
// scripts/bench-pages.ts, not bounded here: a timed test fails on a busy machine.
import type { Browser, Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { launchChromium } from '../helpers/chromium.js';
import { axeViolations, startPagesSite, type PagesSite } from '../helpers/pages-site.js';
import { closeTestSql, testSql } from '../helpers/servers.js';
import { seedSpeedCatalogue } from '../helpers/speed-catalogue.js';

const WAIT = { timeout: 20_000 };
const PLUGINS = 10_000;

let site: PagesSite;
let browser: Browser;
const problems: string[] = [];

test.before(async () => {
  try {
    await setUp();
  } catch (error) {
    // uvu reports a failing hook without its error: say it here.
    console.error('setup failed:', error);
    throw error;
  }
});

async function setUp(): Promise<void> {
  site = await startPagesSite({ provider: false });
  browser = await launchChromium();
  await seedSpeedCatalogue(testSql(), PLUGINS);
}

test.after(async () => {
  await browser?.close();
  await site?.close();
  await closeTestSql();
});

async function freshPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(WAIT.timeout);
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(error.message));
  return page;
}

test(`store: a cold browser shows the first page of ${PLUGINS} plugins, counted`, async () => {
  const page = await freshPage();
  await page.goto(site.url + '/apps/');
  await page.waitForSelector('#results .card', WAIT);
  assert.match(String(await page.textContent('#status')), new RegExp(`of ${PLUGINS.toLocaleString('en')}|of ${PLUGINS}`));
  assert.ok((await page.locator('#results .card').count()) > 0);
  await page.context().close();
});

test('store: a search over 10,000 plugins answers while typing, and the last page is reachable', async () => {
  const page = await freshPage();
  await page.goto(site.url + '/apps/?q=speed%20plugin%209999');
  await page.waitForFunction(() => document.querySelector<HTMLElement>('#results .card')?.dataset.id === 'speed-9999', undefined, WAIT);
  await page.goto(site.url + '/apps/?page=417');
  await page.waitForSelector('#results .card', WAIT);
  assert.match(String(await page.textContent('#status')), /^9985–10000 of 10000/);
  assert.ok(await page.isDisabled('#next'));
  await page.context().close();
});

test('no identity provider: the header opens the local-account form; a wrong password is said, the right one logs in', async () => {
  const page = await freshPage();
  await page.goto(site.url + '/apps/mine');
  await page.locator('#login').click();
  await page.waitForSelector('#login-dialog[open]', WAIT);
  assert.is(await page.evaluate(() => document.activeElement?.id), 'login-username', 'focus in the form');
  assert.equal(await axeViolations(page), []);
  await page.fill('#login-username', 'keeper');
  await page.fill('#login-password', 'wrong password');
  await page.locator('#login-form button[type="submit"]').click();
  await page.waitForSelector('#login-error:not([hidden])', WAIT);
  assert.match(String(await page.textContent('#login-error')), /Wrong user name or password/);
  await page.fill('#login-password', 'correct horse battery');
  await page.locator('#login-form button[type="submit"]').click();
  await page.waitForSelector('#account .username', WAIT);
  assert.is(await page.textContent('#account .username'), 'keeper');
  assert.is(new URL(page.url()).pathname, '/apps/mine', 'still on the page it started from');
  await page.waitForSelector('#list li', WAIT);
  assert.match(String(await page.textContent('#status')), /10000 plugins|10,000 plugins/);
  await page.context().close();
});

test('no script errors', () => {
  assert.equal(problems, []);
});

test.run();
