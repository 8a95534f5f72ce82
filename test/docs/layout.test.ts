// The layout drawn from the imports (CONTRIBUTING.md, "Where things are"): each
// service (src/services/site, src/services/imghost) is its shared files (context,
// settings, ...: the files of the service's own folder, below the features), one
// folder per feature, and app.ts above them, which puts them together. Between
// those parts the imports form no cycle, and a feature is entered only through
// its surface: its feature.ts files and the few files named in SURFACES below,
// which CONTRIBUTING.md lists too. The imports are read from the source with a
// regular expression (import/export ... from, import(), a bare import): this
// code's style, which tsc checks, has no other form.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../src/lib/project-root.js';

/**
 * What other parts of a service may import from each folder (besides any
 * feature.ts in it): the whole list, per service. A folder missing here fails the
 * test, so a new one is a decision, written down.
 */
const SURFACES: Record<string, Record<string, readonly string[]>> = {
  site: {
    audit: [],
    auth: ['guards.ts', 'usernames.ts', 'cross-site.ts'],
    images: ['limits.ts'],
    'image-host': ['client.ts', 'limits.ts', 'relay.ts', 'failures.ts', 'image-answer.ts', 'package-answer.ts', 'package-report.ts'],
    launcher: [],
    notifications: ['notify.ts'],
    openapi: ['document.ts'],
    outbound: ['outbound-agent.ts', 'proxy-settings.ts'],
    pages: [],
    ratings: ['ratings-reads.ts'],
    reports: [],
    stats: [],
    store: ['visibility.ts', 'plugin-state.ts', 'plugin-reads.ts', 'records.ts', 'page-rules.ts'],
    webhooks: ['delivery-dispatcher.ts', 'failure-reasons.ts'],
  },
  imghost: {
    icons: [],
    images: ['upload-token.ts'],
    openapi: ['document.ts'],
    packages: [],
    storage: ['object-storage.ts', 'storage-settings.ts', 'bucket-unavailable.ts', 'miss-memory.ts', 'temp-files.ts', 'durable.ts', 'disk-errors.ts'],
  },
};

const SHARED = '(shared files)';
const APP = 'app.ts';

interface Import {
  from: string;
  to: string;
}

const root = projectRoot();
const rel = (file: string) => relative(root, file).split('\\').join('/');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (/\.c?ts$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const IMPORT = /^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** The relative imports of `text` (a file at `file`), as paths of the files they name. */
export function importsOf(file: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2] ?? match[3]!;
    if (!spec.startsWith('.')) continue;
    found.push(resolve(dirname(file), spec).replace(/\.js$/, '.ts').replace(/\.cjs$/, '.cts'));
  }
  return found;
}

/** Every relative import of src/, file to file (repository paths). */
function allImports(): Import[] {
  const imports: Import[] = [];
  for (const file of sourceFiles(join(root, 'src'))) {
    for (const to of importsOf(file, readFileSync(file, 'utf8'))) imports.push({ from: rel(file), to: rel(to) });
  }
  return imports;
}

/** The service and part of a file: its feature folder, the shared files, or app.ts; undefined outside src/services. */
function partOf(path: string): { service: string; part: string; inPart: string } | undefined {
  const match = /^src\/services\/([^/]+)\/(.+)$/.exec(path);
  if (!match) return undefined;
  const [, service, rest] = match as unknown as [string, string, string];
  const slash = rest.indexOf('/');
  if (slash === -1) return { service, part: rest === APP ? APP : SHARED, inPart: rest };
  return { service, part: rest.slice(0, slash), inPart: rest.slice(slash + 1) };
}

/** Whether other parts may import `inPart` of `part`: shared files all, app.ts none, a feature its surface. */
function isSurface(service: string, part: string, inPart: string): boolean {
  if (part === SHARED) return true;
  if (part === APP) return false;
  return basename(inPart) === 'feature.ts' || (SURFACES[service]?.[part] ?? []).includes(inPart);
}

/** The arrows between parts of one service, each with the file imports behind it. */
function partGraph(imports: Import[]): Map<string, Map<string, Import[]>> {
  const graph = new Map<string, Map<string, Import[]>>();
  for (const imp of imports) {
    const from = partOf(imp.from);
    const to = partOf(imp.to);
    if (!from || !to || from.service !== to.service || from.part === to.part) continue;
    const a = `${from.service}/${from.part}`;
    const b = `${to.service}/${to.part}`;
    const arrows = graph.get(a) ?? new Map<string, Import[]>();
    graph.set(a, arrows);
    arrows.set(b, [...(arrows.get(b) ?? []), imp]);
  }
  return graph;
}

/**
 * The cycles of `graph`: each strongly connected group of parts (Tarjan), its
 * members sorted, and one path around it from the first.
 */
export function cyclesOf(graph: Map<string, Map<string, unknown>>): Array<{ parts: string[]; path: string[] }> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return groups.map((group) => ({ parts: group.sort(), path: pathAround(graph, group) }));
}

