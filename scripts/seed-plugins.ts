// `npm run seed -- --plugins N --ratings M [--seed S] [--all-approved]`: fills the
// store with realistic plugins (names, tags from a vocabulary of a few hundred,
// authors, descriptions, install counts and histories, icons, screenshots and avatars
// drawn here and stored on the image host) and ratings with replies, for demos and
// benchmarks. Against DATABASE_URL, or the embedded PostgreSQL under
// $DATA_DIR/pg as `npm start` and `npm run migrate` use it; migrates first. The
// same --seed gives the same catalogue. Nothing else ever seeds: `npm start` on an
// empty database stays empty.
import { parseArgs } from 'node:util';
import { createRootLogger, openDatabase, readConfigOrExit } from '../src/boot.js';
import { startLifecycle } from '../src/lifecycle.js';
import { buildCatalogue } from './seed/catalogue.js';
import { drawPictures } from './seed/pictures.js';
import { pictureTarget, storePictures } from './seed/store-pictures.js';
import { writeCatalogue } from './seed/write.js';

const USAGE = 'usage: npm run seed -- --plugins N --ratings M [--seed S] [--all-approved]';
const MAX_PLUGINS = 1_000_000;
const MAX_RATINGS = 20_000_000;

function count(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max) {
    process.stderr.write(`--${name} must be a whole number up to ${max}\n${USAGE}\n`);
    process.exit(2);
  }
  return Number(value);
}

let args;
try {
  args = parseArgs({
    options: {
      plugins: { type: 'string' },
      ratings: { type: 'string' },
      seed: { type: 'string' },
      'all-approved': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  }).values;
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const plugins = count(args.plugins, 'plugins', 1000, MAX_PLUGINS);
const ratings = count(args.ratings, 'ratings', plugins * 5, MAX_RATINGS);
const seed = count(args.seed, 'seed', 1, 2 ** 31 - 1);

const config = readConfigOrExit();
const log = createRootLogger(config);
// A signal meanwhile closes the pool, which rolls the seed's transaction back.
const lifecycle = startLifecycle(log, { exitCodeOnSignal: 130 });
const database = await lifecycle.step('cannot open the database', (signal) => openDatabase(config, log, signal));
try {
  const started = performance.now();
  const target = await pictureTarget(config.imageHostUrl, config.imghostUploadToken, config.imagesDir, log);
  const pictures = await storePictures(await drawPictures(seed), target);
  process.stdout.write(target.kind === 'upload'
    ? `pictures uploaded to the image host at ${target.url}\n`
    : `the image host at ${config.imageHostUrl} does not answer: pictures written into ${target.imagesDir}, which it serves once started\n`);
  const drawn = performance.now();
  const taken: Array<{ id: string }> = await database.sql`select lower(id) as id from plugins`;
  const catalogue = buildCatalogue({
    plugins,
    ratings,
    seed,
    allApproved: args['all-approved'] === true,
    takenIds: new Set(taken.map((row) => row.id)),
    pictures,
  });
  const built = performance.now();
  const written = await writeCatalogue(database.sql, catalogue);
  const seconds = (ms: number) => (ms / 1000).toFixed(1) + ' s';
  process.stdout.write(
    `seeded ${written.plugins} plugins, ${written.ratings} ratings, ${written.replies} replies, ${written.installDays} install days, ` +
      `${written.users} seed users (pictures in ${seconds(drawn - started)}, generated in ${seconds(built - drawn)}, written in ${seconds(performance.now() - built)}: ${JSON.stringify(written.seconds)})\n`,
  );
} catch (error) {
  log.error('seeding failed, nothing was written', { err: error });
  process.stderr.write(`seeding failed, nothing was written: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
await database.close();
