// The store's web pages in a real Chromium (Debian's, through playwright-core),
// walked the way people use them: a visitor searches and opens a plugin; an author
// logs in, drops the plugin's ZIP (its plugin.json fills the form, the store hosts
// it), adds uploaded images, fixes a field error, edits; an administrator reviews; another user rates and the author replies; a
// hostile plugin shows as text. axe-core checks every page; screenshots of every
// page at two sizes go to artifacts/pages/.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../src/lib/project-root.js';
import { makeJpeg, makePng } from '../fixtures/images/generate.js';
import { seedCatalogue } from '../fixtures/store/catalogue.js';
import { launchChromium } from '../helpers/chromium.js';
import { axeViolations, IMAGE_ORIGIN, loginAs, startPagesSite, type PagesSite } from '../helpers/pages-site.js';
import { closeTestSql, testSql } from '../helpers/servers.js';
import { insertPlugin, testUser } from '../helpers/store-fixtures.js';
import { zipOf } from '../site/store/versions/versions-client.js';

const WAIT = { timeout: 20_000 };
const SHOTS = join(projectRoot(), 'artifacts', 'pages');
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, mobile: { width: 390, height: 844 } };

let site: PagesSite;
let browser: Browser;
const contexts: BrowserContext[] = [];
const problems: string[] = [];
const dialogs: string[] = [];
const axeFindings: string[] = [];
const pagesChecked = new Set<string>();
const overflows: string[] = [];

/** A fresh browser profile (its own cookies), watched for script errors, CSP violations and dialogs. */
async function newPage(options: { locale?: string } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: VIEWPORTS.desktop, locale: options.locale ?? 'en-US' });
  context.setDefaultTimeout(WAIT.timeout);
  await site.mapImages(context);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.url });
  contexts.push(context);
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // Failed loads are checked by URL below (some are expected: a 400 for a bad
    // field, a 404 for a missing plugin); opening bloret:// has no handler here.
    const text = message.text();
    if (message.type() === 'error' && !/^Failed to load resource|scheme does not have a registered handler|bloret:\/\//.test(text)) problems.push(`console: ${text}`);
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() >= 400 && (url.pathname.startsWith('/static/') || url.pathname.startsWith('/img/') && !url.pathname.includes('0'.repeat(32)))) {
      problems.push(`${response.status()} for ${response.url()}`);
    }
  });
  page.on('dialog', async (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    await dialog.accept();
  });
  return page;
}

/** axe-core on the page as it is now, then screenshots at both sizes. */
async function check(page: Page, name: string): Promise<void> {
  for (const finding of await axeViolations(page)) axeFindings.push(`${name}: ${finding}`);
  pagesChecked.add(name);
  mkdirSync(SHOTS, { recursive: true });
  const size = page.viewportSize();
  for (const [label, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    // Responsive: nothing wider than the window (no sideways scrolling), 390 px included.
    const wide = await page.evaluate((width) => {
      if (document.documentElement.scrollWidth <= width) return [];
      return [...document.querySelectorAll<HTMLElement>('body *')]
        .filter((node) => node.getBoundingClientRect().right > width + 1 && !node.closest('.cards.row, dialog:not([open])'))
        .slice(0, 5)
        .map((node) => `${node.tagName.toLowerCase()}#${node.id}.${node.className} right=${Math.round(node.getBoundingClientRect().right)}`);
    }, viewport.width);
    if (wide.length > 0) overflows.push(`${name} at ${viewport.width}px: ${wide.join(', ')}`);
    await page.screenshot({ path: join(SHOTS, `${name}-${label}.png`), fullPage: true });
  }
  if (size) await page.setViewportSize(size);
}

let avatar: string;
let visitor: Page;
let author: Page;
let admin: Page;
let rater: Page;
const NEW_ID = 'sky-lanterns';
const NEW_MANIFEST = { id: NEW_ID, name: 'Sky Lanterns', version: '1.0.0', author: 'skywright', description: 'Floating lanterns for night skies', entry: 'main.qml', permissions: ['ui.nav'] };
const zipBytes = zipOf({ 'plugin.json': JSON.stringify(NEW_MANIFEST), 'main.qml': 'Item {}' });
const zipSha = createHash('sha256').update(zipBytes).digest('hex');

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
  site = await startPagesSite();
  browser = await launchChromium();
  const sql = testSql();
  const seller = await testUser(sql, 'cartographer');
  await seedCatalogue(sql, seller.id);
  // Screenshots stored on the image host, as the media upload would have left them.
  const shots = [];
  for (const seed of [1, 2, 3]) {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(await makeJpeg(seed, 640, 400))]), `shot${seed}.jpg`);
    const answer = (await (await fetch(site.imghost.url + '/api/upload', { method: 'POST', body: form })).json()) as { data: { url: string; webpUrl: string } };
    shots.push({ url: IMAGE_ORIGIN + answer.data.url, webpUrl: IMAGE_ORIGIN + answer.data.webpUrl });
  }
  await sql`update plugins set permissions = ${sql.array(['network', 'read-worlds'])}, screenshots = ${sql.json(shots as never)},
              long_description = ${'A small map in the corner.\nSee https://example.com/minimap for the guide.\n\nWorks offline.'},
              sha256 = ${'ab'.repeat(32)}, featured = true
             where id = 'minimap'`;
  await sql`update plugins set featured = true where id in ('zoomify', 'world-map')`;
  const hostile = await testUser(sql, 'mallory');
  await insertPlugin(sql, 'hostile-plugin', hostile, 'approved', {
    name: '<img src=x onerror=alert(1)>',
    description: '"><script>alert(2)</script>',
    long_description: 'Hello <script>alert(3)</script>\n<b>bold?</b> javascript:alert(4) https://example.com/ok',
    tags: sql.array(['<i>x</i>']),
    permissions: sql.array(['<svg/onload=alert(5)>']),
    author: '<b>Mallory</b>',
  });
  await insertPlugin(sql, 'markdown-readme', hostile, 'approved', {
    long_description: '# Readme\n\n## Features\n\n- **fast** maps\n- [docs](https://example.com/docs)\n\n| key | action |\n|---|--:|\n| M | map |\n\n' +
      '[x](javascript:alert(6)) ![y](javascript:alert(7)) <img src=x onerror=alert(8)>\n\n```\n<script>alert(9)</script>\n```',
  });
  avatar = shots[0]!.url;
  visitor = await newPage();
}