/** A path around `group` (sorted): from its first part, breadth-first back to it. */
function pathAround(graph: Map<string, Map<string, unknown>>, group: string[]): string[] {
  const members = new Set(group);
  const start = group[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of graph.get(node)?.keys() ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return group;
}

test('the parser finds every form of import this code writes, and only relative ones', () => {
  const file = '/r/src/services/site/store/a.ts';
  const cases = [
    { what: 'a value import', text: "import { a } from './b.js';", found: ['/r/src/services/site/store/b.ts'] },
    { what: 'a type import', text: "import type { A } from '../context.js';", found: ['/r/src/services/site/context.ts'] },
    { what: 'an import over several lines', text: "import {\n  a,\n  b,\n} from './versions/c.js';", found: ['/r/src/services/site/store/versions/c.ts'] },
    { what: 'a re-export', text: "export { PLUGIN_ID } from '../plugin-id.js';", found: ['/r/src/services/site/plugin-id.ts'] },
    { what: 'a type re-export', text: "export type { Viewer } from '../context.js';", found: ['/r/src/services/site/context.ts'] },
    { what: 'a dynamic import', text: "const m = await import('./d.js');", found: ['/r/src/services/site/store/d.ts'] },
    { what: 'a bare import', text: "import './e.js';", found: ['/r/src/services/site/store/e.ts'] },
    { what: 'a CommonJS module', text: "import x from './f.cjs';", found: ['/r/src/services/site/store/f.cts'] },
    { what: 'a package, not ours', text: "import postgres from 'postgres';\nimport { join } from 'node:path';", found: [] },
    { what: 'a word "from" in a comment line', text: "// read from './g.js' at start\nconst x = 1;", found: [] },
  ];
  for (const { what, text, found } of cases) assert.equal(importsOf(file, text), found, what);
});

test('the cycle finder names each cycle as a path, and nothing for a layered graph', () => {
  const graph = (arrows: string[]) => {
    const g = new Map<string, Map<string, true>>();
    for (const arrow of arrows) {
      const [a, b] = arrow.split('>') as [string, string];
      g.set(a, (g.get(a) ?? new Map()).set(b, true));
    }
    return g;
  };
  const cases = [
    { what: 'layers', arrows: ['app>store', 'store>auth', 'auth>shared', 'store>shared'], cycles: [] },
    { what: 'two parts', arrows: ['auth>tokens', 'tokens>auth', 'tokens>shared'], cycles: [{ parts: ['auth', 'tokens'], path: ['auth', 'tokens', 'auth'] }] },
    {
      what: 'through the shared files',
      arrows: ['shared>store', 'store>auth', 'auth>shared'],
      cycles: [{ parts: ['auth', 'shared', 'store'], path: ['auth', 'shared', 'store', 'auth'] }],
    },
    {
      what: 'two separate cycles',
      arrows: ['a>b', 'b>a', 'c>d', 'd>c', 'b>c'],
      cycles: [
        { parts: ['c', 'd'], path: ['c', 'd', 'c'] },
        { parts: ['a', 'b'], path: ['a', 'b', 'a'] },
      ],
    },
    { what: 'one group, two loops', arrows: ['a>b', 'b>a', 'b>c', 'c>b'], cycles: [{ parts: ['a', 'b', 'c'], path: ['a', 'b', 'a'] }] },
  ];
  for (const { what, arrows, cycles } of cases) assert.equal(cyclesOf(graph(arrows)), cycles, what);
});

test('the parts of each service import each other without a cycle', () => {
  const graph = partGraph(allImports());
  const found = cyclesOf(graph).map(({ parts, path }) => {
    const steps = path.slice(1).map((to, i) => {
      const example = graph.get(path[i]!)!.get(to)![0]!;
      return `  ${path[i]} -> ${to}: ${example.from} imports ${example.to}`;
    });
    return `${parts.join(', ')} import each other; one cycle:\n${steps.join('\n')}`;
  });
  assert.equal(found, [], `import cycles between parts (a shared type goes below the features, in context.ts or settings.ts):\n${found.join('\n')}`);
});

test('a feature is entered only through its surface, and a service never imports the other', () => {
  const wrong: string[] = [];
  for (const imp of allImports()) {
    const from = partOf(imp.from);
    const to = partOf(imp.to);
    if (!from || !to) continue;
    if (from.service !== to.service) wrong.push(`${imp.from} imports ${imp.to}, a file of the other service`);
    else if (from.part !== to.part && !isSurface(to.service, to.part, to.inPart)) wrong.push(`${imp.from} imports ${imp.to}, inside ${to.service}/${to.part}`);
  }
  assert.equal(wrong, [], `imports into another part's internals (move what is shared below the features, or name the file in SURFACES and CONTRIBUTING.md):\n${wrong.join('\n')}`);
});

test('only store/plugin-state.ts takes the plugin row lock: every write locks there, once, and passes the plugin down', () => {
  const lockers = sourceFiles(join(root, 'src', 'services'))
    .filter((file) => readFileSync(file, 'utf8').includes("'store/lock-plugin'"))
    .map(rel);
  assert.equal(lockers, ['src/services/site/store/plugin-state.ts']);
});

test('every folder of a service has its surface decided, and CONTRIBUTING.md names each surface file', () => {
  const contributing = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');
  const problems: string[] = [];
  for (const service of ['site', 'imghost']) {
    const dir = join(root, 'src', 'services', service);
    const folders = readdirSync(dir).filter((name) => statSync(join(dir, name)).isDirectory());
    for (const folder of folders) if (SURFACES[service]![folder] === undefined) problems.push(`src/services/${service}/${folder}/ has no entry in SURFACES`);
    for (const [folder, files] of Object.entries(SURFACES[service]!)) {
      if (!folders.includes(folder)) problems.push(`SURFACES names src/services/${service}/${folder}/, which does not exist`);
      for (const file of files) {
        let exists = false;
        try {
          exists = statSync(join(dir, folder, file)).isFile();
        } catch {
          exists = false;
        }
        if (!exists) problems.push(`SURFACES names src/services/${service}/${folder}/${file}, which does not exist`);
        if (!contributing.includes(`${folder}/${file}`)) problems.push(`CONTRIBUTING.md does not name ${folder}/${file} (src/services/${service}) as a surface`);
      }
    }
  }
  assert.equal(problems, [], problems.join('\n'));
});

test.run();
