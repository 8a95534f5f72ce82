// Where a profiled server spent its time: self time summed by function and by file
// from the .cpuprofile files that `BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR"`
// leaves behind, idle left out, start-up (module loading, the service's own start)
// left out by default so the figures are those of the requests.
//
//   node .test-build/scripts/bench/cpuprofile-summary.js DIR/*.cpuprofile [--top 40] [--requests N] [--with-startup]
//
// With --requests (the answers served while profiled, e.g. the request log's line
// count) the figures are µs per request, else ms. Builtins V8 runs for a function
// (string concatenation, Map lookups, JSON.stringify) count as that function's own.

import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const STARTUP = /module_job|esm\/loader|run_main|pre_execution|bootstrap|lifecycle\.js/;

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
}

function shortFile(url: string): string {
  if (url === '') return '(native)';
  return url.replace(/^file:\/\/.*?\/(dist|node_modules|\.test-build)\//, '$1/');
}

function main(): void {
  const args = process.argv.slice(2);
  const top = Number(option(args, '--top') ?? 40);
  const requests = Number(option(args, '--requests') ?? 0);
  const withStartup = args.includes('--with-startup');
  const files = args.filter((arg, index) => arg.endsWith('.cpuprofile') && !['--top', '--requests'].includes(args[index - 1] ?? ''));
  if (files.length === 0) throw new Error('usage: cpuprofile-summary.js FILE.cpuprofile... [--top N] [--requests N] [--with-startup]');
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    const parents = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
    // Whether a node is under start-up work, worked out once per node.
    const startup = new Map<number, boolean>();
    const inStartup = (id: number | undefined): boolean => {
      if (id === undefined) return false;
      const known = startup.get(id);
      if (known !== undefined) return known;
      const frame = nodes.get(id)!.callFrame;
      const result = STARTUP.test(frame.url + ' ' + frame.functionName) || inStartup(parents.get(id));
      startup.set(id, result);
      return result;
    };
    profile.samples.forEach((id, index) => {
      const frame = nodes.get(id)!.callFrame;
      if (frame.functionName === '(idle)' || (!withStartup && inStartup(id))) return;
      const micros = profile.timeDeltas[index] ?? 0;
      const where = shortFile(frame.url);
      const name = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
      byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
      byFile.set(where, (byFile.get(where) ?? 0) + micros);
      total += micros;
    });
  }
  const unit = requests > 0 ? 'µs/request' : 'ms';
  const shown = (micros: number) => (requests > 0 ? micros / requests : micros / 1000).toFixed(requests > 0 ? 3 : 1).padStart(9);
  const print = (title: string, table: Map<string, number>) => {
    process.stdout.write(`\n${title} (${unit}, share of ${shown(total).trim()})\n`);
    for (const [name, micros] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      process.stdout.write(`${shown(micros)} ${((micros / total) * 100).toFixed(1).padStart(5)}%  ${name}\n`);
    }
  };
  print('self time by function', byFunction);
  print('self time by file', byFile);
}

main();