test.after(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await browser?.close();
  await site?.close();
  await closeTestSql();
});

test('landing page: version, downloads, tips and featured plugins from the API', async () => {
  await visitor.goto(site.url + '/');
  await visitor.waitForSelector('#featured .card', WAIT);
  assert.match(String(await visitor.textContent('#version')), /25\.3\.1/);
  assert.ok((await visitor.locator('#downloads a').count()) >= 2, 'download buttons');
  assert.match(String(await visitor.getAttribute('#downloads a >> nth=0', 'href')), /^https:\/\//);
  assert.ok((await visitor.locator('#tips-list li').count()) > 0, 'tips');
  assert.ok(await visitor.isVisible('#activity'), 'activity shown');
  assert.match(String(await visitor.textContent('#activity-title')), /Plugin store/);
  // No image on the page is broken (an activity icon that does not load leaves the page).
  await visitor.waitForFunction(() => [...document.images].every((img) => !img.getAttribute('src') || (img.complete && img.naturalWidth > 0)), undefined, WAIT);
  await check(visitor, 'landing');
});

test('store: first results, a typo finds the plugin, and the query is in the URL', async () => {
  await visitor.goto(site.url + '/apps/');
  await visitor.waitForSelector('#results .card', WAIT);
  assert.match(String(await visitor.textContent('#status')), /of \d+ plugins/);
  assert.ok(await visitor.isVisible('#featured-section'), 'featured row on the front page');
  await check(visitor, 'store');
  await visitor.locator('#q').pressSequentially('minimp');
  await visitor.waitForFunction(() => document.querySelector<HTMLElement>('#results .card')?.dataset.id === 'minimap', undefined, WAIT);
  await visitor.waitForURL(/\?q=minimp$/, WAIT);
  assert.ok(await visitor.isHidden('#featured-section'), 'no featured row over search results');
});

test('store: a tag chip filters, the back button undoes it, a search with nothing says what to do', async () => {
  await visitor.locator('#tags .chip[data-tag="map"]').click();
  await visitor.waitForURL(/tag=map/, WAIT);
  await visitor.waitForFunction(() => document.querySelector('#tags .chip.active')?.getAttribute('aria-pressed') === 'true', undefined, WAIT);
  const ids = await visitor.locator('#results .card').evaluateAll((cards) => cards.map((card) => (card as HTMLElement).dataset.id));
  assert.ok(ids.length > 0 && ids.every((id) => ['minimap', 'world-map', 'map-tools', 'waypoints'].includes(id!)), ids.join());
  await visitor.goBack();
  await visitor.waitForURL((url) => !url.search.includes('tag='), WAIT);
  await visitor.waitForFunction(() => document.querySelector('#tags .chip.active') === null, undefined, WAIT);
  assert.is(await visitor.inputValue('#q'), 'minimp');
  await visitor.locator('#q').fill('zzzzqqqq');
  await visitor.waitForSelector('#status[data-state="empty"]', WAIT);
  assert.match(String(await visitor.textContent('#status')), /zzzzqqqq/);
  await check(visitor, 'store-empty');
});

test('store: sort select and paging keep their state in the URL', async () => {
  await visitor.goto(site.url + '/apps/?sort=installs');
  await visitor.waitForSelector('#results .card', WAIT);
  assert.is(await visitor.inputValue('#sort'), 'installs');
  const api = (await (await fetch(`${site.url}/apps/api/plugins?public=1&sort=installs&limit=24`)).json()) as { plugins: Array<{ id: string }> };
  const shown = await visitor.locator('#results .card').evaluateAll((cards) => cards.map((card) => (card as HTMLElement).dataset.id));
  assert.equal(shown, api.plugins.map((plugin) => plugin.id), 'most installed first, as the API orders them');
  await visitor.locator('#next').click();
  await visitor.waitForURL(/page=2/, WAIT);
  await visitor.waitForFunction(() => document.getElementById('page-info')?.textContent?.includes('2'), undefined, WAIT);
  assert.match(String(await visitor.textContent('#status')), /^25–48 of \d+/);
  await visitor.goBack();
  await visitor.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('1–24'), undefined, WAIT);
});

