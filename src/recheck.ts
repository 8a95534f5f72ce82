// `npm run recheck`: computes again the checks of every pending and live plugin
// version (src/services/site/store/versions/manifest/) under the rules of this build, writes them,
// and prints each version whose checks changed, old -> new. Run it after the rules
// change (a new secret format, another risk table). Exits 0 when done.
import { createRootLogger, openDatabase, readConfigOrExit } from './boot.js';
import { startLifecycle } from './lifecycle.js';
import { describeChange, recheckAll } from './services/site/store/versions/manifest/recheck.js';

const config = readConfigOrExit();
const log = createRootLogger(config);
const lifecycle = startLifecycle(log, { exitCodeOnSignal: 130 });
const database = await lifecycle.step('recheck failed', (signal) => openDatabase(config, log, signal));
try {
  const { checked, changes } = await recheckAll(database.sql);
  for (const change of changes) process.stdout.write(`${describeChange(change)}\n`);
  process.stdout.write(`${checked} versions rechecked, ${changes.length} changed\n`);
} finally {
  await database.close();
}
