// CHANGELOG.md keeps the Keep a Changelog shape CONTRIBUTING describes: an
// Unreleased section first, then each release as `## [X.Y.Z] - YYYY-MM-DD`,
// newest first, the newest one the version package.json says, and under each only
// the format's headings.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../src/lib/project-root.js';

const HEADINGS = new Set(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']);
const RELEASE = /^## \[(\d+)\.(\d+)\.(\d+)\] - (\d{4}-\d{2}-\d{2})$/;

/** What is wrong with a changelog's text for a package of `version`; empty when nothing. */
function changelogProblems(text: string, version: string): string[] {
  const problems: string[] = [];
  const sections = text.split('\n').filter((line) => line.startsWith('## '));
  const unreleased = sections[0] === '## [Unreleased]';
  if (!unreleased) problems.push(`the first section is "${sections[0] ?? 'none'}", not "## [Unreleased]"`);
  const releases = sections.slice(unreleased ? 1 : 0).map((line) => ({ line, match: RELEASE.exec(line) }));
  for (const { line, match } of releases) if (!match) problems.push(`"${line}" is not "## [X.Y.Z] - YYYY-MM-DD"`);
  const versions = releases.filter((r) => r.match).map((r) => r.match!.slice(1, 4).map(Number));
  for (let i = 1; i < versions.length; i++) {
    const [a, b] = [versions[i - 1]!, versions[i]!];
    const newer = a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
    if (newer <= 0) problems.push(`${b.join('.')} is listed after ${a.join('.')}: newest first`);
  }
  if (versions[0]?.join('.') !== version) problems.push(`the newest release is ${versions[0]?.join('.') ?? 'none'} but package.json says ${version}`);
  for (const line of text.split('\n').filter((l) => l.startsWith('### '))) {
    if (!HEADINGS.has(line.slice(4))) problems.push(`"${line}" is not a Keep a Changelog heading`);
  }
  return problems;
}

test('CHANGELOG.md: Unreleased first, releases newest first, the newest one package.json\'s version', () => {
  const { version } = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string };
  assert.equal(changelogProblems(readFileSync(join(projectRoot(), 'CHANGELOG.md'), 'utf8'), version), []);
});

const good = '# Changelog\n\n## [Unreleased]\n\n### Fixed\n\n- a\n\n## [1.1.0] - 2026-12-01\n\n### Added\n\n- b\n\n## [1.0.0] - 2026-11-29\n';
const cases: Array<{ what: string; text: string; version: string; expect: RegExp | null }> = [
  { what: 'the shape it should have', text: good, version: '1.1.0', expect: null },
  { what: 'no Unreleased section', text: good.replace('## [Unreleased]\n\n### Fixed\n\n- a\n\n', ''), version: '1.1.0', expect: /^the first section is "## \[1\.1\.0\] - 2026-12-01"/ },
  { what: 'package.json moved on without the changelog', text: good, version: '1.2.0', expect: /^the newest release is 1\.1\.0 but package\.json says 1\.2\.0$/ },
  { what: 'a release without its date', text: good.replace('## [1.1.0] - 2026-12-01', '## [1.1.0]'), version: '1.0.0', expect: /^"## \[1\.1\.0\]" is not "## \[X\.Y\.Z\] - YYYY-MM-DD"$/ },
  { what: 'releases oldest first', text: '## [Unreleased]\n## [1.0.0] - 2026-11-29\n## [1.1.0] - 2026-12-01\n', version: '1.0.0', expect: /^1\.1\.0 is listed after 1\.0\.0: newest first$/ },
  { what: 'a heading of another format', text: good.replace('### Fixed', '### Bug fixes'), version: '1.1.0', expect: /^"### Bug fixes" is not a Keep a Changelog heading$/ },
];

for (const { what, text, version, expect } of cases) {
  test(`changelog check: ${what}`, () => {
    const problems = changelogProblems(text, version);
    if (expect === null) assert.equal(problems, []);
    else {
      assert.is(problems.length, 1, problems.join('\n'));
      assert.match(problems[0]!, expect);
    }
  });
}

test.run();
