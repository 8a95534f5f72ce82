// The multipart parser must read what a real browser sends: Chromium builds the
// body (its own boundary, quoting and escaping of names) and we upload it to the
// image host's real route.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.js';
import { startTestImghost, type TestServer } from '../helpers/servers.js';

let server: TestServer;
let browser: Browser | undefined;
let page: Page;

test.before(async () => {
  server = await startTestImghost();
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(server.url + '/SF');
});

test.after(async () => {
  await browser?.close();
  await server.close();
});

interface UploadAnswer {
  status: number;
  body: { success: boolean; message: string; data?: { md5: string; filename: string; url: string } };
  sentBytes: string;
}

/** In the page: draw a PNG on a canvas, put it in a FormData with a field and a tricky name, upload. */
function uploadFromPage(fileName: string, partName: string): Promise<UploadAnswer> {
  return page.evaluate(
    async ({ fileName, partName }) => {
      const canvas = document.createElement('canvas');
      canvas.width = 40;
      canvas.height = 30;
      const g = canvas.getContext('2d')!;
      g.fillStyle = '#e33';
      g.fillRect(0, 0, 40, 30);
      const blob: Blob = await new Promise((resolve) => canvas.toBlob((b) => resolve(b!), 'image/png'));
      const bytes = new Uint8Array(await blob.arrayBuffer());
      const form = new FormData();
      form.append('note', 'line one\r\nline "two" ü');
      form.append(partName, blob, fileName);
      const res = await fetch('/api/upload', { method: 'POST', body: form });
      return { status: res.status, body: await res.json(), sentBytes: String(bytes.length) };
    },
    { fileName, partName },
  );
}

const names = [
  { what: 'plain name', fileName: 'red.png' },
  { what: 'spaces and quotes', fileName: 'my "red" image.png' },
  { what: 'non-ASCII', fileName: 'rött bild ✓.png' },
  { what: 'backslash and semicolon', fileName: 'a\\b;c=d.png' },
];
for (const row of names) {
  test(`browser: a FormData upload from Chromium is parsed (${row.what})`, async () => {
    assert.ok(browser, 'no browser');
    const answer = await uploadFromPage(row.fileName, 'image');
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    assert.is(answer.body.success, true);
    assert.match(answer.body.data!.filename, /^[0-9a-f]{32}\.png$/);
    const stored = await fetch(server.url + answer.body.data!.url);
    assert.is(stored.headers.get('content-type'), 'image/png');
    assert.is(String((await stored.arrayBuffer()).byteLength), answer.sentBytes);
  });
}

test('browser: a Chromium form without the image part gives "No file uploaded"', async () => {
  assert.ok(browser, 'no browser');
  const answer = await uploadFromPage('red.png', 'picture');
  assert.is(answer.status, 400);
  assert.is(answer.body.message, 'No file uploaded');
});

test.run();
