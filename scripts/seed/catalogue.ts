import type { PluginFields } from '../../src/services/site/store/validation.js';
import { installHistory, type SeedInstallDay } from './install-history.js';
import { createRandom, type Random } from './random.js';
import type { SeedPicture, SeedPictures } from './store-pictures.js';
import {
  COMMENTS_BY_STARS, DESCRIPTION_BENEFITS, DESCRIPTION_SENTENCES, FEATURE_LINES, FIRST_NAMES, HANDLE_WORDS, LAST_NAMES,
  NAME_NOUNS, NAME_PREFIXES, NAME_SUFFIXES, PERMISSIONS, REPLIES, TAGS,
} from './vocabulary.js';

// A deterministic catalogue: the same options give the same plugins, users,
// ratings and replies (times are relative to `now`). Every value obeys the field
// rules of sql/002_plugins.sql and sql/003_ratings.sql; the database
// checks them again on the way in.

export interface CatalogueOptions {
  plugins: number;
  /** Ratings over all plugins, spread by popularity (popular plugins get more). */
  ratings: number;
  seed: number;
  /** Every plugin approved (benchmarks); otherwise about 90% approved, 6% pending, 4% rejected. */
  allApproved?: boolean;
  /** Lower-case ids already taken in the database, to avoid. */
  takenIds?: ReadonlySet<string>;
  now?: number;
  /**
   * Stored pictures (store-pictures.ts) that icons, screenshots and avatars are
   * picked from; without them there are none (never a link to nowhere).
   */
  pictures?: SeedPictures;
}

export interface SeedUser {
  username: string;
  avatar: string;
}

/** A plugin's fields as the API takes them (PluginFields), plus what only the seed sets. */
export interface SeedPlugin extends PluginFields {
  id: string;
  /** Index into `authors`. */
  submitter: number;
  screenshots: Array<string | { url: string; webpUrl: string }>;
  status: 'pending' | 'approved' | 'rejected';
  featured: boolean;
  installCount: number;
  createdAt: Date;
  updatedAt: Date;
  review: { action: 'approve' | 'reject'; reason: string | null; at: Date } | null;
  /** stars[n - 1]: how many of its ratings have n stars. */
  stars: [number, number, number, number, number];
}

