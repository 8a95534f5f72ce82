// The whole product for browser tests: the image host, a fake identity provider
// that approves every login at once, and the site on a port known before it starts
// (its PUBLIC_URL must be its real origin: the OAuth redirect and the cross-site
// check compare against it). Images are handed out under https://img.test, which
// the browser context maps to the real image host (media URLs must be https).
import { copyFileSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { projectRoot } from '../../src/lib/project-root.js';
import { listen, type RunningServer } from '../../src/http/server.js';
import { createSite } from '../../src/services/site/app.js';
import { startFakeIdp, type FakeIdp } from './fake-idp.js';
import { startTestImghost, tempDir, testConfig, testLogger, testSql, type TestServer } from './servers.js';

export const IMAGE_ORIGIN = 'https://img.test';

export interface PagesSite {
  url: string;
  idp: FakeIdp | undefined;
  imghost: TestServer;
  /** Routes https://img.test/* of a browser context to the image host. */
  mapImages(context: BrowserContext): Promise<void>;
  close(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export async function startPagesSite(options: { provider?: boolean; env?: Record<string, string> } = {}): Promise<PagesSite> {
  const imghost = await startTestImghost();
  const idp = options.provider === false ? undefined : await startFakeIdp();
  if (idp) idp.autoApprove = true;
  const launcherConfig = join(tempDir(), 'launcher.json');
  copyFileSync(join(projectRoot(), 'config', 'launcher.example.json'), launcherConfig);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = testConfig({
    PUBLIC_URL: url,
    LAUNCHER_CONFIG: launcherConfig,
    IMAGE_HOST_URL: imghost.url,
    IMAGE_HOST_PUBLIC_URL: IMAGE_ORIGIN,
    ADMIN_USERS: 'admin',
    ...(idp ? idp.env() : {}),
    ...options.env,
  });
  const site = createSite({ config, sql: testSql(), log: testLogger() });
  const server: RunningServer = await listen(site.handler, '127.0.0.1', port);
  return {
    url,
    idp,
    imghost,
    mapImages: async (context) => {
      await context.route(`${IMAGE_ORIGIN}/**`, async (route) => {
        const target = imghost.url + new URL(route.request().url()).pathname;
        try {
          // A GET on a kept-alive connection that the image host closed as idle at
          // the same moment fails with ECONNRESET (the race every HTTP client has);
          // it is safe to send again, once.
          const response = await route.fetch({ url: target }).catch((error: Error) => {
            if (!/ECONNRESET|socket hang up/i.test(String(error?.message))) throw error;
            return route.fetch({ url: target });
          });
          await route.fulfill({ response });
        } catch (error) {
          // An image still in flight when its test closes the page: Playwright
          // disposes the route ("Fetch response has been disposed", "Target closed"),
          // which would otherwise end the whole file as an unhandled rejection
          // after every test passed. Any other failure stays an error.
          if (!/disposed|closed/i.test(String((error as Error)?.message))) throw error;
        }
      });
    },
    close: async () => {
      await server.close(1000);
      await site.close();
      await idp?.close();
      await imghost.close();
    },
  };
}

/** Logs `username` in through the header's login link and the fake provider. */
export async function loginAs(page: Page, site: PagesSite, username: string, picture: string): Promise<void> {
  site.idp!.userinfo.body = { sub: `subject-${username}`, preferred_username: username, picture };
  await page.locator('#login').click();
  await page.waitForSelector('#account .username', { timeout: 15_000 });
}

let axeSource: string | undefined;

/** axe-core, injected into the page: its serious and critical violations. */
export async function axeViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined');
  // Evaluated through the DevTools protocol: the page's CSP (no inline scripts)
  // stays in force for everything else.
  axeSource ??= readFileSync(join(projectRoot(), 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  if (!loaded) await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** Where pages opened by openPageAs put their contexts (to close) and script errors (to assert none). */
export interface PageTrail {
  contexts: BrowserContext[];
  problems: string[];
}

/**
 * A page in a fresh browser context of its own, images mapped to the image host,
 * logged in by the `sid=...` cookie when one is given (else a visitor).
 */
export async function openPageAs(browser: Browser, site: PagesSite, cookie: string | null, trail: PageTrail, locale = 'en-US'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale });
  context.setDefaultTimeout(20_000);
  trail.contexts.push(context);
  await site.mapImages(context);
  if (cookie) await context.addCookies([{ name: 'sid', value: cookie.slice('sid='.length), url: site.url }]);
  const page = await context.newPage();
  page.on('pageerror', (error) => trail.problems.push(`pageerror: ${error.message}`));
  return page;
}
