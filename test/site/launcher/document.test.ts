// The meaning of LAUNCHER_CONFIG, as a table: bytes in, answers (or refusal) out.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLauncherDocument } from '../../../src/services/site/launcher/document.js';

/** What a file without any info key serves: null everywhere but BLTips, which is [] (docs/api.md). */
const NULL_INFO = {
  latestVersion: null,
  description: null,
  newVersionDescription: null,
  beta: null,
  downloads: null,
  BLTips: [],
  activity: null,
};
const DISABLED = { enabled: false, versions: [] };

interface Case {
  what: string;
  file: string | Uint8Array;
  info?: Record<string, unknown>;
  fastdownload?: { enabled: boolean; versions: unknown[] };
  warnings?: number;
  refused?: RegExp;
}

const cases: Case[] = [
  {
    what: 'all seven info keys and fastdownload under their names',
    file: JSON.stringify({
      latestVersion: '2.0.0',
      description: 'd',
      newVersionDescription: 'n',
      beta: { version: '2.1.0-beta' },
      downloads: [{ name: 'GitHub', url: 'https://x/y.exe' }],
      BLTips: ['tip'],
      activity: [{ title: 'a' }],
      fastdownload: { enabled: true, versions: [{ version: '1.21' }] },
    }),
    info: {
      latestVersion: '2.0.0',
      description: 'd',
      newVersionDescription: 'n',
      beta: { version: '2.1.0-beta' },
      downloads: [{ name: 'GitHub', url: 'https://x/y.exe' }],
      BLTips: ['tip'],
      activity: [{ title: 'a' }],
    },
    fastdownload: { enabled: true, versions: [{ version: '1.21' }] },
    warnings: 0,
  },
  {
    what: 'legacy names are read as the first four',
    file: JSON.stringify({ BLLatest: '1.9', Description: 'old d', BLNewVersionDescription: 'old n', Beta: false }),
    info: { ...NULL_INFO, latestVersion: '1.9', description: 'old d', newVersionDescription: 'old n', beta: false },
  },
  {
    what: 'the new name wins over the legacy one',
    file: JSON.stringify({ BLLatest: '1.9', latestVersion: '2.0', Description: 'old', description: 'new', Beta: true, beta: false }),
    info: { ...NULL_INFO, latestVersion: '2.0', description: 'new', beta: false },
  },
  {
    what: 'a null new name falls back to the legacy value',
    file: JSON.stringify({ latestVersion: null, BLLatest: '1.9' }),
    info: { ...NULL_INFO, latestVersion: '1.9' },
  },
  {
    what: 'missing keys are served as null (BLTips as []), and fastdownload as disabled',
    file: '{}',
    info: NULL_INFO,
    fastdownload: DISABLED,
    warnings: 0,
  },
  {
    what: 'regression: a null BLTips is served as [] like a missing one (launchers iterate it)',
    file: JSON.stringify({ BLTips: null }),
    info: NULL_INFO,
  },
  {
    what: 'keys outside the seven are never served (no leak of notes or secrets)',
    file: JSON.stringify({ latestVersion: '1', adminToken: 'secret', constructor: 'x' }),
    info: { ...NULL_INFO, latestVersion: '1' },
  },
  {
    what: 'a "__proto__" key cannot smuggle in info fields',
    file: '{"__proto__": {"latestVersion": "evil", "fastdownload": {"enabled": true}}}',
    info: NULL_INFO,
    fastdownload: DISABLED,
  },
  {
    what: 'a UTF-8 BOM (Windows editors) is accepted',
    file: '\uFEFF' + JSON.stringify({ latestVersion: '3' }),
    info: { ...NULL_INFO, latestVersion: '3' },
  },
  {
    what: 'non-ASCII text passes through unchanged',
    file: JSON.stringify({ description: '新版本 ✓' }),
    info: { ...NULL_INFO, description: '新版本 ✓' },
  },
  {
    what: 'fastdownload without versions has an empty list',
    file: JSON.stringify({ fastdownload: { enabled: true } }),
    fastdownload: { enabled: true, versions: [] },
    warnings: 0,
  },
  {
    what: 'fastdownload disabled keeps its versions as configured',
    file: JSON.stringify({ fastdownload: { enabled: false, versions: [{ version: '1' }] } }),
    fastdownload: { enabled: false, versions: [{ version: '1' }] },
  },
  {
    what: 'fastdownload extra keys are not served',
    file: JSON.stringify({ fastdownload: { enabled: true, versions: [], mirrorSecret: 'x' } }),
    fastdownload: { enabled: true, versions: [] },
  },
  {
    what: 'fastdownload null counts as absent, without a warning',
    file: JSON.stringify({ fastdownload: null }),
    fastdownload: DISABLED,
    warnings: 0,
  },
  {
    what: 'fastdownload.enabled not a boolean counts as absent',
    file: JSON.stringify({ fastdownload: { enabled: 'yes', versions: [{ version: '1' }] } }),
    fastdownload: DISABLED,
    warnings: 1,
  },
  {
    what: 'fastdownload.enabled missing counts as absent',
    file: JSON.stringify({ fastdownload: { versions: [] } }),
    fastdownload: DISABLED,
    warnings: 1,
  },
  {
    what: 'fastdownload.versions not an array counts as absent',
    file: JSON.stringify({ fastdownload: { enabled: true, versions: { a: 1 } } }),
    fastdownload: DISABLED,
    warnings: 1,
  },
  {
    what: 'fastdownload as an array counts as absent',
    file: JSON.stringify({ fastdownload: [true, []] }),
    fastdownload: DISABLED,
    warnings: 1,
  },
  { what: 'an empty file is refused', file: '', refused: /JSON/ },
  { what: 'truncated JSON is refused', file: '{"latestVersion": "1', refused: /JSON/ },
  { what: 'a top-level array is refused', file: '[]', refused: /object/ },
  { what: 'a top-level null is refused', file: 'null', refused: /object/ },
  { what: 'a top-level string is refused', file: '"2.0.0"', refused: /object/ },
  { what: 'invalid UTF-8 is refused', file: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), refused: /UTF-8/ },
];

for (const c of cases) {
  test(c.what, () => {
    const bytes = typeof c.file === 'string' ? Buffer.from(c.file) : c.file;
    const result = parseLauncherDocument(bytes);
    if (c.refused) {
      assert.is(result.ok, false);
      if (!result.ok) assert.match(result.reason, c.refused);
      return;
    }
    assert.ok(result.ok, result.ok ? '' : result.reason);
    if (!result.ok) return;
    const { document } = result;
    if (c.info) {
      assert.equal(document.info, c.info);
      assert.equal(Object.keys(document.info), Object.keys(NULL_INFO), 'info keys in the served order');
    }
    if (c.fastdownload) assert.equal(document.fastdownload, c.fastdownload);
    if (c.warnings !== undefined) assert.is(document.warnings.length, c.warnings);
  });
}

test.run();
