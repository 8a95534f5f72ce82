// The media upload's pure parts: what counts as an image by its first bytes, and
// the name sent on (the image host's answers: test/site/image-host/).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
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

test.run();
