// Where a package's manifest is, from its entry names, placed every way the
// launcher accepts one (the root, or the root's only folder) and every way it
// does not find one or would have to choose.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { placeManifest } from '../../../src/services/imghost/packages/manifest-place.js';

const found: Array<{ what: string; names: string[]; path: string }> = [
  { what: 'plugin.json at the root', names: ['plugin.json', 'main.py'], path: 'plugin.json' },
  { what: 'cwplugin.json (the older name) at the root', names: ['main.py', 'cwplugin.json'], path: 'cwplugin.json' },
  { what: 'plugin.json in the only folder', names: ['MyPlugin/', 'MyPlugin/plugin.json', 'MyPlugin/main.py'], path: 'MyPlugin/plugin.json' },
  { what: 'in the only folder, which has no entry of its own', names: ['MyPlugin/plugin.json', 'MyPlugin/ui/Page.qml'], path: 'MyPlugin/plugin.json' },
  { what: 'cwplugin.json in the only folder', names: ['w/cwplugin.json', 'w/main.exe'], path: 'w/cwplugin.json' },
  { what: 'in the only folder, files at the root beside it (the launcher counts folders only)', names: ['README.md', 'LICENSE', 'MyPlugin/plugin.json'], path: 'MyPlugin/plugin.json' },
  { what: 'in the only folder, a hidden folder beside it', names: ['.git/config', 'MyPlugin/plugin.json'], path: 'MyPlugin/plugin.json' },
  { what: 'at the root, with folders of its own', names: ['plugin.json', 'ui/Page.qml', 'lib/a.py'], path: 'plugin.json' },
  { what: 'at the root, a plugin.json deeper in a folder as data', names: ['plugin.json', 'ui/a.qml', 'examples/other/plugin.json'], path: 'plugin.json' },
  { what: 'a non-ASCII folder name', names: ['插件/plugin.json'], path: '插件/plugin.json' },
];

for (const row of found) {
  test(`found: ${row.what}`, () => {
    assert.equal(placeManifest(row.names), { path: row.path });
  });
}

const problems: Array<{ what: string; names: string[]; problem: RegExp }> = [
  { what: 'none at all', names: ['main.py', 'README.md'], problem: /^no plugin\.json \(or cwplugin\.json\) in the package$/ },
  { what: 'only a folder entry named like it', names: ['plugin.json/', 'plugin.json/x.txt'], problem: /^no plugin\.json/ },
  { what: 'plugin.json and cwplugin.json at the root', names: ['plugin.json', 'cwplugin.json'], problem: /^two manifests, "plugin\.json" and "cwplugin\.json"/ },
  { what: 'both names in the only folder', names: ['w/cwplugin.json', 'w/plugin.json'], problem: /^two manifests, "w\/cwplugin\.json" and "w\/plugin\.json"/ },
  {
    what: 'manifests at two levels: the root and the only folder',
    names: ['plugin.json', 'MyPlugin/plugin.json'],
    problem: /^manifests at two levels, "plugin\.json" and "MyPlugin\/plugin\.json"/,
  },
  { what: 'two levels, the older name in the folder', names: ['MyPlugin/cwplugin.json', 'plugin.json'], problem: /^manifests at two levels, "plugin\.json" and "MyPlugin\/cwplugin\.json"/ },
  { what: 'in one of two folders', names: ['a/plugin.json', 'b/readme.txt'], problem: /the root holds 2 folders \("a" and "b"\)/ },
  { what: 'in a folder beside macOS’s __MACOSX', names: ['MyPlugin/plugin.json', '__MACOSX/MyPlugin/._plugin.json'], problem: /2 folders \("MyPlugin" and "__MACOSX"\)/ },
  { what: 'two wrapper levels deep', names: ['outer/inner/plugin.json', 'outer/inner/main.py'], problem: /"outer\/inner\/plugin\.json" is too deep/ },
  { what: 'in a hidden folder only', names: ['.plugin/plugin.json'], problem: /^no plugin\.json.*"\.plugin\/plugin\.json" is in a folder whose name starts with "\."/ },
  { what: 'Plugin.json: found on Windows, not on Linux', names: ['Plugin.json', 'main.py'], problem: /^"Plugin\.json" must be named "plugin\.json" in lower case/ },
  { what: 'PLUGIN.JSON in the only folder', names: ['w/PLUGIN.JSON'], problem: /^"w\/PLUGIN\.JSON" must be named "plugin\.json"/ },
  { what: 'many folders are named, then counted', names: ['a/plugin.json', 'b/x', 'c/x', 'd/x', 'e/x', 'f/x', 'g/x'], problem: /7 folders \("a", "b", "c", "d", "e" and 2 more\)/ },
];

for (const row of problems) {
  test(`problem: ${row.what}`, () => {
    const place = placeManifest(row.names);
    assert.ok('problem' in place, JSON.stringify(place));
    assert.match((place as { problem: string }).problem, row.problem);
  });
}

test.run();
