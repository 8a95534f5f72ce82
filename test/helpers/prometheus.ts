// A strict reader of the Prometheus text format 0.0.4, for tests: every line is a
// comment (# HELP / # TYPE), a sample, or empty; every sample belongs to a family
// whose TYPE came before it; histogram buckets never decrease and end in +Inf.

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheus(text: string): { samples: PromSample[]; types: Map<string, string> } {
  const types = new Map<string, string>();
  const samples: PromSample[] = [];
  if (!text.endsWith('\n')) throw new Error('text does not end with a line feed');
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      if (!name || !type || !TYPES.has(type)) throw new Error(`bad TYPE line: ${line}`);
      if (types.has(name)) throw new Error(`TYPE twice for ${name}`);
      types.set(name, type);
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample: ${line}`);
    const labels: Record<string, string> = {};
    if (match[2]) {
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < match[2].length) {
        const at = LABEL.lastIndex;
        const label = LABEL.exec(match[2]);
        if (!label || label.index !== at) throw new Error(`bad labels: ${line}`);
        labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      }
    }
    const value = match[3] === '+Inf' ? Infinity : match[3] === '-Inf' ? -Infinity : Number(match[3]);
    if (Number.isNaN(value) && match[3] !== 'NaN') throw new Error(`bad value: ${line}`);
    const family = match[1]!.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(match[1]!) && types.get(family) !== 'histogram') throw new Error(`sample before its TYPE: ${line}`);
    samples.push({ name: match[1]!, labels, value });
  }
  checkHistograms(samples);
  return { samples, types };
}

function checkHistograms(samples: PromSample[]): void {
  const series = new Map<string, PromSample[]>();
  for (const sample of samples.filter((s) => s.name.endsWith('_bucket'))) {
    const { le, ...rest } = sample.labels;
    const key = sample.name + JSON.stringify(rest);
    series.set(key, [...(series.get(key) ?? []), sample]);
  }
  for (const [key, buckets] of series) {
    let previous = -1;
    let bound = -Infinity;
    for (const bucket of buckets) {
      const le = bucket.labels.le === '+Inf' ? Infinity : Number(bucket.labels.le);
      if (!(le > bound) || bucket.value < previous) throw new Error(`histogram ${key}: buckets out of order`);
      bound = le;
      previous = bucket.value;
    }
    if (bound !== Infinity) throw new Error(`histogram ${key}: no +Inf bucket`);
  }
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none. */
export function sampleValue(samples: PromSample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0]?.value ?? 0;
}