test('plugin page: permissions before install, screenshots (WebP) open large and move with the keyboard, text with safe links', async () => {
  await visitor.goto(site.url + '/apps/?q=minimap');
  await visitor.locator('#results .card[data-id="minimap"] a').click();
  await visitor.waitForURL(/\/apps\/plugin\/minimap$/, WAIT);
  await visitor.waitForSelector('#plugin:not([hidden])', WAIT);
  // Ids the launcher does not define read as themselves, high risk as it rates them.
  assert.equal(await visitor.locator('#permissions li').allTextContents(), ['High risk network', 'High risk read-worlds']);
  const order = await visitor.evaluate(() => {
    const permissions = document.getElementById('permissions')!;
    const install = document.getElementById('install')!;
    return permissions.compareDocumentPosition(install) & Node.DOCUMENT_POSITION_FOLLOWING;
  });
  assert.ok(order, 'permissions come before the install button');
  assert.is(await visitor.locator('#gallery img').count(), 3);
  assert.match(String(await visitor.getAttribute('#gallery img >> nth=0', 'src')), /^https:\/\/img\.test\/img\/\d+\/[0-9a-f]{32}\.webp$/);
  await visitor.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('#gallery img')].every((img) => img.complete && img.naturalWidth > 0), undefined, WAIT);
  // The long description, read as Markdown: line breaks kept, the https link clickable and marked as user content.
  const link = visitor.locator('#long a');
  assert.is(await link.getAttribute('href'), 'https://example.com/minimap');
  assert.is(await link.getAttribute('rel'), 'nofollow ugc noopener');
  assert.match(String(await visitor.textContent('#long')), /corner\.\nSee/);
  assert.is(await visitor.inputValue('#sha'), 'ab'.repeat(32));
  assert.is(await visitor.getAttribute('#manifest', 'href'), '/apps/api/plugins/minimap/manifest.json');
  assert.ok((await visitor.locator('#related .card').count()) > 0, 'related plugins');
  await check(visitor, 'plugin');

  await visitor.locator('#gallery button').first().focus();
  await visitor.keyboard.press('Enter');
  await visitor.waitForSelector('#viewer[open]', WAIT);
  assert.is(await visitor.textContent('#viewer-count'), '1 / 3');
  await visitor.keyboard.press('ArrowRight');
  assert.is(await visitor.textContent('#viewer-count'), '2 / 3');
  await visitor.keyboard.press('ArrowLeft');
  await visitor.keyboard.press('ArrowLeft');
  assert.is(await visitor.textContent('#viewer-count'), '3 / 3');
  await visitor.waitForFunction(() => (document.getElementById('viewer-img') as HTMLImageElement).naturalWidth > 0, undefined, WAIT);
  await check(visitor, 'plugin-screenshot');
  await visitor.keyboard.press('Escape');
  await visitor.waitForFunction(() => !(document.getElementById('viewer') as HTMLDialogElement).open, undefined, WAIT);
  assert.is(await visitor.evaluate(() => document.activeElement?.closest('#gallery') !== null), true, 'focus back on the gallery');
});

