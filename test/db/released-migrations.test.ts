// The released migrations (sql/released.sha256, src/db/released.ts): sql/ holds
// each as it was released, and from 1.0.0 on a migration is only appended. The
// checks are run on copies of sql/ changed one way each, so that each way of
// breaking the rule is seen to fail.
import { copyFileSync, mkdtempSync, readdirSync, renameSync, rmSync, unlinkSync, appendFileSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readMigrations } from '../../src/db/migrate.js';
import { LAST_PRE_RELEASE_NUMBER, RELEASED_FILES } from '../../src/db/pre-release-chain.js';
import { firstAppendable, parseReleased, readReleased, RELEASED_LIST, releaseProblems } from '../../src/db/released.js';
import { projectRoot } from '../../src/lib/project-root.js';

const sqlDir = join(projectRoot(), 'sql');
const copies: string[] = [];

/** A copy of sql/'s migrations and list, changed by `change`. */
function copyOfSql(change: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'lw-released-'));
  copies.push(dir);
  for (const file of readdirSync(sqlDir)) {
    if (file.endsWith('.sql') || file === RELEASED_LIST) copyFileSync(join(sqlDir, file), join(dir, file));
  }
  change(dir);
  return dir;
}

/** The problems of a copy; a file out of order already stops readMigrations, and is reported from it. */
function problemsOf(dir: string): string[] {
  try {
    return releaseProblems(readMigrations(dir), readReleased(dir)!);
  } catch (error) {
    return [`readMigrations: ${(error as Error).message}`];
  }
}

test.after(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

test('sql/ holds every released migration as it was released, and nothing before them that was not', () => {
  const released = readReleased(sqlDir);
  assert.ok(released, `sql/${RELEASED_LIST} exists`);
  assert.equal(releaseProblems(readMigrations(), released!), []);
  assert.equal(released!.map((file) => [file.version, file.name]), RELEASED_FILES.map(([version, name]) => [version, name]), '1.0.0 released sql/001..009');
  assert.is(firstAppendable(released!), LAST_PRE_RELEASE_NUMBER + 1);
});

const newMigration = '-- Something appended.\nselect 1;\n';
const cases: Array<{ what: string; change: (dir: string) => void; expect: RegExp | null }> = [
  { what: 'sql/ as it is', change: () => {}, expect: null },
  {
    what: 'a released file edited, if only in a comment',
    change: (dir) => appendFileSync(join(dir, '003_ratings.sql'), '-- a note\n'),
    expect: /^sql\/003_ratings\.sql was released with SHA-256 [0-9a-f]{64} but is now [0-9a-f]{64}: a released migration is never edited; append a new one$/,
  },
  {
    what: 'a released file removed',
    change: (dir) => unlinkSync(join(dir, '005_related.sql')),
    expect: /^sql\/005_related\.sql was released but is missing: a released migration is never removed$/,
  },
  {
    what: 'a released file renamed',
    change: (dir) => renameSync(join(dir, '002_plugins.sql'), join(dir, '002_store.sql')),
    expect: /^readMigrations: sql\/002_store\.sql is not a released migration and is numbered before 288/,
  },
  {
    what: 'a new migration inserted between released ones, under a released number',
    change: (dir) => writeFileSync(join(dir, '008_between.sql'), newMigration),
    expect: /^readMigrations: sql\/: two migrations numbered 8$/,
  },
  {
    what: 'a new migration numbered right after the released ones',
    change: (dir) => writeFileSync(join(dir, '010_next.sql'), newMigration),
    expect: /^readMigrations: sql\/010_next\.sql is not a released migration and is numbered before 288: from 1\.0\.0 on migrations are only appended, so number it 288 or above$/,
  },
  {
    what: 'a new migration after the released ones but under a number of the pre-release history',
    change: (dir) => writeFileSync(join(dir, '150_late.sql'), newMigration),
    expect: /^readMigrations: sql\/150_late\.sql is not a released migration and is numbered before 288/,
  },
  {
    what: 'a released line taken off the list, its file kept',
    change: (dir) => writeFileSync(join(dir, RELEASED_LIST), readFileSync(join(dir, RELEASED_LIST), 'utf8').replace(/^.*009_generation_bumps\.sql\n/m, '')),
    expect: /^readMigrations: sql\/009_generation_bumps\.sql is not a released migration and is numbered before 288/,
  },
  { what: 'a new migration appended after the pre-release numbers', change: (dir) => writeFileSync(join(dir, '288_next.sql'), newMigration), expect: null },
];

for (const { what, change, expect } of cases) {
  test(`released migrations: ${what}`, () => {
    const problems = problemsOf(copyOfSql(change));
    if (expect === null) assert.equal(problems, [], what);
    else {
      assert.is(problems.length, 1, problems.join('\n'));
      assert.match(problems[0]!, expect);
    }
  });
}

test('the released list is read only in the shape sha256sum writes', () => {
  assert.equal(parseReleased(`${'a'.repeat(64)}  001_users.sql\n`), [{ sha256: 'a'.repeat(64), version: 1, name: 'users' }]);
  for (const line of [`${'a'.repeat(64)} 001_users.sql`, `${'a'.repeat(63)}  001_users.sql`, `${'a'.repeat(64)}  1_users.sql`, `${'a'.repeat(64)}  001_users.sql.bak`]) {
    assert.throws(() => parseReleased(line), /^sql\/released\.sha256 line 1: expected/, line);
  }
});

test.run();
