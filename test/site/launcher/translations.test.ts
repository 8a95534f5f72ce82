// Per-language launcher texts: `translations` in LAUNCHER_CONFIG and /api/info?lang=
// (docs/api.md, "LAUNCHER_CONFIG, key by key"). The table reads the file's rules;
// the server part checks the answers, the default kept for launchers, and refusals.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLauncherDocument } from '../../../src/services/site/launcher/document.js';
import { pickTranslation } from '../../../src/services/site/launcher/translations.js';
import { closeTestSql, startTestSite, tempDir, type TestServer } from '../../helpers/servers.js';

const BASE = {
  latestVersion: '25.3.1',
  description: 'A launcher',
  newVersionDescription: 'Fixes',
  beta: { enabled: true, version: '25.4.0-beta.1', versionName: 'Beta 1', description: 'Try it' },
  downloads: { stable: {} },
  BLTips: ['tip one'],
  activity: { show: true, title: 'Contest', description: 'Build', time: 'May', link: 'https://example.com/c' },
};

const parse = (file: unknown) => {
  const parsed = parseLauncherDocument(new TextEncoder().encode(JSON.stringify(file)));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.document;
};

const cases: { what: string; translations: unknown; tag: string; expect: Record<string, unknown> | undefined; warnings: number }[] = [
  {
    what: 'texts replaced, activity and beta merged key by key, links and versions kept',
    translations: { 'zh-CN': { description: '启动器', BLTips: ['提示'], activity: { title: '比赛', link: 'https://evil.example/' }, beta: { description: '试试' } } },
    tag: 'zh-CN',
    expect: {
      ...BASE,
      description: '启动器',
      BLTips: ['提示'],
      activity: { ...BASE.activity, title: '比赛' },
      beta: { ...BASE.beta, description: '试试' },
    },
    warnings: 0,
  },
  { what: 'a tag is matched in any case', translations: { 'zh-CN': { description: '启动器' } }, tag: 'ZH-cn', expect: { ...BASE, description: '启动器' }, warnings: 0 },
  { what: 'zh-TW finds zh', translations: { zh: { description: '启动器' } }, tag: 'zh-TW', expect: { ...BASE, description: '启动器' }, warnings: 0 },
  { what: 'zh finds zh-CN', translations: { 'zh-CN': { description: '启动器' } }, tag: 'zh', expect: { ...BASE, description: '启动器' }, warnings: 0 },
  { what: 'another language has no translation', translations: { 'zh-CN': { description: '启动器' } }, tag: 'en', expect: undefined, warnings: 0 },
  { what: 'a wrong type keeps the default, with a warning', translations: { zh: { description: 5, BLTips: ['a', 1] } }, tag: 'zh', expect: BASE, warnings: 2 },
  { what: 'translations that are not an object are ignored', translations: ['zh'], tag: 'zh', expect: undefined, warnings: 1 },
  { what: 'a key that is no language tag is ignored', translations: { 'zh CN!': { description: 'x' } }, tag: 'zh', expect: undefined, warnings: 1 },
  { what: 'an activity translated where the file has none keeps none', translations: { zh: { activity: { title: '比赛' } } }, tag: 'zh', expect: { ...BASE, activity: null }, warnings: 1 },
];

for (const { what, translations, tag, expect, warnings } of cases) {
  test(`translations: ${what}`, () => {
    const base = what.startsWith('an activity translated') ? { ...BASE, activity: undefined } : BASE;
    const document = parse({ ...base, translations });
    const picked = pickTranslation(document.translations, tag);
    assert.equal(picked, expect);
    assert.is(document.warnings.length, warnings, document.warnings.join('; '));
    assert.equal(document.info.description, 'A launcher', 'the default stays what launchers read');
  });
}

let site: TestServer;
test.before(async () => {
  const file = join(tempDir(), 'launcher.json');
  writeFileSync(file, JSON.stringify({ ...BASE, translations: { 'zh-CN': { description: '启动器' } } }));
  site = await startTestSite({ LAUNCHER_CONFIG: file });
});
test.after(async () => {
  await site.close();
  await closeTestSql();
});

test('/api/info?lang= answers the same keys with the texts of that language; without lang, the default', async () => {
  const plain = await (await fetch(site.url + '/api/info')).json();
  const chinese = await fetch(site.url + '/api/info?lang=zh-CN');
  const body = await chinese.json();
  assert.is(chinese.status, 200);
  assert.equal(Object.keys(body), Object.keys(plain));
  assert.is(body.description, '启动器');
  assert.is(plain.description, 'A launcher');
  assert.not.equal(chinese.headers.get('etag'), null);
  const english = await (await fetch(site.url + '/api/info?lang=en')).json();
  assert.equal(english, plain);
});

test('/api/info?lang= that is no language tag is 400 BAD_REQUEST naming lang', async () => {
  for (const lang of ['', 'zh_CN', 'x'.repeat(40), '中文']) {
    const res = await fetch(site.url + '/api/info?lang=' + encodeURIComponent(lang));
    const body = await res.json();
    assert.is(res.status, 400, lang);
    assert.equal([body.code, body.field], ['BAD_REQUEST', 'lang']);
  }
});

test.run();