test('plugin page: a screenshot whose WebP fails falls back to the original', async () => {
  const sql = testSql();
  const [row] = await sql<Array<{ screenshots: Array<{ url: string }> }>>`select screenshots from plugins where id = 'minimap'`;
  await sql`update plugins set screenshots = ${sql.json([{ url: row!.screenshots[0]!.url, webpUrl: IMAGE_ORIGIN + '/img/1/' + '0'.repeat(32) + '.webp' }] as never)} where id = 'world-map'`;
  await visitor.goto(site.url + '/apps/plugin/world-map');
  await visitor.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>('#gallery img');
    return !!img && img.complete && img.naturalWidth > 0 && !img.src.endsWith('.webp');
  }, undefined, WAIT);
});

test('plugin page: Install records a click and opens the install_url', async () => {
  const before = (await (await fetch(`${site.url}/apps/api/plugins/minimap`)).json()) as { plugin: { installCount: number } };
  const link = (await (await fetch(`${site.url}/apps/api/plugins/minimap/install-link`)).json()) as { install_url: string };
  await visitor.goto(site.url + '/apps/plugin/minimap');
  await visitor.waitForSelector('#install[data-install-url]', WAIT);
  assert.is(await visitor.getAttribute('#install', 'data-install-url'), link.install_url);
  const opened = visitor.waitForRequest((request) => request.url().startsWith('bloret://'), WAIT).catch(() => null);
  await visitor.locator('#install').click();
  await visitor.waitForSelector('#install-link', WAIT);
  assert.is(await visitor.getAttribute('#install-link', 'href'), link.install_url);
  assert.match(link.install_url, /^bloret:\/\/plugin\/install\?download=.*&id=minimap&source=store&sha256=(ab){32}$/);
  await opened;
  const after = (await (await fetch(`${site.url}/apps/api/plugins/minimap`)).json()) as { plugin: { installCount: number } };
  assert.is(after.plugin.installCount, before.plugin.installCount + 1, 'one click recorded');
  assert.match(String(await visitor.textContent('#installs')), new RegExp(String(before.plugin.installCount + 1)));
});

test('plugin page: copy the SHA-256 (or, where the clipboard is refused, select it for Ctrl+C)', async () => {
  // A page of its own: the tab of the previous test went on to bloret://, and under
  // load that tab was seen to take no input at all afterwards (no click event fired).
  const page = await newPage();
  await page.goto(site.url + '/apps/plugin/minimap');
  await page.waitForSelector('#sha-block:not([hidden])', WAIT);
  // The clipboard needs a focused document; with other browsers busy, Chromium may
  // still refuse it, and the page then selects the text instead. Both are checked.
  await page.bringToFront();
  await page.locator('#copy-sha').click();
  await page.waitForFunction(() => /copied|Ctrl\+C/.test(document.getElementById('install-status')?.textContent ?? ''), undefined, WAIT);
  if (/copied/.test(String(await page.textContent('#install-status')))) {
    assert.is(await page.evaluate(() => navigator.clipboard.readText()), 'ab'.repeat(32));
  } else {
    const selected = await page.evaluate(() => {
      const input = document.getElementById('sha') as HTMLInputElement;
      return input.value.slice(input.selectionStart ?? 0, input.selectionEnd ?? 0);
    });
    assert.is(selected, 'ab'.repeat(32));
  }
});

test('hostile plugin: name, description, tags and permissions show as text; no dialog, no injected element', async () => {
  await visitor.goto(site.url + '/apps/plugin/hostile-plugin');
  await visitor.waitForSelector('#plugin:not([hidden])', WAIT);
  assert.is(await visitor.textContent('#name'), '<img src=x onerror=alert(1)>');
  assert.match(String(await visitor.textContent('#long')), /Hello <script>alert\(3\)<\/script>\n<b>bold\?<\/b> javascript:alert\(4\)/);
  assert.is(await visitor.locator('#long a').count(), 1, 'only the https link is a link');
  assert.is(await visitor.getAttribute('#long a', 'href'), 'https://example.com/ok');
  assert.is(await visitor.locator('#permissions li').first().textContent(), 'High risk <svg/onload=alert(5)>');
  assert.is(await visitor.locator('main img[src="x"], main script, main svg:not(#chart), main b, main i').count(), 0, 'no element made from user text');
  await visitor.goto(site.url + '/apps/?q=hostile');
  await visitor.waitForSelector('#results .card[data-id="hostile-plugin"]', WAIT);
  assert.is(await visitor.textContent('#results .card[data-id="hostile-plugin"] .card-name'), '<img src=x onerror=alert(1)>');
  assert.is(await visitor.locator('#results img[src="x"]').count(), 0);
  assert.equal(dialogs, [], 'no dialog opened');
});

