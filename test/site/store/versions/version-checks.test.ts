// The checks of a version from what is known of it (src/services/site/store/versions/manifest/
// checks.ts): each code at its level, with a message a reviewer reads, never a
// secret; and their bound per code. Pure functions: no server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { computeChecks, isBlocked, warningCount, type CheckInputs } from '../../../../src/services/site/store/versions/manifest/checks.js';
import { boundChecks, MAX_CHECKS_PER_CODE } from '../../../../src/services/site/store/versions/manifest/version-checks.js';
import { withRisk } from '../../../../src/services/site/store/versions/manifest/permissions.js';

const quiet: CheckInputs = { findings: [], blockedFiles: [], permissions: withRisk(['ui.nav']), entryKind: 'qml', live: null, similar: [] };

test('each check at its level, naming what it is about', () => {
  const cases: Array<{ what: string; inputs: Partial<CheckInputs>; expect: Array<{ code: string; level: string; message: RegExp; file?: string }> }> = [
    { what: 'nothing to say', inputs: {}, expect: [] },
    {
      what: 'a secret: the file and the kind',
      inputs: { findings: [{ code: 'secret', file: 'config/.env', kind: 'GitHub token' }] },
      expect: [{ code: 'secret', level: 'block', message: /^"config\/\.env" holds what looks like a GitHub token; remove it from the package, and revoke it$/, file: 'config/.env' }],
    },
    {
      what: 'a blocked file',
      inputs: { blockedFiles: ['lib/evil.dll'] },
      expect: [{ code: 'blocked-file', level: 'block', message: /^"lib\/evil\.dll" is byte for byte a file of a package an administrator removed as malware$/, file: 'lib/evil.dll' }],
    },
    {
      what: 'a native executable, by format',
      inputs: { findings: [{ code: 'native-executable', file: 'bin/tool', format: 'ELF' }] },
      expect: [{ code: 'native-executable', level: 'warn', message: /^"bin\/tool" is a native ELF executable$/, file: 'bin/tool' }],
    },
    {
      what: 'high-risk permissions, one each',
      inputs: { permissions: withRisk(['ui.nav', 'process.exec', 'made.up']) },
      expect: [
        { code: 'high-risk-permission', level: 'warn', message: /^Asks for process\.exec, a high-risk permission/ },
        { code: 'high-risk-permission', level: 'warn', message: /^Asks for made\.up, a high-risk permission/ },
      ],
    },
    {
      what: 'permissions the live version did not have',
      inputs: { permissions: withRisk(['ui.nav', 'ui.home']), live: { permissions: ['ui.nav'], entryKind: 'qml' } },
      expect: [{ code: 'new-permission', level: 'warn', message: /^Asks for ui\.home, which the live version does not have$/ }],
    },
    {
      what: 'another entry kind than the live version',
      inputs: { entryKind: 'python', live: { permissions: ['ui.nav'], entryKind: 'qml' } },
      expect: [{ code: 'entry-kind-changed', level: 'warn', message: /^Runs Python code inside the launcher, where the live version runs a QML page$/ }],
    },
    { what: 'a live version of unknown entry kind: no change to tell', inputs: { entryKind: 'python', live: { permissions: ['ui.nav'], entryKind: null } }, expect: [] },
    {
      what: 'a name close to another plugin\'s',
      inputs: { similar: [{ id: 'minimap', name: 'MiniMap', close: 'name', mine: 'Mini-Map' }] },
      expect: [{ code: 'similar-name', level: 'warn', message: /^The name "Mini-Map" is close to the approved plugin "MiniMap" \(minimap\)$/ }],
    },
  ];
  for (const c of cases) {
    const checks = computeChecks({ ...quiet, ...c.inputs });
    assert.is(checks.length, c.expect.length, `${c.what}: ${JSON.stringify(checks)}`);
    c.expect.forEach((e, i) => {
      assert.is(checks[i]!.code, e.code, c.what);
      assert.is(checks[i]!.level, e.level, c.what);
      assert.match(checks[i]!.message, e.message, c.what);
      assert.is(checks[i]!.file, e.file, c.what);
    });
  }
});

test('blocks come first; the counts say what the queue shows', () => {
  const checks = computeChecks({
    ...quiet,
    permissions: withRisk(['net.http']),
    findings: [{ code: 'native-executable', file: 'a.exe', format: 'PE' }, { code: 'secret', file: 'k.pem', kind: 'PEM private key' }],
  });
  assert.equal(checks.map((c) => c.code), ['secret', 'native-executable', 'high-risk-permission']);
  assert.ok(isBlocked(checks));
  assert.is(warningCount(checks), 2);
});

test('at most MAX_CHECKS_PER_CODE checks of one code are kept, and one more counts the rest', () => {
  const findings = Array.from({ length: MAX_CHECKS_PER_CODE + 7 }, (_, i) => ({ code: 'native-executable' as const, file: `bin/${i}.exe`, format: 'PE' as const }));
  const checks = boundChecks(computeChecks({ ...quiet, findings }));
  assert.is(checks.length, MAX_CHECKS_PER_CODE + 1);
  assert.equal(checks.at(-1), { code: 'native-executable', level: 'warn', message: 'And 7 more like these' });
});

test.run();
