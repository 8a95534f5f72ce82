// docs/configuration.md against the code, both ways, and the README's short table
// against it: every environment variable a service reads has its row, no row names
// a variable nothing reads, and each variable the README shows a newcomer is one of
// the full table's. A variable is "read" where src/ passes its name to the settings'
// reader (`read('NAME')`), names it in a ConfigError, or takes it from `env.NAME`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../src/lib/project-root.js';

const root = projectRoot();
const READS = [
  /\b(?:read|ConfigError)\(\s*'([A-Z][A-Z0-9_]*)'/g,
  /\benv\.([A-Z][A-Z0-9_]*)\b/g,
  // The proxy settings read the lower-case name first, then this one (as curl does).
  /\beither\('[a-z_]+', '([A-Z][A-Z0-9_]*)'\)/g,
];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every variable src/ reads, with a file that reads it. */
function variablesRead(): Map<string, string> {
  const read = new Map<string, string>();
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of READS) {
      for (const match of text.matchAll(pattern)) if (!read.has(match[1]!)) read.set(match[1]!, file.slice(root.length + 1));
    }
  }
  return read;
}

/** The variables named in the first cell of each row of a document's first table after `heading`. */
function tableVariables(file: string, heading: RegExp): Set<string> {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const start = lines.findIndex((line) => heading.test(line));
  assert.ok(start >= 0, `${file} has no heading ${heading}`);
  const names = new Set<string>();
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('|')) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const first = line.split('|')[1]!;
    for (const name of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(name[1]!);
  }
  return names;
}

const full = () => tableVariables('docs/configuration.md', /^# Configuration/);
const short = () => tableVariables('README.md', /^## Configuration/);

const CHECKS: { what: string; names: () => Iterable<string>; within: () => Set<string>; problem: string }[] = [
  { what: 'every variable the code reads has a row in docs/configuration.md', names: () => variablesRead().keys(), within: full, problem: 'read by the code but not in docs/configuration.md' },
  { what: 'every row of docs/configuration.md names a variable the code reads', names: full, within: () => new Set(variablesRead().keys()), problem: 'in docs/configuration.md but read nowhere in src/' },
  { what: "every variable of the README's table is in docs/configuration.md", names: short, within: full, problem: "in the README's table but not in docs/configuration.md" },
];

for (const check of CHECKS) {
  test(check.what, () => {
    const within = check.within();
    const missing = [...check.names()].filter((name) => !within.has(name)).sort();
    assert.equal(missing, [], `${missing.join(', ')}: ${check.problem}`);
  });
}

test('the scan finds the variables it is known to need to find', () => {
  const read = variablesRead();
  for (const name of ['DATABASE_URL', 'S3_FORCE_PATH_STYLE', 'HTTPS_PROXY', 'UV_THREADPOOL_SIZE', 'LOG_LEVEL']) {
    assert.ok(read.has(name), `${name} not found by the scan`);
  }
  assert.ok(short().size >= 8 && short().size <= 20, `the README's table names ${short().size} variables`);
});

test.run();