test('a Markdown description shows as headings, lists, links and a table; nothing in it runs', async () => {
  await visitor.goto(site.url + '/apps/plugin/markdown-readme');
  await visitor.waitForSelector('#long h3', WAIT);
  assert.is(await visitor.textContent('#long h2'), 'Readme');
  assert.is(await visitor.textContent('#long h3'), 'Features');
  assert.is(await visitor.locator('#long ul li').count(), 2);
  assert.is(await visitor.textContent('#long li strong'), 'fast');
  assert.is(await visitor.getAttribute('#long a', 'href'), 'https://example.com/docs');
  assert.is(await visitor.getAttribute('#long a', 'rel'), 'nofollow ugc noopener');
  assert.is(await visitor.locator('#long table td.align-right').count(), 1);
  assert.is(await visitor.locator('#long a').count(), 1, 'only the https link is a link');
  assert.is(await visitor.locator('#long img, #long script').count(), 0, 'no element from raw HTML or refused links');
  assert.match(String(await visitor.textContent('#long pre code')), /<script>alert\(9\)<\/script>/);
  assert.equal(dialogs, [], 'no dialog opened');
  await check(visitor, 'plugin-markdown');
});

test('an unknown plugin says so, with a way back to the store', async () => {
  await visitor.goto(site.url + '/apps/plugin/no-such-plugin');
  await visitor.waitForSelector('#status[data-state="error"] a[href="/apps/"]', WAIT);
  await check(visitor, 'plugin-missing');
});

test('author: logs in from the submit page and comes back to it', async () => {
  author = await newPage();
  await author.goto(site.url + '/apps/submit');
  await author.waitForSelector('#status a', WAIT);
  assert.match(String(await author.getAttribute('#login', 'href')), /^\/apps\/auth\/login\?return_to=%2Fapps%2Fsubmit$/);
  await loginAs(author, site, 'skywright', avatar);
  assert.is(new URL(author.url()).pathname, '/apps/submit');
  await author.waitForSelector('#plugin-form:not([hidden])', WAIT);
  assert.is(await author.textContent('#account .username'), 'skywright');
  assert.ok(await author.isVisible('#account a[href="/apps/mine"]'), 'My plugins link');
  assert.ok(await author.isHidden('#account a[href="/apps/review"]'), 'no Review link for a user');
});

