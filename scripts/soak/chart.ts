// The soak's picture, SVG written by hand: three panels over the run's rows (p99
// latency, errors, RSS per process), the fault windows shaded across all three.
import type { FaultKind } from './settings.js';
import type { FaultWindow } from './record.js';

export interface ChartInput {
  title: string;
  bucketSeconds: number;
  seconds: number;
  p99: number[];
  errors: number[];
  /** Role -> mean RSS per row in MiB (0: not running, left out of its line). */
  rss: Record<string, number[]>;
  windows: FaultWindow[];
  graceSeconds: number;
}

const WIDTH = 960;
const PANEL = 180;
const GAP = 56;
const LEFT = 70;
const RIGHT = 190;
const TOP = 48;
const FAULT_FILL: Record<FaultKind, string> = { postgres: '#f4b6b6', imghost: '#b6cdf4', bucket: '#f4e2a6' };
const LINE_COLOURS = ['#1b6ac9', '#d1462f', '#2e8b57', '#8e44ad', '#e08e0b', '#555555', '#0aa3a3', '#b5179e', '#7a5c00'];

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((step) => step * power).find((candidate) => candidate >= value)!;
}

export function drawChart(input: ChartInput): string {
  const plotWidth = WIDTH - LEFT - RIGHT;
  const height = TOP + 3 * PANEL + 2 * GAP + 40;
  const x = (seconds: number) => LEFT + (Math.min(seconds, input.seconds) / input.seconds) * plotWidth;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${LEFT}" y="24" font-size="15" font-weight="bold">${escape(input.title)}</text>`);

  const panel = (index: number, label: string, series: Array<{ name: string; values: number[] }>, unit: string) => {
    const top = TOP + index * (PANEL + GAP);
    const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
    const y = (value: number) => top + PANEL - (value / max) * PANEL;
    for (const w of input.windows) {
      out.push(`<rect x="${x(w.start).toFixed(1)}" y="${top}" width="${Math.max(1, x(w.end + input.graceSeconds) - x(w.start)).toFixed(1)}" height="${PANEL}" fill="${FAULT_FILL[w.kind]}" opacity="0.7"><title>${escape(w.what)}</title></rect>`);
    }
    out.push(`<rect x="${LEFT}" y="${top}" width="${plotWidth}" height="${PANEL}" fill="none" stroke="#999"/>`);
    for (const fraction of [0, 0.5, 1]) {
      out.push(`<text x="${LEFT - 6}" y="${(y(max * fraction) + 4).toFixed(1)}" text-anchor="end" fill="#444">${+(max * fraction).toPrecision(3)}</text>`);
    }
    out.push(`<text x="${LEFT}" y="${top - 8}" font-weight="bold">${escape(label)} (${escape(unit)})</text>`);
    series.forEach((s, i) => {
      const colour = LINE_COLOURS[i % LINE_COLOURS.length]!;
      const skipZero = index === 2;
      const points = s.values
        .map((value, row) => (skipZero && value === 0 ? '' : `${x((row + 0.5) * input.bucketSeconds).toFixed(1)},${y(value).toFixed(1)}`))
        .filter(Boolean)
        .join(' ');
      out.push(`<polyline points="${points}" fill="none" stroke="${colour}" stroke-width="2"/>`);
      for (const point of points.split(' ').filter(Boolean)) {
        const [px, py] = point.split(',');
        out.push(`<circle cx="${px}" cy="${py}" r="2.5" fill="${colour}"/>`);
      }
      if (series.length > 1) {
        out.push(`<line x1="${WIDTH - RIGHT + 16}" x2="${WIDTH - RIGHT + 36}" y1="${top + 10 + i * 16}" y2="${top + 10 + i * 16}" stroke="${colour}" stroke-width="3"/>`);
        out.push(`<text x="${WIDTH - RIGHT + 42}" y="${top + 14 + i * 16}">${escape(s.name)}</text>`);
      }
    });
  };

  panel(0, 'p99 latency per row', [{ name: 'p99', values: input.p99 }], 'ms');
  panel(1, 'errors per row', [{ name: 'errors', values: input.errors }], 'requests');
  panel(2, 'RSS per process', Object.entries(input.rss).map(([name, values]) => ({ name, values })), 'MiB');

  const axis = TOP + 3 * PANEL + 2 * GAP + 16;
  const minutes = input.seconds / 60;
  const step = minutes > 10 ? 5 : minutes > 2 ? 1 : 0.25;
  for (let m = 0; m <= minutes + 1e-9; m += step) {
    out.push(`<text x="${x(m * 60).toFixed(1)}" y="${axis}" text-anchor="middle" fill="#444">${+m.toFixed(2)}</text>`);
  }
  out.push(`<text x="${LEFT + plotWidth / 2}" y="${axis + 18}" text-anchor="middle">minutes since the load started (rows of ${input.bucketSeconds} s)</text>`);
  let legend = TOP + PANEL + GAP + 4;
  for (const [kind, fill] of Object.entries(FAULT_FILL)) {
    out.push(`<rect x="${WIDTH - RIGHT + 16}" y="${legend}" width="20" height="12" fill="${fill}"/>`);
    out.push(`<text x="${WIDTH - RIGHT + 42}" y="${legend + 10}">${kind} fault + grace</text>`);
    legend += 18;
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}
