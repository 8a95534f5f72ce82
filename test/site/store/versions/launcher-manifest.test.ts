// A package's manifest read as the Bloret launcher reads it (src/services/site/store/versions/
// manifest/): what is refused and why, the permissions it grants (declared, else
// inferred from contributes and hooks), their risk, and the entry kind from
// `entry` or the launcher's fallback files. Pure functions: no server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../../src/http/errors.js';
import { entryKindWords } from '../../../../src/services/site/store/versions/manifest/entry.js';
import { readManifest } from '../../../../src/services/site/store/versions/manifest/launcher-manifest.js';
import { packageReportFrom, type PackageReport } from '../../../../src/services/site/image-host/package-report.js';
import { declaredPermissions, inferredPermissions, riskOf } from '../../../../src/services/site/store/versions/manifest/permissions.js';

const HASH = 'a'.repeat(64);

/** A report with `json` as plugin.json at `path`, beside `files`. */
function report(json: Record<string, unknown>, files: string[] = [], path = 'plugin.json'): PackageReport {
  return { manifest: { path, json }, manifestProblem: null, findings: [], files: [path, ...files].map((name) => ({ name, sha256: HASH })) };
}
const base = { id: 'minimap', name: 'Minimap', version: '1.2.0' };

function refusal(run: () => unknown): HttpError {
  try {
    run();
  } catch (error) {
    assert.instance(error, HttpError);
    return error as HttpError;
  }
  throw new Error('not refused');
}

test('manifests the launcher would not install as this plugin are refused, field "file", saying why', () => {
  const cases: Array<{ what: string; report: PackageReport; message: RegExp }> = [
    { what: 'no manifest (the image host says why)', report: { manifest: null, manifestProblem: 'no plugin.json or cwplugin.json at the root or in its one folder', findings: [], files: [] }, message: /^The launcher would not install this package: no plugin\.json or cwplugin\.json at the root/ },
    { what: 'no id', report: report({ name: 'x', version: '1' }), message: /^plugin\.json has no "id": the launcher installs a plugin into the folder its id names$/ },
    { what: 'an empty id', report: report({ ...base, id: '' }), message: /has no "id"/ },
    { what: 'an id that is a number', report: report({ ...base, id: 42 }), message: /"id" must be a string/ },
    { what: 'an id with a space', report: report({ ...base, id: 'mini map' }), message: /"id" "mini map" is not 1 to 128 letters, digits, dots, dashes and underscores/ },
    { what: 'an id of 129 characters', report: report({ ...base, id: 'a'.repeat(129) }), message: /is not 1 to 128 letters/ },
    { what: 'another plugin\'s id', report: report({ ...base, id: 'worldedit' }), message: /^plugin\.json names the plugin "worldedit", not "minimap": the launcher would install it as "worldedit", not as this plugin$/ },
    { what: 'the id in another case', report: report({ ...base, id: 'MiniMap' }), message: /names the plugin "MiniMap", not "minimap"/ },
    { what: 'the id in a wrapper folder\'s manifest', report: report({ ...base, id: 'other' }, [], 'Wrap/plugin.json'), message: /^Wrap\/plugin\.json names the plugin "other"/ },
    { what: 'no name', report: report({ id: 'minimap', version: '1' }), message: /^plugin\.json has no "name"$/ },
    { what: 'a blank name', report: report({ ...base, name: '   ' }), message: /has no "name"/ },
    { what: 'no version', report: report({ id: 'minimap', name: 'Minimap' }), message: /^plugin\.json has no "version"$/ },
    { what: 'a version that is a number', report: report({ ...base, version: 1.2 }), message: /"version" must be a string, such as "1\.2\.0"/ },
    { what: 'a version of 65 characters', report: report({ ...base, version: '1'.repeat(65) }), message: /"version" must be 1 to 64 characters/ },
    { what: 'a blank version', report: report({ ...base, version: ' ' }), message: /"version" must be 1 to 64 characters/ },
    { what: 'permissions that are a number', report: report({ ...base, permissions: 7 }), message: /permissions must be a list of permission ids/ },
    { what: 'a permission the store cannot hold', report: report({ ...base, permissions: ['net.http, fs.datapath'] }), message: /permission "net\.http, fs\.datapath" is not a permission id/ },
    { what: '33 permissions', report: report({ ...base, permissions: Array.from({ length: 33 }, (_, i) => `p.${i}`) }), message: /asks for 33 permissions; the store lists at most 32/ },
  ];
  for (const c of cases) {
    const error = refusal(() => readManifest(c.report, 'minimap'));
    assert.is(error.status, 400, c.what);
    assert.is(error.code, 'VALIDATION_FAILED', c.what);
    assert.is(error.field, 'file', c.what);
    assert.match(error.message, c.message, c.what);
  }
});