test('author: drops the ZIP, which fills the form; adds an icon and two screenshots; a bad homepage is shown at its field', async () => {
  // The ZIP first: its plugin.json gives the id, name, version, author, description and permissions.
  const dataTransfer = await author.evaluateHandle((bytes) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([new Uint8Array(bytes)], 'sky-lanterns.zip', { type: 'application/zip' }));
    return transfer;
  }, [...zipBytes]);
  await author.dispatchEvent('#zip-drop', 'drop', { dataTransfer });
  await author.waitForFunction((id) => (document.getElementById('f-id') as HTMLInputElement).value === id, NEW_ID, WAIT);
  for (const field of ['name', 'version', 'author', 'description'] as const) assert.is(await author.inputValue(`#f-${field}`), NEW_MANIFEST[field], field);
  assert.ok(await author.isDisabled('#f-id'), 'the id is the package\'s');
  assert.equal(await author.locator('#permissions-chips .chip span').allTextContents(), ['ui.nav']);
  assert.ok(await author.isHidden('#link-way'), 'no outside link beside the ZIP');

  await author.fill('#f-longDescription', 'Lanterns drift upwards.\nGuide: https://example.com/lanterns');
  await author.fill('#f-url', 'http://example.com/lanterns');
  await author.locator('#f-tags').pressSequentially('decoration, night');
  await author.keyboard.press('Enter');
  assert.equal(await author.locator('#tags-chips .chip span').allTextContents(), ['decoration', 'night']);

  await author.setInputFiles('#icon-file', { name: 'icon.png', mimeType: 'image/png', buffer: await makePng(7, 128, 128) });
  await author.waitForFunction(() => (document.getElementById('f-icon') as HTMLInputElement).value.startsWith('https://img.test/img/'), undefined, WAIT);
  await author.waitForFunction(() => (document.getElementById('icon-preview') as HTMLImageElement).naturalWidth === 128, undefined, WAIT);
  await author.setInputFiles('#shot-file', [
    { name: 'one.jpg', mimeType: 'image/jpeg', buffer: await makeJpeg(11, 800, 450) },
    { name: 'two.png', mimeType: 'image/png', buffer: await makePng(12, 800, 450) },
  ]);
  await author.waitForFunction(() => document.querySelectorAll('#shot-list li[data-state="done"]').length === 2, undefined, WAIT);
  // Reorder: the second goes first.
  const secondSrc = await author.getAttribute('#shot-list li >> nth=1 >> img', 'src');
  await author.locator('#shot-list li >> nth=1 >> .up').click();
  assert.is(await author.getAttribute('#shot-list li >> nth=0 >> img', 'src'), secondSrc);
  await check(author, 'submit');

  // The form's fields are checked before the package is kept: nothing is made yet.
  await author.locator('#save').click();
  await author.waitForFunction(() => document.getElementById('f-url-error')?.textContent !== '', undefined, WAIT);
  assert.is(await author.getAttribute('#f-url', 'aria-invalid'), 'true');
  assert.match(String(await author.textContent('#f-url-error')), /https/i);
  assert.is(await author.evaluate(() => document.activeElement?.id), 'f-url', 'focus moves to the field');
  assert.is((await fetch(`${site.url}/apps/api/plugins/${NEW_ID}`, { headers: { cookie: await cookieOf(author) } })).status, 404);
  await check(author, 'submit-error');

  await author.fill('#f-url', 'https://example.com/lanterns');
  await author.locator('#save').click();
  await author.waitForURL(/\/apps\/mine\?saved=sky-lanterns$/, WAIT);
  await author.waitForSelector(`#list li[data-id="${NEW_ID}"][data-status="pending"] .badge.pending`, WAIT);
  await check(author, 'mine');

  const { plugin } = (await (await fetch(`${site.url}/apps/api/plugins/${NEW_ID}`, { headers: { cookie: await cookieOf(author) } })).json()) as { plugin: Record<string, any> };
  // The store hosts the ZIP: it is the download, its hash the sha256.
  assert.is(plugin.sha256, zipSha);
  assert.match(plugin.download, new RegExp(`^https://img\\.test/pkg/${zipSha}/[^/]+\\.zip$`));
  assert.is(plugin.version, '1.0.0');
  assert.is(plugin.url, 'https://example.com/lanterns');
  assert.match(plugin.icon, /^https:\/\/img\.test\/img\/\d+\/[0-9a-f]{32}$/);
  assert.is(plugin.screenshots.length, 2);
  assert.match(plugin.screenshots[0].webpUrl, /\.webp$/);
  assert.equal(plugin.tags, ['decoration', 'night']);
  assert.equal(plugin.permissions, ['ui.nav']);
  assert.is(plugin.status, 'pending');
});

async function cookieOf(page: Page): Promise<string> {
  const cookies = await page.context().cookies(site.url);
  return cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
}

test('admin: approves the new plugin in the review queue; it appears in search', async () => {
  admin = await newPage();
  await admin.goto(site.url + '/apps/review');
  await admin.waitForSelector('#status a', WAIT);
  await loginAs(admin, site, 'admin', avatar);
  assert.ok(await admin.isVisible('#account a[href="/apps/review"]'), 'Review link for administrators');
  const entry = admin.locator(`#queue li[data-id="${NEW_ID}"][data-kind="new"]`);
  await entry.locator('.row-open').click(WAIT);
  await entry.locator('.approve').waitFor(WAIT);
  await check(admin, 'review');
  await entry.locator('.approve').click();
  await admin.waitForFunction((id) => document.querySelector(`#queue li[data-id="${id}"] .done`) !== null, NEW_ID, WAIT);

  await visitor.goto(site.url + '/apps/?q=lantern');
  await visitor.waitForSelector(`#results .card[data-id="${NEW_ID}"]`, WAIT);
});

