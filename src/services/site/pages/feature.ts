import { join } from 'node:path';
import type { Feature } from '../../../http/feature.js';
import { projectRoot } from '../../../lib/project-root.js';
import { compressFast, preferredCoding, redirect, sendBody } from '../../../http/answer/index.js';
import { loadStaticFolder, sendStaticFile, type StaticFile, type StaticOptions } from '../../../http/static-files.js';
import { isHttpError } from '../../../http/errors.js';
import { HTML_CSP } from '../../../http/security-headers.js';
import type { Guards } from '../auth/guards.js';
import type { SiteContext, SiteDeps, SiteLocals, SiteMiddleware } from '../context.js';
import { findPluginRecord } from '../store/plugin-reads.js';
import { canSee } from '../store/visibility.js';
import { loadCatalogues } from './catalogue.js';
import { LANGUAGES, pickLanguage, type Language } from './language.js';
import { escapeHtml, renderPage, type PageDefinition } from './templates.js';
import { PAGE_RULES } from '../store/page-rules.js';

// The web pages of the site: the landing page, the plugin store, a plugin's page
// (at exactly /apps/plugin/<id>: the Bloret launcher links there), submit and
// edit, My plugins, the review queue and API tokens. Each is a static HTML shell rendered per
// language at start-up; its script reads the JSON API. Scripts, the stylesheet
// and the catalogues are served from /static/ (static/site/).

const PAGES = {
  landing: { name: 'landing', title: 'title.landing' },
  store: { name: 'store', title: 'title.store' },
  plugin: { name: 'plugin', title: 'title.plugin' },
  submit: { name: 'submit', title: 'title.submit' },
  mine: { name: 'mine', title: 'title.mine' },
  review: { name: 'review', title: 'title.review' },
  tokens: { name: 'tokens', title: 'title.tokens' },
} satisfies Record<string, PageDefinition>;

export function pagesFeature(deps: SiteDeps, guards: Guards): Feature<SiteLocals> {
  const root = join(projectRoot(), 'static', 'site');
  const catalogues = loadCatalogues(join(root, 'i18n'));
  const rendered = renderSitePages(deps.config.oauth ? 'provider' : 'local');

  const pluginShells = Object.fromEntries(LANGUAGES.map((language) => [language, rendered.get('plugin')![language].body.toString()])) as Record<Language, string>;

  const serve = (page: PageDefinition, status = 200) => (ctx: SiteContext) => {
    const language = pickLanguage(ctx.req);
    const file = rendered.get(page.name)![language];
    const headers = { Vary: 'Accept-Language, Cookie', 'Content-Language': language, 'Content-Security-Policy': HTML_CSP };
    if (status === 200) sendStaticFile(ctx, file, headers);
    // An id no plugin can have: the page still shows its "not found" state, with a 404.
    else sendStaticFile(ctx, file, headers, status);
  };

  // The plugin's name goes into the title and its description into a meta tag
  // (escaped), for the launcher's link, previews and readers without scripts;
  // the rest is the page's script, as on every page.
  const pluginPage = async (ctx: SiteContext) => {
    let row: Awaited<ReturnType<typeof findPluginRecord>>;
    try {
      row = await findPluginRecord(deps.sql, ctx.params.id!);
    } catch (error) {
      // The database is away: the page as it is for any plugin, whose script reads
      // the detail (served stale while this process holds it) and says what it finds.
      if (isUnavailable(error)) return serve(PAGES.plugin)(ctx);
      throw error;
    }
    const user = ctx.locals.user;
    if (!row || !canSee({ id: row.id, status: row.status, submitterId: String(row.submitter_id) }, user)) {
      return serve(PAGES.plugin, 404)(ctx);
    }
    const language = pickLanguage(ctx.req);
    const shell = pluginShells[language];
    // A replacer function: a name's `$&`, `$\``, `$'` must not be read as replacement patterns.
    const title = catalogues[language]['title.pluginNamed']!.replace('{name}', () => row.name);
    const head = `<title>${escapeHtml(title)}</title>\n<meta name="description" content="${escapeHtml(row.description)}">`;
    sendPage(ctx, shell.replace(/<title>[^<]*<\/title>/, () => head), { Vary: 'Accept-Language, Cookie', 'Content-Language': language, 'Content-Security-Policy': HTML_CSP });
  };

  return {
    routes: [
      { method: 'GET', path: '/', handler: serve(PAGES.landing) },
      { method: 'GET', path: '/apps', handler: (ctx) => redirect(ctx, '/apps/', 301) },
      { method: 'GET', path: '/apps/', handler: serve(PAGES.store) },
      // The path the Bloret launcher opens for a listing without a detail_url.
      // Visible as the detail is (one rule, one small query): what the caller may
      // not see is a 404, and the page then says it is not available.
      { method: 'GET', path: '/apps/plugin/:id', use: [withUserUnlessUnavailable(guards)], handler: pluginPage },
      { method: 'GET', path: '/apps/submit', handler: serve(PAGES.submit) },
      { method: 'GET', path: '/apps/edit/:id', handler: serve(PAGES.submit) },
      { method: 'GET', path: '/apps/mine', handler: serve(PAGES.mine) },
      { method: 'GET', path: '/apps/review', handler: serve(PAGES.review) },
      // Personal API tokens (src/services/site/auth/tokens): create, copy once, list, revoke.
      { method: 'GET', path: '/apps/tokens', handler: serve(PAGES.tokens) },
    ],
  };
}

