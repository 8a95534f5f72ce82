// The media upload's pure parts: what counts as an image by its first bytes, the
// name sent on, and what an image host's answer must look like to be handed out.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AnswerShapeError, failureMessageOf, uploadedImageFrom } from '../../../src/services/site/images/image-host-answer.js';
import { forwardedName, imageTypeOf } from '../../../src/services/site/images/image-type.js';

const bytes = (...values: Array<number | string>) =>
  Buffer.concat(values.map((value) => (typeof value === 'string' ? Buffer.from(value, 'latin1') : Buffer.from([value]))));

const signatures = [
  { what: 'JPEG (SOI + marker)', head: bytes(0xff, 0xd8, 0xff, 0xe0, 'JFIF'), type: 'jpeg' },
  { what: 'a 3-byte JPEG start', head: bytes(0xff, 0xd8, 0xff), type: 'jpeg' },
  { what: 'PNG', head: bytes(0x89, 'PNG\r\n\x1a\n', 0, 0, 0, 13), type: 'png' },
  { what: 'GIF87a', head: bytes('GIF87a', 1, 0), type: 'gif' },
  { what: 'GIF89a', head: bytes('GIF89a', 1, 0), type: 'gif' },
  { what: 'WebP', head: bytes('RIFF', 0, 0, 0, 0, 'WEBP'), type: 'webp' },
  { what: 'RIFF that is not WebP (WAV)', head: bytes('RIFF', 0, 0, 0, 0, 'WAVE'), type: null },
  { what: 'a PNG signature cut short', head: bytes(0x89, 'PNG'), type: null },
  { what: 'JPEG SOI without a marker', head: bytes(0xff, 0xd8, 0x00, 0x00), type: null },
  { what: 'GIF with another version', head: bytes('GIF90a', 1, 0), type: null },
  { what: 'text', head: bytes('hello, world'), type: null },
  { what: 'SVG', head: bytes('<svg xmlns="'), type: null },
  { what: 'nothing', head: Buffer.alloc(0), type: null },
];
for (const row of signatures) {
  test(`imageTypeOf: ${row.what} is ${row.type ?? 'not an image'}`, () => {
    assert.is(imageTypeOf(row.head), row.type);
  });
}

const names = [
  { what: 'a kept extension', client: 'photo.JPEG', type: 'jpeg', sent: 'image.jpeg' },
  { what: 'a kept extension of another type (the image host keeps it too)', client: 'anim.png', type: 'gif', sent: 'image.png' },
  { what: 'no extension', client: 'photo', type: 'png', sent: 'image.png' },
  { what: 'a foreign extension', client: 'notes.txt', type: 'webp', sent: 'image.webp' },
  { what: 'quotes and CRLF never reach the header', client: 'a"\r\nX-Evil: 1.gif', type: 'gif', sent: 'image.gif' },
  { what: 'an empty name', client: '', type: 'jpeg', sent: 'image.jpg' },
] as const;
for (const row of names) {
  test(`forwardedName: ${row.what}`, () => {
    assert.is(forwardedName(row.client, row.type), row.sent);
  });
}

const BASE = 'https://images.example/cdn';
const md5 = 'd41d8cd98f00b204e9800998ecf8427e';
const good = () => ({
  success: true,
  message: 'Upload successful',
  data: { url: `/img/1700000000000/${md5}`, webpUrl: `/img/1700000000000/${md5}.webp`, timestamp: 1700000000000, md5, filename: `${md5}.png` },
});

test('uploadedImageFrom: the five fields, URLs absolute under the public base (its path kept)', () => {
  assert.equal(uploadedImageFrom(good(), BASE), {
    url: `${BASE}/img/1700000000000/${md5}`,
    webpUrl: `${BASE}/img/1700000000000/${md5}.webp`,
    timestamp: 1700000000000,
    md5,
    filename: `${md5}.png`,
  });
});

const withData = (change: Record<string, unknown>) => {
  const answer = good();
  return { ...answer, data: { ...answer.data, ...change } };
};
const shapes = [
  { what: 'not an object', answer: 'ok', field: /success/ },
  { what: 'an array', answer: [good()], field: /success/ },
  { what: 'success false', answer: { ...good(), success: false }, field: /success/ },
  { what: 'success "true" as a string', answer: { ...good(), success: 'true' }, field: /success/ },
  { what: 'no data', answer: { success: true }, field: /data/ },
  { what: 'url missing', answer: withData({ url: undefined }), field: /data\.url/ },
  { what: 'url absolute on another host', answer: withData({ url: 'https://evil.example/x' }), field: /data\.url/ },
  { what: 'url protocol-relative', answer: withData({ url: '//evil.example/x' }), field: /data\.url/ },
  { what: 'url with a backslash after the slash', answer: withData({ url: '/\\evil.example' }), field: /data\.url/ },
  { what: 'url with a space', answer: withData({ url: '/img/1/a b' }), field: /data\.url/ },
  { what: 'url with a quote', answer: withData({ url: '/img/"x' }), field: /data\.url/ },
  { what: 'webpUrl a number', answer: withData({ webpUrl: 5 }), field: /data\.webpUrl/ },
  { what: 'timestamp a string', answer: withData({ timestamp: '1700000000000' }), field: /data\.timestamp/ },
  { what: 'timestamp fractional', answer: withData({ timestamp: 1.5 }), field: /data\.timestamp/ },
  { what: 'timestamp negative', answer: withData({ timestamp: -1 }), field: /data\.timestamp/ },
  { what: 'md5 upper case', answer: withData({ md5: md5.toUpperCase() }), field: /data\.md5/ },
  { what: 'md5 too short', answer: withData({ md5: md5.slice(1) }), field: /data\.md5/ },
  { what: 'filename with a path', answer: withData({ filename: '../x.png' }), field: /data\.filename/ },
  { what: 'filename empty', answer: withData({ filename: '' }), field: /data\.filename/ },
];
for (const row of shapes) {
  test(`uploadedImageFrom refuses ${row.what}`, () => {
    try {
      uploadedImageFrom(row.answer, BASE);
      assert.unreachable('accepted');
    } catch (error) {
      assert.instance(error, AnswerShapeError);
      assert.match((error as Error).message, row.field);
    }
  });
}

const failures = [
  { what: 'the message of a JSON failure', text: '{"success":false,"message":"File is not a valid image"}', message: 'File is not a valid image' },
  { what: 'control characters made spaces', text: JSON.stringify({ message: 'bad\r\nimage\u0000' }), message: 'bad image' },
  { what: 'a long message cut at 200 characters', text: JSON.stringify({ message: 'x'.repeat(500) }), message: 'x'.repeat(200) },
  { what: 'no message for text', text: 'Internal Server Error', message: undefined },
  { what: 'no message for a non-string message', text: '{"message":42}', message: undefined },
  { what: 'no message for a blank one', text: '{"message":" \\n "}', message: undefined },
  { what: 'no message for a JSON array', text: '["message"]', message: undefined },
];
for (const row of failures) {
  test(`failureMessageOf: ${row.what}`, () => {
    assert.is(failureMessageOf(row.text), row.message);
  });
}

test.run();