test('author edits the live plugin; My plugins shows the update beside the live version; the admin sees the diff and approves', async () => {
  await author.goto(site.url + `/apps/edit/${NEW_ID}`);
  await author.waitForSelector('#plugin-form:not([hidden])', WAIT);
  assert.is(await author.inputValue('#f-name'), 'Sky Lanterns');
  assert.ok(await author.isDisabled('#f-id'));
  // The version changes by uploading one (versions-pages), not in this form.
  assert.ok(await author.isDisabled('#f-version'));
  await author.fill('#f-description', 'Floating lanterns, now in colour');
  await author.locator('#save').click();
  await author.waitForURL(/\/apps\/mine/, WAIT);
  const row = author.locator(`#list li[data-id="${NEW_ID}"]`);
  await row.locator('.pending-update').waitFor(WAIT);
  assert.is(await row.getAttribute('data-status'), 'approved');
  assert.match(String(await row.textContent()), /1\.0\.0/);
  assert.match(String(await row.locator('.pending-update').textContent()), /Short description/);
  await check(author, 'mine-update');

  await admin.goto(site.url + '/apps/review?tab=updates');
  const entry = admin.locator(`#queue li[data-id="${NEW_ID}"][data-kind="update"]`);
  await entry.locator('.row-open').click(WAIT);
  await entry.locator('table').waitFor(WAIT);
  assert.is(await entry.locator('tr[data-field="description"] ins').textContent(), 'Floating lanterns, now in colour');
  assert.is(await entry.locator('tbody tr').count(), 1, 'only the changed fields');
  await check(admin, 'review-diff');
  await entry.locator('.approve').click();
  await admin.waitForFunction((id) => document.querySelector(`#queue li[data-id="${id}"] .done`) !== null, NEW_ID, WAIT);
  await visitor.goto(site.url + `/apps/plugin/${NEW_ID}`);
  await visitor.waitForFunction(() => document.getElementById('summary')?.textContent?.includes('now in colour'), undefined, WAIT);
});

test('admin: rejects a plugin with a reason, which its author reads in My plugins', async () => {
  const sql = testSql();
  const [owner] = await sql<Array<{ id: string }>>`select id::text from users where username = 'skywright'`;
  await sql`insert into plugins (id, submitter_id, name, version, author, description, download, status)
            values ('half-done', ${owner!.id}, 'Half Done', '0.1', 'skywright', 'Not ready', 'https://github.com/s/h.zip', 'pending')`;
  await admin.goto(site.url + '/apps/review');
  const entry = admin.locator('#queue li[data-id="half-done"]');
  await entry.locator('.row-open').click(WAIT);
  await entry.locator('input').fill('The download link is missing a license');
  await entry.locator('.reject').click();
  await admin.waitForSelector('#queue li[data-id="half-done"] .done', WAIT);
  await author.goto(site.url + '/apps/mine');
  const row = author.locator('#list li[data-id="half-done"][data-status="rejected"]');
  await row.waitFor(WAIT);
  assert.match(String(await row.locator('.reason-text').textContent()), /missing a license/);
});

test('admin: features a plugin from the review page', async () => {
  await admin.goto(site.url + '/apps/review?tab=featured');
  await admin.fill('#feature-q', 'lantern');
  await admin.locator('#feature-form button').click();
  const box = admin.locator(`#feat-${NEW_ID}`);
  await box.waitFor(WAIT);
  await box.check();
  await admin.waitForFunction(() => document.querySelector('#feature-list .status')?.textContent !== '', undefined, WAIT);
  const { plugin } = (await (await fetch(`${site.url}/apps/api/plugins/${NEW_ID}`)).json()) as { plugin: { featured: boolean } };
  assert.is(plugin.featured, true);
});

