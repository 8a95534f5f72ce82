// A small seeded random source, so a seed value always gives the same catalogue
// (sfc32, a fast 128-bit-state generator with good statistical quality; Math.random
// cannot be seeded).

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** An item with index i drawn with weight 1 / (i + 1)^exponent: a few common, many rare. */
  zipf<T>(items: readonly T[], exponent?: number): T;
  /** Log-normal: exp(mu + sigma * N(0, 1)). */
  logNormal(mu: number, sigma: number): number;
  hex(length: number): string;
}

export function createRandom(seed: number): Random {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88 ^ Math.imul(seed, 0x85ebca6b);
  let c = 0xb7e15162 ^ Math.imul(seed, 0xc2b2ae35);
  let d = 1;
  const next = (): number => {
    a |= 0; b |= 0; c |= 0; d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 20; i++) next(); // mix the seed in

  const zipfTables = new WeakMap<readonly unknown[], Map<number, Float64Array>>();
  const cumulative = (items: readonly unknown[], exponent: number): Float64Array => {
    let byExponent = zipfTables.get(items);
    if (!byExponent) zipfTables.set(items, (byExponent = new Map()));
    let table = byExponent.get(exponent);
    if (!table) {
      table = new Float64Array(items.length);
      let sum = 0;
      for (let i = 0; i < items.length; i++) table[i] = sum += 1 / Math.pow(i + 1, exponent);
      byExponent.set(exponent, table);
    }
    return table;
  };

  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    zipf: (items, exponent = 1) => {
      const table = cumulative(items, exponent);
      const target = next() * table[table.length - 1]!;
      let low = 0;
      let high = table.length - 1;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (table[middle]! < target) low = middle + 1;
        else high = middle;
      }
      return items[low]!;
    },
    logNormal: (mu, sigma) => {
      // Box-Muller; 1 - next() is in (0, 1], so the log is finite.
      const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
      return Math.exp(mu + sigma * normal);
    },
    hex: (length) => {
      let out = '';
      while (out.length < length) out += Math.floor(next() * 0x100000000).toString(16).padStart(8, '0');
      return out.slice(0, length);
    },
  };
  return random;
}
