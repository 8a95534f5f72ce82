// The Prometheus text exposition format, version 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/): `# HELP` and
// `# TYPE` once per family, then `name{label="value"} number` lines.

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A single-valued family a feature reports (a gauge read at scrape time, or a counter it keeps). */
export interface Sample {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  value: number;
}

/** Label values are escaped as the format says: backslash, double quote and line feed. */
export function labelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : '\\' + c));
}

/** Numbers as the format writes them (+Inf, -Inf, NaN spelled its way). */
export function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

export function familyHead(name: string, help: string, type: string): string {
  return `# HELP ${name} ${help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${name} ${type}\n`;
}

export function renderSamples(samples: readonly Sample[]): string {
  let text = '';
  for (const sample of samples) text += familyHead(sample.name, sample.help, sample.type) + `${sample.name} ${formatNumber(sample.value)}\n`;
  return text;
}
