import { join } from 'node:path';
import type { Feature } from '../../core/feature.js';
import { projectRoot } from '../../core/project-root.js';
import { redirect } from '../../core/respond.js';
import { loadStaticFolder, sendStaticFile, type StaticFile } from '../../core/static-files.js';
import { HttpError } from '../../core/errors.js';
import { createGuards } from '../auth/guards.js';
import type { SiteContext, SiteDeps, SiteLocals } from '../context.js';
import { findVisiblePlugin } from '../plugins/visibility.js';
import { loadCatalogues } from './catalogue.js';
import { LANGUAGES, pickLanguage, type Language } from './language.js';
import { renderPage, type PageDefinition } from './templates.js';

// The web pages of the site: the landing page, the plugin store, a plugin's page
// (at exactly /apps/plugin/<id>: the Bloret launcher links there), submit and
// edit, My plugins and the review queue. Each is a static HTML shell rendered per
// language at start-up; its script reads the JSON API. Scripts, the stylesheet
// and the catalogues are served from /static/ (static/site/).

const PAGES = {
  landing: { name: 'landing', title: 'title.landing' },
  store: { name: 'store', title: 'title.store' },
  plugin: { name: 'plugin', title: 'title.plugin' },
  submit: { name: 'submit', title: 'title.submit' },
  mine: { name: 'mine', title: 'title.mine' },
  review: { name: 'review', title: 'title.review' },
} satisfies Record<string, PageDefinition>;

export function pagesFeature(deps: SiteDeps): Feature<SiteLocals> {
  const root = join(projectRoot(), 'static', 'site');
  const assets = loadStaticFolder(root, { skip: skipTemplates });
  const catalogues = loadCatalogues(join(root, 'i18n'));
  const login = deps.config.oauth ? 'provider' : 'local';
  const guards = createGuards(deps);

  const rendered = new Map<string, Record<Language, StaticFile>>();
  for (const page of Object.values(PAGES)) {
    const byLanguage = {} as Record<Language, StaticFile>;
    for (const language of LANGUAGES) {
      byLanguage[language] = renderPage(join(root, 'pages'), { page, language, catalogue: catalogues[language], assets, login });
    }
    rendered.set(page.name, byLanguage);
  }

  const serve = (page: PageDefinition, status = 200) => (ctx: SiteContext) => {
    const language = pickLanguage(ctx.req);
    const file = rendered.get(page.name)![language];
    const headers = { Vary: 'Accept-Language, Cookie', 'Content-Language': language };
    if (status === 200) sendStaticFile(ctx, file, headers);
    // An id no plugin can have: the page still shows its "not found" state, with a 404.
    else sendStaticFile(ctx, file, headers, status);
  };

  const pluginPage = async (ctx: SiteContext) => {
    const visible = await findVisiblePlugin(deps.sql, ctx.params.id!, ctx.locals.user).then(
      () => true,
      (error: unknown) => {
        if (error instanceof HttpError && error.status === 404) return false;
        throw error;
      },
    );
    serve(PAGES.plugin, visible ? 200 : 404)(ctx);
  };

  return {
    routes: [
      { method: 'GET', path: '/', handler: serve(PAGES.landing) },
      { method: 'GET', path: '/apps', handler: (ctx) => redirect(ctx, '/apps/', 301) },
      { method: 'GET', path: '/apps/', handler: serve(PAGES.store) },
      // The path the Bloret launcher opens for a listing without a detail_url.
      // Visible as the detail is (one rule, one small query): what the caller may
      // not see is a 404, and the page then says it is not available.
      { method: 'GET', path: '/apps/plugin/:id', use: [guards.withUser], handler: pluginPage },
      { method: 'GET', path: '/apps/submit', handler: serve(PAGES.submit) },
      { method: 'GET', path: '/apps/edit/:id', handler: serve(PAGES.submit) },
      { method: 'GET', path: '/apps/mine', handler: serve(PAGES.mine) },
      { method: 'GET', path: '/apps/review', handler: serve(PAGES.review) },
    ],
  };
}

/** Server-side templates and catalogues are read by this feature, not served as files. */
export function skipTemplates(name: string): boolean {
  return /^(pages|i18n)(\/|$)/.test(name);
}
