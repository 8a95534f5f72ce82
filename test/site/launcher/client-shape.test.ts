// The load-time check of LAUNCHER_CONFIG against what the launchers read
// (src/services/site/launcher/client-shape.ts), as a table: a change to the shipped example,
// and the keys that must then be reported, with what was expected and found.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../../src/lib/project-root.js';
import { MAX_SHAPE_PROBLEMS } from '../../../src/services/site/launcher/client-shape.js';
import { parseLauncherDocument } from '../../../src/services/site/launcher/document.js';

type Config = Record<string, any>;
const example = (): Config => JSON.parse(readFileSync(join(projectRoot(), 'config', 'launcher.example.json'), 'utf8'));

function problemsOf(config: Config) {
  const parsed = parseLauncherDocument(Buffer.from(JSON.stringify(config)));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.document.clientProblems;
}

test('the shipped example has no problem for any launcher', () => {
  assert.equal(problemsOf(example()), []);
});

interface Case {
  what: string;
  change: (config: Config) => void;
  /** key → [expected, found] */
  expect: Record<string, [string, string]>;
}

const cases: Case[] = [
  {
    what: 'a version number written as a number (BloraLauncher casts it to String and throws)',
    change: (c) => (c.latestVersion = 25.3),
    expect: { latestVersion: ['a string', 'a number'] },
  },
  {
    what: 'a missing description',
    change: (c) => delete c.description,
    expect: { description: ['a string', 'missing'] },
  },
  {
    what: 'beta.enabled as a string',
    change: (c) => (c.beta.enabled = 'yes'),
    expect: { 'beta.enabled': ['true or false', 'a string'] },
  },
  {
    what: 'an enabled beta without versionName, and without downloads.beta',
    change: (c) => {
      delete c.beta.versionName;
      delete c.downloads.beta;
    },
    expect: { 'beta.versionName': ['a string', 'missing'], 'downloads.beta': ['an object', 'missing'] },
  },
  {
    what: 'a disabled beta needs neither its version fields nor downloads.beta',
    change: (c) => {
      c.beta = { enabled: false };
      delete c.downloads.beta;
    },
    expect: {},
  },
  {
    what: 'the legacy list of downloads (the old example) instead of the mirrors object',
    change: (c) => (c.downloads = [{ name: 'GitHub', url: 'https://github.com/x/y.exe' }]),
    expect: { downloads: ['an object', 'a list'] },
  },
  {
    what: 'a mirror without its zip',
    change: (c) => delete c.downloads.stable.github.zip,
    expect: { 'downloads.stable.github.zip': ['a string', 'missing'] },
  },
  {
    what: 'no windows entry: Bloret-Launcher cannot find a hash and refuses to update',
    change: (c) => delete c.downloads.stable.windows,
    expect: { 'downloads.stable.windows': ['an object', 'missing'] },
  },
  {
    what: 'a hash that is not 64 hex digits (the updater raises on it)',
    change: (c) => (c.downloads.stable.windows.hashes.github = 'abc123'),
    expect: { 'downloads.stable.windows.hashes.github': ['a SHA-256 of 64 hex digits', 'a string that is not 64 hex digits'] },
  },
  {
    what: 'a plain-http installer URL (the updater downloads over https only)',
    change: (c) => (c.downloads.stable.windows.gitcode = 'http://gitcode.com/x/Setup.exe'),
    expect: { 'downloads.stable.windows.gitcode': ['an https:// URL', 'a string that is not an https:// URL'] },
  },
  {
    what: 'windows after a mirror entry holding the same URL hides the hash from the updater',
    change: (c) => {
      const { windows, ...rest } = c.downloads.stable;
      c.downloads.stable = { ...rest, windows };
    },
    expect: {
      'downloads.stable.windows': [
        'to come before any entry of downloads.stable holding the same URL',
        'after downloads.stable.github, which holds https://github.com/BloretCrew/Bloret-Launcher-Setup/releases/download/25.3.1/Bloret-Launcher-Setup.exe',
      ],
    },
  },
  {
    what: 'windows after mirrors holding other URLs is fine',
    change: (c) => {
      const { windows, ...rest } = c.downloads.stable;
      c.downloads.stable = { ...rest, windows: { ...windows, github: 'https://github.com/x/other.exe' } };
    },
    expect: {},
  },
  {
    what: 'a null among the tips (List<String>.from throws on it)',
    change: (c) => c.BLTips.push(null),
    expect: { BLTips: ['a list of strings', 'a list with null at [5]'] },
  },
  {
    what: 'a missing BLTips is no problem: it is served as []',
    change: (c) => delete c.BLTips,
    expect: {},
  },
  {
    what: 'the activity as a list (the old example)',
    change: (c) => (c.activity = [{ title: 'x' }]),
    expect: { activity: ['an object', 'a list'] },
  },
  {
    what: 'activity.show missing and activity.time as a number',
    change: (c) => {
      delete c.activity.show;
      c.activity.time = 20250401;
    },
    expect: { 'activity.show': ['true or false', 'missing'], 'activity.time': ['a string', 'a number'] },
  },
  {
    what: 'fast-download versions as plain strings (install.py calls entry.get on each)',
    change: (c) => (c.fastdownload.versions = ['1.21.4']),
    expect: { 'fastdownload.versions[0]': ['an object {version, url}', 'a string'] },
  },
  {
    what: 'a fast-download entry without url',
    change: (c) => delete c.fastdownload.versions[1].url,
    expect: { 'fastdownload.versions[1].url': ['an https:// URL', 'missing'] },
  },
  {
    what: 'a disabled fast download is not checked entry by entry',
    change: (c) => (c.fastdownload = { enabled: false, versions: ['1.21.4'] }),
    expect: {},
  },
];

for (const c of cases) {
  test(`shape: ${c.what}`, () => {
    const config = example();
    c.change(config);
    const problems = problemsOf(config);
    const found = Object.fromEntries(problems.map((p) => [p.key, [p.expected, p.found]]));
    assert.equal(found, c.expect);
    for (const problem of problems) assert.ok(problem.readBy.length > 0, `${problem.key} names who reads it`);
  });
}

test('shape: children of a missing parent are not reported one by one', () => {
  const config = example();
  delete config.downloads;
  assert.equal(problemsOf(config).map((p) => p.key), ['downloads']);
});

test('shape: thousands of bad fast-download entries give a bounded list', () => {
  const config = example();
  config.fastdownload.versions = Array.from({ length: 5000 }, () => 7);
  assert.is(problemsOf(config).length, MAX_SHAPE_PROBLEMS);
});

test.run();