test('an id the launcher would install into another folder than its own is refused', () => {
  // The store's ids allow these; the launcher's _safe_plugin_id strips dashes,
  // Windows strips trailing dots, and .backups is the launcher's own folder.
  const cases: Array<{ what: string; id: string; message: RegExp }> = [
    { what: 'a trailing dash (Plugin/minimap)', id: 'minimap-', message: /would install it into "Plugin\/minimap", another plugin's folder/ },
    { what: 'a leading dash (Plugin/minimap)', id: '--minimap', message: /would install it into "Plugin\/minimap"/ },
    { what: 'a dash and two dots (Plugin/.., the data folder)', id: '-..', message: /would install it into "Plugin\/\.\."/ },
    { what: 'a trailing dot (Plugin\\minimap on Windows)', id: 'minimap.', message: /Windows drops a folder name's trailing dots/ },
    { what: 'the launcher\'s backups folder', id: '.backups', message: /its own folders/ },
    { what: 'another plugin\'s install staging folder', id: '.minimap.installing', message: /its own folders/ },
    { what: 'a Windows device name', id: 'nul.tools', message: /Windows opens a device/ },
  ];
  for (const c of cases) {
    const error = refusal(() => readManifest(report({ ...base, id: c.id }), c.id));
    assert.is(error.status, 400, c.what);
    assert.is(error.field, 'file', c.what);
    assert.match(error.message, /cannot be installed as this plugin/, c.what);
    assert.match(error.message, c.message, c.what);
  }
});

test('ids and permissions are trimmed of what Python strips, not what JavaScript trims', () => {
  // The launcher grants " \x85process.exec" as process.exec: the store must list that.
  const permissions: Array<{ what: string; raw: unknown; ids: string[] }> = [
    { what: 'U+0085 (NEL), which Python strips', raw: ['\u0085process.exec'], ids: ['process.exec'] },
    { what: 'U+001C..U+001F, which Python strips', raw: ['\u001cnet.http\u001f'], ids: ['net.http'] },
  ];
  for (const c of permissions) assert.equal(declaredPermissions(c.raw), { ids: c.ids }, c.what);
  assert.is(readManifest(report({ ...base, id: '\u0085minimap\u001c' }), 'minimap').manifest.id, 'minimap', 'an id edged with U+0085 and U+001C');
  // U+FEFF is no white space to Python: the launcher grants "\ufeffui.nav", no permission the store can hold.
  const error = refusal(() => readManifest(report({ ...base, permissions: ['\ufeffui.nav'] }), 'minimap'));
  assert.match(error.message, /is not a permission id/, 'a permission starting with U+FEFF');
});

test('what the launcher accepts is read as it reads it', () => {
  const cases: Array<{ what: string; report: PackageReport; expect: Record<string, unknown> }> = [
    { what: 'the id trimmed, as the launcher trims it', report: report({ ...base, id: '  minimap ' }), expect: { id: 'minimap' } },
    { what: 'author, else master', report: report({ ...base, master: 'Steve' }), expect: { author: 'Steve' } },
    { what: 'author before master', report: report({ ...base, author: 'Alex', master: 'Steve' }), expect: { author: 'Alex' } },
    { what: 'no author, description or minimum launcher', report: report(base), expect: { author: '', description: '', min_launcher_version: null } },
    { what: 'the minimum launcher, trimmed', report: report({ ...base, min_launcher_version: ' 27.2 ' }), expect: { min_launcher_version: '27.2' } },
    { what: 'a numeric minimum launcher, as written', report: report({ ...base, min_launcher_version: 27.2 }), expect: { min_launcher_version: '27.2' } },
    { what: 'the version trimmed', report: report({ ...base, version: ' 1.2.0 ' }), expect: { version: '1.2.0' } },
  ];
  for (const c of cases) {
    const { manifest } = readManifest(c.report, 'minimap');
    for (const [key, value] of Object.entries(c.expect)) assert.equal((manifest as unknown as Record<string, unknown>)[key], value, `${c.what}: ${key}`);
  }
});

test('declared permissions are trimmed, without empties or duplicates, in their order; else inferred and sorted', () => {
  const declared: Array<{ what: string; raw: unknown; ids: string[] }> = [
    { what: 'a list', raw: [' net.http ', 'ui.nav', 'net.http', '', 3, 'process.exec'], ids: ['net.http', 'ui.nav', 'process.exec'] },
    { what: 'one string', raw: ' fs.datapath ', ids: ['fs.datapath'] },
    { what: 'an object: Python iterates its keys', raw: { 'net.http': true, 'ui.home': false }, ids: ['net.http', 'ui.home'] },
    { what: 'nothing', raw: undefined, ids: [] },
    { what: 'an empty list', raw: [], ids: [] },
    { what: 'false', raw: false, ids: [] },
  ];
  for (const c of declared) assert.equal(declaredPermissions(c.raw), { ids: c.ids }, c.what);

  const inferred: Array<{ what: string; manifest: Record<string, unknown>; ids: string[] }> = [
    { what: 'every UI contribution', manifest: { contributes: { tools: [1], home: [1], toolbar: [1], settings: [1], theme: { a: 1 }, nav: [1] } }, ids: ['ui.home', 'ui.nav', 'ui.settings', 'ui.theme', 'ui.toolbar', 'ui.tools'] },
    { what: 'empty contributions count for nothing', manifest: { contributes: { nav: [], theme: {}, settings: '' } }, ids: [] },
    { what: 'agent tools by their keys', manifest: { contributes: { agent_tools: { bloriko: [1], blrpe: [1] } } }, ids: ['agent.bloriko', 'agent.blrpe'] },
    { what: 'agent tools as a list: agent.bloriko', manifest: { contributes: { agent_tools: ['x'] } }, ids: ['agent.bloriko'] },
    { what: 'prompts alone add nothing (agent_tools or {})', manifest: { contributes: { prompts: ['x'] } }, ids: [] },
    { what: 'web routes', manifest: { contributes: { web_routes: [{ path: '/x' }] } }, ids: ['web.routes'] },
    { what: 'launch and download hooks', manifest: { hooks: { 'launch.before': 'main:f', 'download.after': 'main:g', 'app.ready': 'main:h' } }, ids: ['download.hooks', 'launch.hooks'] },
    { what: 'contributes that is not an object', manifest: { contributes: ['nav'] }, ids: [] },
  ];
  for (const c of inferred) assert.equal(inferredPermissions(c.manifest), c.ids, c.what);

  // Declared ones win; none declared: inferred.
  assert.equal(readManifest(report({ ...base, permissions: ['ui.nav'], hooks: { 'launch.x': 'f' } }), 'minimap').manifest.permissions, ['ui.nav']);
  assert.equal(readManifest(report({ ...base, permissions: [], hooks: { 'launch.x': 'f' } }), 'minimap').manifest.permissions, ['launch.hooks']);
});

test('risk: the launcher\'s seven safe permissions are safe, every other id high, unknown ones included', () => {
  for (const id of ['ui.nav', 'ui.theme', 'ui.settings', 'ui.toolbar', 'ui.home', 'ui.tools', 'config.read']) assert.is(riskOf(id), 'safe', id);
  for (const id of ['launch.hooks', 'download.hooks', 'agent.bloriko', 'agent.blrpe', 'config.write', 'fs.datapath', 'net.http', 'process.exec', 'web.routes', 'made.up', 'UI.NAV']) {
    assert.is(riskOf(id), 'high', id);
  }
  const { permissions } = readManifest(report({ ...base, permissions: ['ui.nav', 'process.exec'] }), 'minimap');
  assert.equal(permissions, [{ id: 'ui.nav', risk: 'safe' }, { id: 'process.exec', risk: 'high' }]);
});

test('the entry kind comes from entry, else from the fallback files of the manifest\'s folder', () => {
  const cases: Array<{ what: string; json: Record<string, unknown>; files?: string[]; path?: string; kind: string; entry?: Record<string, unknown> }> = [
    { what: 'a .py entry', json: { entry: 'src/run.py' }, kind: 'python', entry: { python: 'src/run.py', process: null, qml_page: null } },
    { what: 'a .QML entry, any case', json: { entry: 'ui/Home.QML' }, kind: 'qml' },
    { what: 'any other entry is a program', json: { entry: 'bin/tool' }, kind: 'process' },
    { what: 'an entry object', json: { entry: { python: 'a.py', process: 'b.exe', qml: 'c.qml' } }, kind: 'python+process+qml', entry: { python: 'a.py', process: 'b.exe', qml_page: 'c.qml' } },
    { what: 'no entry: main.py', json: {}, files: ['main.py'], kind: 'python' },
    { what: 'no entry: plugin.py', json: {}, files: ['plugin.py'], kind: 'python' },
    { what: 'no entry: main.exe', json: {}, files: ['main.exe'], kind: 'process' },
    { what: 'no entry: main (no extension)', json: {}, files: ['main'], kind: 'process' },
    { what: 'no entry: main.qml', json: {}, files: ['main.qml'], kind: 'qml' },
    { what: 'no entry: ui/Page.qml', json: {}, files: ['ui/Page.qml'], kind: 'qml' },
    { what: 'no entry: MAIN.PY (Windows finds it)', json: {}, files: ['MAIN.PY'], kind: 'python' },
    { what: 'a declared .py and a fallback main.exe: both run', json: { entry: 'x.py' }, files: ['main.exe'], kind: 'python+process' },
    { what: 'fallbacks inside the wrapper folder', json: {}, files: ['Wrap/main.py'], path: 'Wrap/plugin.json', kind: 'python' },
    { what: 'a main.py outside the wrapper folder does not count', json: {}, files: ['main.py', 'Wrap/readme.txt'], path: 'Wrap/plugin.json', kind: 'none' },
    { what: 'a main.py in a subfolder does not count', json: {}, files: ['lib/main.py'], kind: 'none' },
    { what: 'declarations only', json: { contributes: { theme: { a: 1 } } }, kind: 'none' },
  ];
  for (const c of cases) {
    const read = readManifest(report({ ...base, ...c.json }, c.files ?? [], c.path), 'minimap');
    assert.is(read.entryKind, c.kind, c.what);
    if (c.entry) assert.equal(read.manifest.entry, c.entry, c.what);
  }
  assert.is(entryKindWords('python+process'), 'Python code inside the launcher and a program');
});

test('the image host\'s report is checked like any input', () => {
  const good = { manifest: { path: 'plugin.json', json: base }, manifestProblem: null, findings: [{ code: 'secret', file: 'a.txt', kind: 'GitHub token' }, { code: 'native-executable', file: 'main.exe', format: 'PE' }], files: [{ name: 'plugin.json', sha256: HASH }] };
  assert.equal(packageReportFrom(good, 2).findings.length, 2);
  assert.is(packageReportFrom({ ...good, manifest: null, manifestProblem: 'none found' }, 2).manifestProblem, 'none found');
  const bad: Array<{ what: string; data: Record<string, unknown> }> = [
    { what: 'no manifest and no reason', data: { ...good, manifest: null, manifestProblem: null } },
    { what: 'a manifest and a reason', data: { ...good, manifestProblem: 'both' } },
    { what: 'a manifest that is not {path, json}', data: { ...good, manifest: { path: 'plugin.json', json: [1] } } },
    { what: 'no files', data: { ...good, files: undefined } },
    { what: 'more files than entries', data: { ...good, files: [good.files[0], good.files[0], good.files[0]] } },
    { what: 'a file with a bad hash', data: { ...good, files: [{ name: 'a', sha256: 'XYZ' }] } },
    { what: 'an unknown finding', data: { ...good, findings: [{ code: 'virus', file: 'a' }] } },
    { what: 'an unknown executable format', data: { ...good, findings: [{ code: 'native-executable', file: 'a', format: 'COFF' }] } },
    { what: 'no findings list', data: { ...good, findings: null } },
  ];
  for (const c of bad) assert.throws(() => packageReportFrom(c.data, 2), undefined, c.what);
});

test.run();
