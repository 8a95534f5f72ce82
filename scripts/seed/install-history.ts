import { createRandom } from './random.js';

// Install histories: rows of plugin_install_days (sql/002) for the approved plugins,
// so a plugin page's chart (30, 90 or 365 days) shows something. A plugin's installs
// over its last `windowDays` days (at most its age) are its share of install_count
// for that stretch, spread over the days with a weekly rhythm (weekends busier), a
// trend (rising or fading) and day-to-day noise; days without an install have no
// row, as in the real table. The sum never exceeds install_count (which also counts
// installs before the window). Deterministic: its own random stream from the seed,
// so it changes nothing else in the catalogue. Bounded: at most HISTORY_ROW_BUDGET
// rows, so a benchmark's 100,000 plugins cost a few seconds, not a minute.

export interface SeedInstallDay {
  plugin: number;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  installs: number;
}

const DAY_MS = 86_400_000;
/** The chart's longest window. */
export const HISTORY_DAYS = 365;
/**
 * Rows a seed adds at most. The window shrinks with the catalogue (a year up to
 * about 1,000 approved plugins, down to the chart's shortest, 30 days), and past
 * this many rows the plugins left (in catalogue order) get none: of 100,000, about
 * the first 30,000 have a month's history.
 */
export const HISTORY_ROW_BUDGET = 400_000;
const MIN_WINDOW_DAYS = 30;

/** The days of history each approved plugin gets, for a catalogue of `approved` of them. */
export function historyWindow(approved: number): number {
  if (approved === 0) return HISTORY_DAYS;
  return Math.max(MIN_WINDOW_DAYS, Math.min(HISTORY_DAYS, Math.floor(HISTORY_ROW_BUDGET / approved)));
}

/** What the history reads of a seeded plugin (catalogue.ts's SeedPlugin has it). */
export interface HistoryPlugin {
  status: string;
  createdAt: Date;
  installCount: number;
}

/** Re-iterable: each pass yields the same rows (generated on the fly, not held). */
export function installHistory(plugins: readonly HistoryPlugin[], seed: number, now: number): Iterable<SeedInstallDay> {
  const windowDays = historyWindow(plugins.filter((plugin) => plugin.status === 'approved').length);
  const today = Math.floor(now / DAY_MS);
  return {
    *[Symbol.iterator]() {
      const random = createRandom(seed ^ 0x5eed1a57);
      let rows = 0;
      for (let index = 0; index < plugins.length && rows < HISTORY_ROW_BUDGET; index++) {
        const plugin = plugins[index]!;
        if (plugin.status !== 'approved') continue;
        const firstDay = Math.floor(plugin.createdAt.getTime() / DAY_MS);
        const age = today - firstDay + 1;
        const days = Math.min(windowDays, age);
        const share = (plugin.installCount * days) / age;
        const trend = random.next() * 1.6 - 0.8;
        const weights = Array.from({ length: days }, (_, i) => {
          const day = today - days + 1 + i;
          const weekend = (day + 4) % 7 >= 5 ? 1.35 : 1; // day 0 (1970-01-01) was a Thursday
          return weekend * (1 + trend * (i / Math.max(1, days - 1) - 0.5)) * Math.exp((random.next() - 0.5) * 0.6);
        });
        const total = weights.reduce((a, b) => a + b, 0);
        let left = plugin.installCount;
        for (let i = 0; i < days && left > 0 && rows < HISTORY_ROW_BUDGET; i++) {
          const expected = (share * weights[i]!) / total;
          // Randomized rounding: a plugin with 3 installs a month has 3-ish days with one.
          const installs = Math.min(left, Math.floor(expected) + (random.next() < expected % 1 ? 1 : 0));
          if (installs === 0) continue;
          left -= installs;
          rows++;
          yield { plugin: index, day: new Date((today - days + 1 + i) * DAY_MS).toISOString().slice(0, 10), installs };
        }
      }
    },
  };
}