export interface SeedRating {
  plugin: number;
  /** Index into `raters`. */
  rater: number;
  stars: number;
  comment: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface SeedReply {
  plugin: number;
  rater: number;
  /** Index into `authors`: the plugin's submitter answers. */
  author: number;
  body: string;
  createdAt: Date;
}

export interface Catalogue {
  authors: SeedUser[];
  raters: SeedUser[];
  plugins: SeedPlugin[];
  ratings: SeedRating[];
  replies: SeedReply[];
  /** Rows of plugin_install_days, generated as they are read (install-history.ts). */
  installDays: Iterable<SeedInstallDay>;
}

const DAY_MS = 86_400_000;
const CATALOGUE_AGE_DAYS = 3 * 365;
const CDN = 'https://cdn.plugins.example.net';
const NO_PICTURES: SeedPictures = { icons: [], screenshots: [], avatars: [] };

export function buildCatalogue(options: CatalogueOptions): Catalogue {
  const random = createRandom(options.seed);
  const now = options.now ?? Date.now();
  const pictures = options.pictures ?? NO_PICTURES;
  const authors = makeUsers(random, Math.max(10, Math.round(options.plugins / 6)), authorHandle, pictures.avatars);
  const averageRatings = options.plugins > 0 ? options.ratings / options.plugins : 0;
  // Enough distinct raters for the most rated plugin, and a crowd for the rest.
  const raters = makeUsers(random, Math.max(2000, Math.min(50_000, Math.ceil(averageRatings * 100))), playerHandle, pictures.avatars);

  const plugins: SeedPlugin[] = [];
  const ids = new Set(options.takenIds ?? []);
  for (let i = 0; i < options.plugins; i++) plugins.push(makePlugin(random, authors, ids, now, options.allApproved === true, pictures));

  // Ratings go to approved plugins, in proportion to installs^0.6.
  const weights = plugins.map((plugin) => (plugin.status === 'approved' ? Math.pow(plugin.installCount + 1, 0.6) : 0));
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  const ratings: SeedRating[] = [];
  const replies: SeedReply[] = [];
  plugins.forEach((plugin, index) => {
    if (totalWeight === 0 || weights[index] === 0) return;
    const wanted = (options.ratings * weights[index]!) / totalWeight;
    const count = Math.min(raters.length, Math.floor(wanted) + (random.chance(wanted % 1) ? 1 : 0));
    const quality = 2.4 + random.next() * 2.5;
    const first = random.int(0, raters.length - 1);
    for (let j = 0; j < count; j++) {
      const stars = starsAround(random, quality);
      plugin.stars[stars - 1]!++;
      const createdAt = between(random, plugin.createdAt.getTime(), now);
      const updatedAt = random.chance(0.15) ? between(random, createdAt.getTime(), now) : createdAt;
      const rater = (first + j) % raters.length;
      ratings.push({
        plugin: index,
        rater,
        stars,
        comment: random.chance(0.45) ? random.pick(COMMENTS_BY_STARS[stars]!) : '',
        createdAt,
        updatedAt,
      });
      // Authors answer some reviews, the bad ones more often.
      if (random.chance(stars <= 2 ? 0.3 : 0.05)) {
        replies.push({ plugin: index, rater, author: plugin.submitter, body: random.pick(REPLIES), createdAt: between(random, updatedAt.getTime(), now) });
      }
    }
  });
  return { authors, raters, plugins, ratings, replies, installDays: installHistory(plugins, options.seed, now) };
}

/** One of `list`, drawn whether or not the list is empty (so pictures change no other value). */
function pickPicture(random: Random, list: readonly SeedPicture[]): SeedPicture | undefined {
  const index = Math.floor(random.next() * Math.max(1, list.length));
  return list[index];
}

function makeUsers(random: Random, count: number, handle: (random: Random) => string, avatars: readonly SeedPicture[]): SeedUser[] {
  const seen = new Set<string>();
  const users: SeedUser[] = [];
  while (users.length < count) {
    let name = handle(random);
    if (seen.has(name.toLowerCase())) name = `${name}${random.int(2, 9999)}`;
    if (seen.has(name.toLowerCase()) || name.length > 64) continue;
    seen.add(name.toLowerCase());
    const avatar = pickPicture(random, avatars);
    users.push({ username: name, avatar: random.chance(0.8) && avatar ? avatar.url : '' });
  }
  return users;
}

function authorHandle(random: Random): string {
  const first = random.pick(FIRST_NAMES).toLowerCase();
  const last = random.pick(LAST_NAMES).toLowerCase();
  return random.pick([`${first}${last}`, `${first}.${last}`, `${first}_${last}`, `${first[0]}${last}`, `${last}dev`]);
}

function playerHandle(random: Random): string {
  const a = random.pick(HANDLE_WORDS);
  const b = random.pick(HANDLE_WORDS);
  const styles = [`${a}_${b}`, `${capital(a)}${capital(b)}`, `${a}${b}${random.int(1, 999)}`, `x${a}x`, `${a}-${b}`];
  return random.pick(styles);
}

function makePlugin(random: Random, authors: SeedUser[], ids: Set<string>, now: number, allApproved: boolean, pictures: SeedPictures): SeedPlugin {
  const [noun, nounTags] = random.zipf(NAME_NOUNS, 0.6);
  const words = [random.chance(0.75) ? random.pick(NAME_PREFIXES) : '', noun, random.chance(0.3) ? random.pick(NAME_SUFFIXES) : ''];
  const name = words.filter(Boolean).join(' ');
  const id = uniqueId(slug(name), ids);
  const submitter = authorIndex(random, authors.length);
  const authorName = random.chance(0.7) ? displayName(authors[submitter]!.username) : authors[submitter]!.username;

  const tags: string[] = [];
  const addTag = (tag: string) => {
    if (tags.length < 20 && !tags.some((t) => t.toLowerCase() === tag.toLowerCase())) tags.push(tag);
  };
  for (const tag of nounTags) addTag(tag);
  for (let n = random.int(0, 4); n > 0; n--) addTag(random.zipf(TAGS, 0.9));

  const createdAt = new Date(now - random.next() * CATALOGUE_AGE_DAYS * DAY_MS);
  const updatedAt = random.chance(0.6) ? between(random, createdAt.getTime(), now) : createdAt;
  const status = allApproved ? 'approved' : random.chance(0.9) ? 'approved' : random.chance(0.6) ? 'pending' : 'rejected';
  const review =
    status === 'pending'
      ? null
      : { action: status === 'approved' ? ('approve' as const) : ('reject' as const), reason: status === 'rejected' ? 'The download link does not work.' : null, at: updatedAt };
  const version = `${random.int(0, 4)}.${random.int(0, 20)}.${random.int(0, 30)}`;
  const description = `${name} ${random.pick(DESCRIPTION_SENTENCES).replace('{}', nounTags[0]!.replace(/-/g, ' '))} ${random.pick(DESCRIPTION_BENEFITS)}`;
  const features = Array.from({ length: random.int(2, 5) }, () => `- ${random.pick(FEATURE_LINES)}`);
  const longDescription = `${description}\n\n## Features\n${[...new Set(features)].join('\n')}\n\n## Installing\nInstall it from the store with one click; the launcher checks the download before enabling it.`;
  // Both shapes the API takes: a link alone, or the original with its WebP preview.
  const screenshots = Array.from({ length: random.int(0, 4) }, () => [pickPicture(random, pictures.screenshots), random.chance(0.5)] as const)
    .filter(([shot]) => shot !== undefined)
    .map(([shot, alone]) => (alone ? shot!.url : { url: shot!.url, webpUrl: shot!.webpUrl }));
  const icon = pickPicture(random, pictures.icons);
  const permissions = [...new Set(Array.from({ length: random.int(0, 3) }, () => random.pick(PERMISSIONS)))];

  return {
    id,
    submitter,
    name,
    version,
    author: authorName,
    description,
    longDescription,
    download: `${CDN}/${id}/${version}/${id}.zip`,
    sha256: random.chance(0.7) ? random.hex(64) : null,
    url: random.chance(0.6) ? `https://github.com/${authors[submitter]!.username.replace(/[^A-Za-z0-9-]/g, '-')}/${id}` : null,
    icon: random.chance(0.85) && icon ? icon.url : null,
    tags,
    permissions,
    screenshots,
    status,
    featured: status === 'approved' && random.chance(0.01),
    // Heavy-tailed: most plugins have a few hundred installs, a handful have hundreds of thousands.
    installCount: Math.min(5_000_000, Math.floor(random.logNormal(5, 2))),
    createdAt,
    updatedAt,
    review,
    stars: [0, 0, 0, 0, 0],
  };
}

/** Prolific authors first: a few write many plugins (what "same submitter" relates). */
function authorIndex(random: Random, count: number): number {
  return Math.min(count - 1, Math.floor(Math.pow(random.next(), 2.2) * count));
}

function starsAround(random: Random, quality: number): number {
  // A discrete bell around the plugin's quality, with a long tail of unhappy users.
  if (random.chance(0.06)) return 1;
  const value = Math.round(quality + (random.next() + random.next() + random.next() - 1.5) * 1.3);
  return Math.max(1, Math.min(5, value));
}

function between(random: Random, from: number, to: number): Date {
  return new Date(from + random.next() * Math.max(0, to - from));
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 100);
}

function uniqueId(base: string, ids: Set<string>): string {
  let id = base;
  for (let n = 2; ids.has(id.toLowerCase()); n++) id = `${base}-${n}`;
  ids.add(id.toLowerCase());
  return id;
}

function displayName(username: string): string {
  return username.replace(/\d+$/, '').split(/[._-]/).filter(Boolean).map(capital).join(' ');
}

function capital(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
