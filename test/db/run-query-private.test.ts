// runQuery (positional parameters) is src/db's own: everything else calls a query
// by name with runNamed, whose parameters PostgreSQL's description of the query
// checks (test/db/query-shapes.test.ts) and whose rows src/db/query-rows.ts types.
// A positional call would bypass both, so none may come back.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as queries from '../../src/db/queries.js';
import { projectRoot } from '../../src/lib/project-root.js';

const root = projectRoot();
const NAME = 'runQuery';
const MENTION = /\brunQuery\b/;
/** This file names it in its checks and cases. */
const SELF = 'test/db/run-query-private.test.ts';

/** The TypeScript and JavaScript sources under `folder` (relative to the root), as root-relative paths with `/`. */
function sources(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|js|mjs)$/.test(entry.name)) found.push(relative(root, full).split(sep).join('/'));
    }
  };
  walk(join(root, folder));
  return found;
}

/** Files outside src/db whose code (comments left out) names runQuery: a call, an import, a re-export. */
function namingRunQuery(files: ReadonlyArray<{ path: string; text: string }>): string[] {
  return files
    .filter(({ path }) => !path.startsWith('src/db/') && path !== SELF)
    .filter(({ text }) => MENTION.test(text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')))
    .map(({ path }) => path);
}

test('src/db/queries.ts does not export runQuery', () => {
  assert.not.ok(NAME in queries, `src/db/queries.ts exports ${NAME}`);
  assert.type(queries.runNamed, 'function');
});

test('no file outside src/db calls or imports runQuery (src, scripts, test)', () => {
  const files = ['src', 'scripts', 'test'].flatMap(sources).map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
  assert.ok(files.length > 100, `${files.length} sources read`);
  assert.equal(namingRunQuery(files), []);
});

const cases: Array<{ what: string; path: string; text: string; named: boolean }> = [
  { what: 'an import', path: 'src/services/site/x.ts', text: `import { ${NAME} } from '../../db/queries.js';`, named: true },
  { what: 'a call', path: 'scripts/x.ts', text: `await ${NAME}(sql, 'store/generation', [null]);`, named: true },
  { what: 'a re-export', path: 'src/lib/x.ts', text: `export { ${NAME} as run } from '../db/queries.js';`, named: true },
  { what: 'a comment only', path: 'test/x.test.ts', text: `// ${NAME} goes through sql.unsafe\n/* ${NAME} */`, named: false },
  { what: 'a longer name', path: 'src/x.ts', text: `${NAME}Count += 1;`, named: false },
  { what: 'a call inside src/db', path: 'src/db/shared-rate-limiter.ts', text: `${NAME}(sql, 'x', [])`, named: false },
];

for (const c of cases) {
  test(`namingRunQuery: ${c.what}`, () => {
    assert.equal(namingRunQuery([c]), c.named ? [c.path] : []);
  });
}

test.run();