test('ratings: the author cannot rate; another user rates with the live counter; the author replies', async () => {
  await author.goto(site.url + `/apps/plugin/${NEW_ID}`);
  await author.waitForSelector('#own-plugin-note', WAIT);
  assert.ok(await author.isHidden('#rate-form'), 'no rating form for the submitter');
  assert.ok(await author.isVisible('#edit-row'), 'edit link for the author');

  rater = await newPage();
  await rater.goto(site.url + `/apps/plugin/${NEW_ID}`);
  await rater.waitForSelector('#rate-area a', WAIT);
  await loginAs(rater, site, 'stargazer', avatar);
  await rater.waitForSelector('#rate-form', WAIT);
  await rater.locator('#star-radios label').nth(3).click();
  await rater.locator('#rate-comment').fill('Lovely at night.');
  assert.is(await rater.textContent('#rate-counter'), '16 / 500 characters');
  await rater.locator('#rate-comment').fill('x'.repeat(501));
  assert.is(await rater.getAttribute('#rate-comment', 'aria-invalid'), 'true');
  await rater.locator('#rate-form button[type="submit"]').click();
  assert.match(String(await rater.textContent('#rate-form .error')), /500/);
  await rater.locator('#rate-comment').fill('Lovely at night.');
  await rater.locator('#rate-form button[type="submit"]').click();
  await rater.waitForSelector('#ratings .rating[data-user="stargazer"]', WAIT);
  assert.match(String(await rater.textContent('.rating-big')), /4\.0/);
  assert.match(String(await rater.getAttribute('.bars li >> nth=1', 'aria-label')), /4 stars: 1/);
  await check(rater, 'plugin-rated');

  await author.reload();
  const rating = author.locator('#ratings .rating[data-user="stargazer"]');
  await rating.waitFor(WAIT);
  await rating.locator('.reply-open').click();
  await rating.locator('textarea').fill('Thank you! Colours are next.');
  await rating.locator('.reply-form button[type="submit"]').click();
  await rating.locator('.reply p').waitFor(WAIT);
  assert.is(await rating.locator('.reply p').textContent(), 'Thank you! Colours are next.');
  await rater.reload();
  await rater.waitForSelector('#ratings .reply', WAIT);
  assert.is(await rater.locator('#ratings .reply button').count(), 0, 'no delete button on another user’s reply');
  await author.reload();
  await author.locator('#ratings .reply button.danger').click();
  await author.waitForFunction(() => document.querySelector('#ratings .reply') === null, undefined, WAIT);
});

test('languages: Chinese from Accept-Language, the switch is remembered', async () => {
  const page = await newPage({ locale: 'zh-CN' });
  await page.goto(site.url + '/apps/');
  await page.waitForSelector('#results .card', WAIT);
  assert.is(await page.getAttribute('html', 'lang'), 'zh-CN');
  assert.match(String(await page.getAttribute('#q', 'placeholder')), /搜索插件/);
  assert.match(String(await page.textContent('#status')), /共 \d+ 个插件/);
  await check(page, 'store-zh');
  await page.goto(site.url + '/');
  // The example configuration's translations: the launcher texts in the page's language.
  await page.waitForFunction(() => document.getElementById('activity-title')?.textContent === '插件商店开放投稿', undefined, WAIT);
  assert.match(String(await page.textContent('#lead')), /启动器/);
  assert.match(String(await page.textContent('#tips-list')), /Shift/);
  await check(page, 'landing-zh');
  await page.goto(site.url + '/apps/plugin/minimap');
  await page.waitForSelector('#plugin:not([hidden])', WAIT);
  assert.is(await page.textContent('#install'), '在启动器中安装');
  await check(page, 'plugin-zh');
  await page.locator('#lang-switch').click();
  await page.waitForFunction(() => document.documentElement.lang === 'en', undefined, WAIT);
  await page.waitForSelector('#plugin:not([hidden])', WAIT);
  assert.is(await page.textContent('#install'), 'Install in the launcher');
  await page.goto(site.url + '/apps/');
  assert.is(await page.getAttribute('html', 'lang'), 'en', 'the choice is remembered');
});

test('dark theme: the store and a plugin page pass axe-core (contrast included)', async () => {
  await visitor.emulateMedia({ colorScheme: 'dark' });
  await visitor.goto(site.url + '/apps/');
  await visitor.waitForSelector('#results .card', WAIT);
  await check(visitor, 'store-dark');
  await visitor.goto(site.url + `/apps/plugin/${NEW_ID}`);
  await visitor.waitForSelector('#ratings .rating', WAIT);
  await check(visitor, 'plugin-dark');
  await visitor.emulateMedia({ colorScheme: 'light' });
});

test('logout from the header', async () => {
  await rater.locator('#account button').click();
  await rater.waitForURL(/\/apps\/$/, WAIT);
  await rater.waitForSelector('#login', WAIT);
});

test('axe-core: no serious or critical violation on any page', () => {
  for (const page of ['landing', 'landing-zh', 'store', 'plugin', 'submit', 'mine', 'review', 'review-diff', 'store-zh', 'plugin-dark']) assert.ok(pagesChecked.has(page), `${page} was checked`);
  assert.equal(axeFindings, []);
});

test('responsive: no page is wider than the window, desktop or 390 px', () => {
  assert.equal(overflows, []);
});

test('no script errors, CSP violations or dialogs on any page', () => {
  assert.equal(problems, []);
  // The only dialogs are our own "delete it?" confirmations.
  assert.equal(dialogs.filter((dialog) => !dialog.startsWith('confirm: ')), []);
});

test.run();
