// The pages' one table of permission words (static/site/app/lib.js, the catalogues'
// perm.<id>): every permission the Bloret launcher defines has words in both
// languages, and the ones it grants without asking are the pages' safe ones, so no
// page calls a high-risk permission safe. (How they look: the review page's browser
// test.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../../src/lib/project-root.js';
import { loadCatalogues } from '../../../src/services/site/pages/catalogue.js';

const root = join(projectRoot(), 'static', 'site');
const catalogues = loadCatalogues(join(root, 'i18n'));

// The launcher's modules/plugin_host/permissions.py: ALL_PERMISSIONS, and which of
// them are DEFAULT_SAFE_PERMISSIONS (the rest are HIGH_RISK_PERMISSIONS).
const LAUNCHER = [
  { id: 'ui.nav', safe: true }, { id: 'ui.theme', safe: true }, { id: 'ui.settings', safe: true },
  { id: 'ui.toolbar', safe: true }, { id: 'ui.home', safe: true }, { id: 'ui.tools', safe: true },
  { id: 'config.read', safe: true }, { id: 'config.write', safe: false }, { id: 'launch.hooks', safe: false },
  { id: 'download.hooks', safe: false }, { id: 'agent.bloriko', safe: false }, { id: 'agent.blrpe', safe: false },
  { id: 'fs.datapath', safe: false }, { id: 'net.http', safe: false }, { id: 'process.exec', safe: false },
  { id: 'web.routes', safe: false },
];

test('every permission the launcher defines has words in both languages, not its id', () => {
  for (const { id } of LAUNCHER) {
    for (const [language, catalogue] of Object.entries(catalogues)) {
      const words = catalogue[`perm.${id}`];
      assert.ok(words && words !== id, `${id} in ${language}`);
    }
  }
  assert.is.not(catalogues.en['perm.process.exec'], catalogues['zh-CN']['perm.process.exec'], 'each in its own language');
});

test('the pages call safe exactly what the launcher grants without asking', () => {
  const lib = readFileSync(join(root, 'app', 'lib.js'), 'utf8');
  const list = /export const SAFE_PERMISSIONS = \[([^\]]*)\]/.exec(lib);
  assert.ok(list, 'SAFE_PERMISSIONS in lib.js');
  const safe = [...list![1]!.matchAll(/'([^']+)'/g)].map((match) => match[1]);
  assert.equal(safe.sort(), LAUNCHER.filter((p) => p.safe).map((p) => p.id).sort());
});

test.run();
