// The one check of the image host's answers (image-host/answer.ts): the status,
// JSON, each call's shape, and a failure's message fit to quote.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../src/http/errors.js';
import { AnswerShapeError, checkAnswer, failureMessageOf } from '../../../src/services/site/image-host/answer.js';
import { uploadedImageFrom } from '../../../src/services/site/image-host/image-answer.js';
import { inspectedPackageFrom } from '../../../src/services/site/image-host/package-answer.js';

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
const IMAGE = 'an image upload';
const readImage = (json: unknown) => uploadedImageFrom(json, BASE);
const checks = [
  { what: 'the expected status and shape: accepted', status: 200, text: JSON.stringify(good()), kind: 'accepted' },
  { what: 'a 400 with its reason: refused, the reason kept', status: 400, text: '{"success":false,"message":"File is not a valid image"}', kind: 'refused', said: 'File is not a valid image' },
  { what: 'a 413 without JSON: refused, no reason', status: 413, text: 'Payload Too Large', kind: 'refused', said: undefined },
  { what: 'a 500', status: 500, text: '{"success":false}', kind: 'failed', error: /failed \(answered 500\)/ },
  { what: 'a 503', status: 503, text: '', kind: 'failed', error: /busy \(answered 503\)/ },
  { what: 'a 507', status: 507, text: '', kind: 'failed', error: /disk is full \(answered 507\)/ },
  { what: 'a 401 (the token)', status: 401, text: '', kind: 'failed', error: /IMGHOST_UPLOAD_TOKEN/ },
  { what: 'a success of another status', status: 201, text: JSON.stringify(good()), kind: 'failed', error: /answered 201/ },
  { what: 'HTML at the expected status', status: 200, text: '<html>502 Bad Gateway</html>', kind: 'failed', error: /not JSON/ },
  { what: 'JSON of another shape', status: 200, text: '{"success":true,"data":{"url":42}}', kind: 'failed', error: /unexpected answer to an image upload: data\.url/ },
] as const;
for (const row of checks) {
  test(`checkAnswer: ${row.what}`, () => {
    if (row.kind === 'failed') {
      try {
        checkAnswer({ status: row.status, text: row.text }, 200, readImage, IMAGE);
        assert.unreachable('accepted');
      } catch (error) {
        assert.instance(error, HttpError);
        assert.is((error as HttpError).status, 502);
        assert.is((error as HttpError).code, 'UPSTREAM_FAILED');
        assert.match((error as Error).message, row.error);
      }
      return;
    }
    const checked = checkAnswer({ status: row.status, text: row.text }, 200, readImage, IMAGE);
    assert.is(checked.kind, row.kind);
    if (checked.kind === 'refused' && row.kind === 'refused') {
      assert.is(checked.status, row.status);
      assert.is(checked.said, row.said);
    }
    if (checked.kind === 'accepted') assert.is(checked.value.url, `${BASE}/img/1700000000000/${md5}`);
  });
}

test('checkAnswer: a reader that breaks (not a shape it refused) is thrown as it is, not made a 502', () => {
  const broken = () => {
    throw new TypeError('a bug');
  };
  assert.throws(() => checkAnswer({ status: 200, text: '{}' }, 200, broken, IMAGE), (error: unknown) => error instanceof TypeError);
});

const sha256 = 'a'.repeat(64);
const inspection = (change: Record<string, unknown> = {}) => ({
  success: true,
  data: { sha256, size: 120, entryCount: 1, manifest: null, manifestProblem: 'The package has no plugin.json', findings: [], files: [{ name: 'a.txt', sha256 }], ...change },
});
test('inspectedPackageFrom: hash, size, entry count and the report of the contents', () => {
  assert.equal(inspectedPackageFrom(inspection()), {
    sha256, size: 120, entryCount: 1,
    report: { manifest: null, manifestProblem: 'The package has no plugin.json', findings: [], files: [{ name: 'a.txt', sha256 }] },
  });
});
const inspections = [
  { what: 'no data', answer: { success: true }, field: /data/ },
  { what: 'sha256 upper case', answer: inspection({ sha256: sha256.toUpperCase() }), field: /data\.sha256/ },
  { what: 'size zero', answer: inspection({ size: 0 }), field: /data\.size/ },
  { what: 'no entries (the image host refuses an empty ZIP)', answer: inspection({ entryCount: 0 }), field: /data\.entryCount/ },
  { what: 'more files than entries', answer: inspection({ files: [{ name: 'a', sha256 }, { name: 'b', sha256 }] }), field: /data\.files/ },
  { what: 'neither a manifest nor a reason', answer: inspection({ manifestProblem: null }), field: /data\.manifestProblem/ },
];
for (const row of inspections) {
  test(`inspectedPackageFrom refuses ${row.what}`, () => {
    try {
      inspectedPackageFrom(row.answer);
      assert.unreachable('accepted');
    } catch (error) {
      assert.instance(error, AnswerShapeError);
      assert.match((error as Error).message, row.field);
    }
  });
}

test.run();
