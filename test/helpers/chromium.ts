// The browser tests' Chromium driven by playwright-core: the npm-shipped one (see
// chromium-binary.ts) or CHROMIUM_PATH; no browser is ever downloaded or installed.
import { chromium, type Browser } from 'playwright-core';
import { chromiumBinary } from './chromium-binary.js';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  const { executablePath, env } = await chromiumBinary();
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS, env: { ...process.env, ...env }, timeout: 30_000 });
}
