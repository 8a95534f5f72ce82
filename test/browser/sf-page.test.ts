// The /SF search page in a real Chromium (Debian's, driven by playwright-core; no
// browser is ever downloaded). CI installs chromium; without it this test fails
// loudly rather than skipping.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { launchChromium } from '../helpers/chromium.js';
import { startTestImghost, type TestServer } from '../helpers/servers.js';

// How fast a search answers is measured by scripts/bench-pages.ts, not bounded here.
const SCREENSHOT = '/tmp/sf-page.png';

let server: TestServer | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

test.before(async () => {
  server = await startTestImghost();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  // CSP violations are reported as console errors.
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
});

test.after(async () => {
  await browser?.close();
  await server?.close();
});

test('browser: /SF loads the icon list and shows the first page of icons', async () => {
  assert.ok(browser, 'no browser');
  await page.goto(server!.url + '/SF');
  await page.waitForSelector('body[data-ready]', { timeout: 10_000 });
  const total = Number(await page.getAttribute('#status', 'data-count'));
  assert.ok(total > 4000, `only ${total} icons`);
  const tiles = await page.locator('.tile').count();
  assert.ok(tiles > 0 && tiles < total, `${tiles} tiles rendered for ${total} icons: rendering must be paged`);
});

test('browser: typing filters the results by name and alias, exact name first', async () => {
  await page.locator('#search').pressSequentially('arrow left');
  await page.waitForFunction(
    () => {
      const status = document.getElementById('status');
      const tiles = [...document.querySelectorAll<HTMLElement>('.tile')];
      // A tile matches by its name or by one of the SF Symbols names it also answers to.
      const names = (t: HTMLElement) => [t.dataset.name ?? '', ...(t.querySelector('.aliases')?.textContent ?? '').split(' · ')];
      return (
        status?.textContent?.includes('arrow left') &&
        tiles.length > 0 &&
        tiles.every((t) => names(t).some((name) => /arrow.*left|left.*arrow/.test(name)))
      );
    },
    undefined,
    { timeout: 5000 },
  );

  const names = await page.locator('.tile').evaluateAll((tiles) => tiles.map((t) => (t as HTMLElement).dataset.name));
  assert.ok(names.includes('arrow-left'), 'arrow-left found');
  assert.is(names[0], 'arrow-left', 'the exact name first');
  // The thumbnails are real images served by /SF/{name}.svg.
  await page.waitForFunction(() => {
    const image = document.querySelector<HTMLImageElement>('.tile img');
    return !!image && image.complete && image.naturalWidth > 0;
  });
});

test('browser: an input event replaces the list; a new search ranks matches inside a word last', async () => {
  const search = page.locator('#search');
  const replaced = await page.evaluate(async () => {
    const input = document.getElementById('search') as HTMLInputElement;
    const results = document.getElementById('results')!;
    const changed = new Promise<boolean>((resolve) => {
      new MutationObserver((_, observer) => {
        observer.disconnect();
        resolve(true);
      }).observe(results, { childList: true });
    });
    input.value = 'e';
    input.dispatchEvent(new Event('input', { bubbles: true }));
    return changed;
  });
  assert.ok(replaced, 'the list was replaced');
  await search.fill('');
  await search.pressSequentially('brand git');
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('brand git'));
  const names = await page.locator('.tile').evaluateAll((tiles) => tiles.map((t) => (t as HTMLElement).dataset.name));
  assert.is(names[0], 'brand-git', names.join());
  assert.ok(names.includes('brand-github'), names.join());
  assert.is(names.at(-1), 'brand-dolby-digital', 'a match inside a word ranks last');
  assert.ok(names.every((name) => name!.includes('brand') && name!.includes('git')), names.join());
});

test('browser: an SF Symbols name finds its icon, which shows its aliases', async () => {
  const search = page.locator('#search');
  await search.fill('');
  await search.pressSequentially('xmark');
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('xmark'));
  const first = page.locator('.tile').first();
  assert.is(await first.getAttribute('data-name'), 'x', 'the icon xmark stands for comes first');
  assert.match(String(await first.locator('.aliases').textContent()), /(^|·\s)xmark(\s·|$)/);
  assert.match(String(await first.getAttribute('title')), /Also: .*xmark/);
  await search.fill('');
  await search.pressSequentially('building.2');
  await page.waitForFunction(() => document.querySelector<HTMLElement>('.tile')?.dataset.name === 'building');
});

test('browser: changing the colour recolours the thumbnails', async () => {
  await page.locator('#color-text').fill('red');
  await page.waitForFunction(() => document.querySelector<HTMLImageElement>('.tile img')?.getAttribute('src')?.includes('color=%23ff0000'));
  await page.locator('#color-picker').fill('#00aa55');
  await page.waitForFunction(() => document.querySelector<HTMLImageElement>('.tile img')?.getAttribute('src')?.includes('color=%2300aa55'));
  assert.is(await page.inputValue('#color-text'), '#00aa55');

  await page.locator('#color-text').fill('not a colour');
  assert.is(await page.getAttribute('#color-text', 'aria-invalid'), 'true');
  assert.match(String(await page.locator('.tile img').first().getAttribute('src')), /color=%2300aa55/, 'last valid colour kept');
  await page.locator('#color-text').fill('#3366ff');
  await page.waitForFunction(() => document.querySelector<HTMLImageElement>('.tile img')?.getAttribute('src')?.includes('color=%233366ff'));
});

test('browser: PNG switch and size, click copies the absolute URL', async () => {
  assert.ok(await page.locator('#size-field').isHidden(), 'size hidden for SVG');
  await page.locator('input[name="format"][value="png"]').check();
  assert.ok(await page.locator('#size-field').isVisible(), 'size shown for PNG');
  await page.locator('#size').fill('256');

  const tile = page.locator('.tile').first();
  const name = String(await tile.getAttribute('data-name'));
  await tile.click();
  await page.waitForSelector('#toast:not([hidden])');
  const expected = `${server!.url}/SF/${name}?color=%233366ff&png=true&size=256`;
  assert.is(await page.getAttribute('#toast', 'data-url'), expected);
  assert.match(String(await page.textContent('#toast')), /^Copied/);
  assert.is(await page.evaluate(() => navigator.clipboard.readText()), expected);
  await page.screenshot({ path: SCREENSHOT });

  // The copied link works.
  const answer = await fetch(expected);
  assert.is(answer.status, 200);
  assert.is(answer.headers.get('content-type'), 'image/png');
  assert.is((await sharp(Buffer.from(await answer.arrayBuffer())).metadata()).width, 256);

  await page.locator('input[name="format"][value="svg"]').check();
  await tile.click();
  await page.waitForFunction(() => document.getElementById('toast')?.dataset.url?.endsWith('.svg?color=%233366ff'));
});

test('browser: no script errors or CSP violations on the page', () => {
  assert.equal(pageErrors, []);
});

test.run();
