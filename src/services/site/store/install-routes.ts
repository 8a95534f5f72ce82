import { HttpError } from '../../../http/errors.js';
import { rateLimited } from '../../../http/rate-limited.js';
import { sendJson } from '../../../http/answer/index.js';
import { createSharedRateLimiter } from '../../../db/shared-rate-limiter.js';
import { runNamed } from '../../../db/queries.js';
import type { StoreFindInstallableRow } from '../../../db/query-rows.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { PLUGIN_ID } from './visibility.js';
import { hashOfDownload } from './versions/hosted-hash.js';

// What launchers use: the install link, the manifest and the install click. All
// three exist for approved plugins only, whoever asks (docs/api.md,
// "Install link"); anything else is 404.

/** Install clicks one client address may make per minute, over all plugins. */
export const CLICKS_PER_MINUTE = 60;

/** Readable from any origin: launchers' web views and other sites link to plugins. */
const CROSS_ORIGIN = { 'Access-Control-Allow-Origin': '*' } as const;

async function findApproved(deps: SiteDeps, id: string): Promise<StoreFindInstallableRow> {
  const [row] = PLUGIN_ID.test(id) ? await runNamed(deps.sql, 'store/find-installable', { plugin_id: id }) : [];
  if (!row) throw new HttpError(404, 'NOT_FOUND', 'Plugin not found', { headers: { ...CROSS_ORIGIN } });
  return row;
}

/**
 * GET /apps/api/plugins/:id/install-link. `install_url` is
 * `<INSTALL_SCHEME>://plugin/install?download=<encoded>&id=<encoded>&source=store`,
 * with `&sha256=<hex>` after it when the hash is known (the launcher verifies the
 * ZIP only then); `propose` is the same as a JSON body for the local launcher, with
 * what its confirmation dialog shows: name, version, author, description and
 * permissions (Bloret-Launcher modules/plugin_install_request.py
 * parse_install_params; BloraLauncher lib/services/plugin_install_server.dart).
 */
export function installLinkHandler(deps: SiteDeps) {
  const scheme = deps.config.installScheme;
  const imageHost = deps.config.imageHostPublicUrl.replace(/\/+$/, '');
  return async (ctx: SiteContext) => {
    const found = await findApproved(deps, ctx.params.id!);
    // A file hosted on the image host always has its hash (versions/hosted-hash.ts).
    const plugin = { ...found, sha256: hashOfDownload(found.download, found.sha256, imageHost) };
    const { installUrl, propose } = installLink(scheme, plugin);
    const shown = {
      name: found.name,
      version: found.version,
      author: authorOf(found),
      description: found.description,
      // Strings only: BloraLauncher reads them with List<String>.from.
      permissions: found.permissions,
    };
    sendJson(
      ctx,
      200,
      { success: true, install_url: installUrl, download: plugin.download, sha256: plugin.sha256, propose: { ...propose, ...shown } },
      { ...CROSS_ORIGIN, 'Cache-Control': 'no-cache' },
    );
  };
}

/** The launcher link and its JSON twin (also used by the plugin page's install button). */
export function installLink(
  scheme: string,
  plugin: { id: string; download: string; sha256: string | null },
): { installUrl: string; propose: Record<string, unknown> } {
  let installUrl = `${scheme}://plugin/install?download=${encodeURIComponent(plugin.download)}&id=${encodeURIComponent(plugin.id)}&source=store`;
  const propose: Record<string, unknown> = { download: plugin.download, id: plugin.id, source: 'store' };
  if (plugin.sha256) {
    installUrl += `&sha256=${plugin.sha256}`;
    propose.sha256 = plugin.sha256;
  }
  return { installUrl, propose };
}

/** Who a launcher names as the plugin's author: its `author`, else its submitter's username. */
const authorOf = (plugin: StoreFindInstallableRow): string => (plugin.author !== '' ? plugin.author : (plugin.submitter ?? ''));

/** GET /apps/api/plugins/:id/manifest.json: {name, master, download, version}, no envelope. */
export function manifestHandler(deps: SiteDeps) {
  return async (ctx: SiteContext) => {
    const plugin = await findApproved(deps, ctx.params.id!);
    sendJson(
      ctx,
      200,
      { name: plugin.name, master: authorOf(plugin), download: plugin.download, version: plugin.version },
      { ...CROSS_ORIGIN, 'Cache-Control': 'no-cache' },
    );
  };
}

/**
 * POST /apps/api/plugins/:id/install-click: {success, id, installCount}. One client
 * address counts once per plugin per hour (a repeat answers the count unchanged),
 * atomically in PostgreSQL, so any number of site processes agree.
 */
export function installClickHandler(deps: SiteDeps) {
  const limiter = createSharedRateLimiter(deps.sql, { name: 'install-click', limit: CLICKS_PER_MINUTE, windowMs: 60_000 });
  return async (ctx: SiteContext) => {
    const id = ctx.params.id!;
    if (!PLUGIN_ID.test(id)) throw new HttpError(404, 'NOT_FOUND', 'Plugin not found');
    const decision = await limiter.hit(ctx.ip);
    if (!decision.allowed) throw rateLimited(decision, 'Too many install clicks; try again later');
    const [row] = await runNamed(deps.sql, 'store/count-install-click', { plugin_id: id, address: ctx.ip });
    if (!row) throw new HttpError(404, 'NOT_FOUND', 'Plugin not found');
    sendJson(ctx, 200, { success: true, id: row.id, installCount: Number(row.install_count) }, { 'Cache-Control': 'no-store' });
  };
}
