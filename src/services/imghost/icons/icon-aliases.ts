import type { PreparedAnswer } from '../../../http/answer/index.js';
import type { Logger } from '../../../lib/log.js';
import type { IconCatalog } from './icon-catalog.js';
import { iconFileCandidates } from './icon-name.js';
import { MAX_ICON_NAME_LENGTH } from './limits.js';
import { aliasListAnswer } from './list-answers.js';

// Other names for icons (sf-aliases.ts): `/SF/house` answers with `home.svg` when no
// icon called `house` exists. An icon of the exact name always wins, so an icon
// folder that has its own `house.svg` keeps it.
//
// Checked when the service starts:
// - the table's text: a malformed line, a bad name or a name given twice throws;
// - against the built-in set (`strict`): a target that does not exist, or an alias
//   that is itself the name of a built-in icon (it could never be used), throws, so
//   a Tabler upgrade that renames an icon stops start-up instead of quietly turning
//   names into 404s;
// - against ICONS_DIR (not strict): the folder is the operator's own, and aliases
//   whose target is not in it are simply unused (404 like any unknown name); how
//   many is logged at start and after every change of the folder.

/** SF Symbols style: lower-case words of letters and digits joined by dots (`building.2`). */
const ALIAS_NAME = /^[a-z0-9]+(?:\.[a-z0-9]+)*$/;
/** A built-in icon's name (`device-laptop`, `home-filled`). */
const TARGET_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export class AliasTableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AliasTableError';
  }
}

/** Alias → the icon file it stands for (`house` → `home.svg`). */
export type AliasTable = ReadonlyMap<string, string>;

export function parseAliasTable(text: string): AliasTable {
  const table = new Map<string, string>();
  const problems: string[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') return;
    const where = `line ${index + 1}`;
    const parts = line.split(/\s+/);
    if (parts.length !== 2) {
      problems.push(`${where}: expected "<SF name> <icon name>", found "${line}"`);
      return;
    }
    const [alias, target] = parts as [string, string];
    if (!ALIAS_NAME.test(alias) || alias.endsWith('.svg') || alias.length + '.svg'.length > MAX_ICON_NAME_LENGTH) {
      problems.push(`${where}: "${alias}" is not an SF name (lower-case letters and digits joined by dots, no .svg)`);
    } else if (!TARGET_NAME.test(target)) {
      problems.push(`${where}: "${target}" is not an icon name (lower-case letters and digits joined by hyphens)`);
    } else if (table.has(alias)) {
      problems.push(`${where}: "${alias}" is listed twice`);
    } else {
      table.set(alias, target + '.svg');
    }
  });
  if (problems.length > 0) throw new AliasTableError(`icon alias table: ${problems.join('; ')}`);
  return table;
}

export interface AliasCheck {
  /** `alias → target` lines whose target is not an icon of the set. */
  missingTargets: string[];
  /** Aliases that are themselves icon names: the icon wins, the line is never used. */
  shadowed: string[];
}

export function checkAliases(table: AliasTable, exists: (fileName: string) => boolean): AliasCheck {
  const missingTargets: string[] = [];
  const shadowed: string[] = [];
  for (const [alias, file] of table) {
    if (!exists(file)) missingTargets.push(`${alias} → ${file.slice(0, -'.svg'.length)}`);
    if (exists(alias + '.svg')) shadowed.push(alias);
  }
  return { missingTargets, shadowed };
}

export interface IconAliases {
  /** The file an alias request names, when the alias is usable now (`building.2.svg` → `building.svg`). */
  resolve(requested: string): string | undefined;
  /** GET /api/svg_aliases, the aliases in use (alias → file) sorted, prepared once per scan; null while the folder cannot be read. */
  listing(): PreparedAnswer | null;
}

export interface IconAliasOptions {
  table: AliasTable;
  catalog: IconCatalog;
  log: Logger;
  /** The built-in set: a table that does not fit it throws (see above). */
  strict: boolean;
}

export function createIconAliases(options: IconAliasOptions): IconAliases {
  const { table, catalog, log } = options;
  const exists = (fileName: string) => catalog.path(fileName) !== undefined;
  let listing: PreparedAnswer | null = null;

  const check = () => {
    // A folder that cannot be read has nothing to check against; the check runs
    // again once it can be (ICONS_DIR only: the built-in set is always there).
    if (!catalog.listing()) return;
    const { missingTargets, shadowed } = checkAliases(table, exists);
    if (options.strict) {
      const problems = [
        ...missingTargets.map((line) => `target missing: ${line}`),
        ...shadowed.map((alias) => `"${alias}" is itself a built-in icon`),
      ];
      if (problems.length > 0) throw new AliasTableError(`icon alias table does not fit the built-in icons: ${problems.join('; ')}`);
      return;
    }
    if (missingTargets.length > 0) {
      log.info('icon aliases whose target is not in ICONS_DIR are unused (those names answer 404)', {
        unused: missingTargets.length,
        aliases: table.size,
        examples: missingTargets.slice(0, 5),
      });
    }
  };

  check();
  catalog.onChange(() => {
    listing = null;
    if (!options.strict) check();
  });

  return {
    resolve(requested) {
      const name = requested.endsWith('.svg') ? requested.slice(0, -'.svg'.length) : requested;
      const file = table.get(name);
      return file !== undefined && exists(file) ? file : undefined;
    },
    listing() {
      if (!catalog.listing()) return null;
      if (listing) return listing;
      const active: Array<[string, string]> = [];
      for (const [alias, file] of table) {
        if (!exists(alias + '.svg') && exists(file)) active.push([alias, file]);
      }
      // Aliases are ASCII (ALIAS_NAME): code-unit order is byte order.
      active.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      listing = aliasListAnswer(Buffer.from(JSON.stringify(Object.fromEntries(active))));
      return listing;
    },
  };
}

/**
 * The icon file a requested name means: an icon of that exact name (`home`,
 * `home.svg`), else an alias (`house`, `building.2.svg`). Undefined for anything
 * else, including names outside the icon-name alphabet.
 */
export function resolveIconFile(catalog: IconCatalog, aliases: IconAliases, requested: string): string | undefined {
  const candidates = iconFileCandidates(requested);
  if (candidates.length === 0) return undefined;
  return candidates.find((candidate) => catalog.path(candidate) !== undefined) ?? aliases.resolve(requested);
}
