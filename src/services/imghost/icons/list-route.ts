import { sendPrepared } from '../../../http/answer/index.js';
import type { ImghostHandler } from '../context.js';
import type { IconAliases } from './icon-aliases.js';
import type { IconCatalog } from './icon-catalog.js';
import { listUnavailable } from './icon-errors.js';
import { fileListFor } from './list-answers.js';

/** GET /api/svg_files: the sorted names, prepared at the last scan, in gzip when the client takes it. */
export function listHandler(catalog: IconCatalog): ImghostHandler {
  return (ctx) => {
    const answers = catalog.listing();
    if (!answers) throw listUnavailable();
    sendPrepared(ctx, fileListFor(answers, ctx.req.headers['accept-encoding']));
  };
}

/**
 * GET /api/svg_aliases: `{alias: file}` for every alias in use (icon-aliases.ts),
 * which the /SF page shows beside each icon. /api/svg_files stays a list of real files.
 */
export function aliasListHandler(aliases: IconAliases): ImghostHandler {
  return (ctx) => {
    const answer = aliases.listing();
    if (!answer) throw listUnavailable();
    sendPrepared(ctx, answer);
  };
}
