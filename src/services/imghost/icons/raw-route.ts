import { sendPrepared } from '../../../http/answer/index.js';
import type { ImghostHandler } from '../context.js';
import { resolveIconFile, type IconAliases } from './icon-aliases.js';
import type { IconCatalog } from './icon-catalog.js';
import { iconNotFound } from './icon-errors.js';
import type { IconFile } from './icon-files.js';

interface IconFiles {
  get(fileName: string): IconFile | Promise<IconFile>;
}

/**
 * GET /SFs/{file}.svg: the icon file exactly as it is on disk, as the original image
 * host served its icon folder (its search page and old embeds link here). Only
 * `<name>.svg` is a file name; an alias stands for its icon here too, since the
 * original folder held SF Symbols under their own names. Same caching and CSP as /SF.
 */
export function rawIconHandler(catalog: IconCatalog, aliases: IconAliases, files: IconFiles): ImghostHandler {
  return async (ctx) => {
    const requested = ctx.params['*'] ?? '';
    if (!requested.endsWith('.svg')) throw iconNotFound();
    const fileName = resolveIconFile(catalog, aliases, requested);
    if (fileName === undefined) throw iconNotFound();
    const file = await files.get(fileName);
    sendPrepared(ctx, file.raw);
  };
}