const isUnavailable = (error: unknown) => isHttpError(error) && error.status === 503;

/**
 * guards.withUser, but a caller whose session cannot be looked up while the
 * database is away goes on as a visitor: a page is HTML, never the API's JSON 503.
 */
function withUserUnlessUnavailable(guards: Guards): SiteMiddleware {
  return async (ctx, next) => {
    let passed = false;
    try {
      return await guards.withUser(ctx, () => {
        passed = true;
        return next();
      });
    } catch (error) {
      if (passed || !isUnavailable(error)) throw error;
      return next();
    }
  };
}

/** A page made for this request: no ETag, compressed quickly when the client takes it. */
function sendPage(ctx: SiteContext, html: string, extra: Record<string, string>): void {
  const body = Buffer.from(html);
  const coding = preferredCoding(ctx.req.headers['accept-encoding']);
  const headers: Record<string, string> = { ...extra, 'Cache-Control': 'no-cache' };
  headers.Vary = `${headers.Vary}, Accept-Encoding`;
  if (coding) headers['Content-Encoding'] = coding;
  sendBody(ctx, 200, coding ? compressFast(body, coding) : body, 'text/html; charset=utf-8', headers);
}

/**
 * static/site as the site serves it: the templates and catalogues are read by this
 * feature, not served as files; scripts and stylesheets are minified (the page
 * budget counts them so).
 */
export const SITE_STATIC_OPTIONS: StaticOptions = { skip: (name) => /^(pages|i18n)(\/|$)/.test(name), minify: true };

/**
 * Every page in every language, as served (the plugin page's title and description
 * are filled in per request): by page name. Also what the page budget reads
 * (scripts/page-weight), so it measures exactly the pages the site serves.
 */
export function renderSitePages(login: 'provider' | 'local'): Map<string, Record<Language, StaticFile>> {
  const root = join(projectRoot(), 'static', 'site');
  const assets = loadStaticFolder(root, SITE_STATIC_OPTIONS);
  const catalogues = loadCatalogues(join(root, 'i18n'));
  const rendered = new Map<string, Record<Language, StaticFile>>();
  for (const page of Object.values(PAGES)) {
    const byLanguage = {} as Record<Language, StaticFile>;
    for (const language of LANGUAGES) {
      byLanguage[language] = renderPage(join(root, 'pages'), { page, language, catalogue: catalogues[language], assets, login, rules: PAGE_RULES });
    }
    rendered.set(page.name, byLanguage);
  }
  return rendered;
}
