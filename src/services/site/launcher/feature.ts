import { badRequest, HttpError } from '../../../http/errors.js';
import type { Feature } from '../../../http/feature.js';
import type { SiteDeps, SiteLocals } from '../context.js';
import { sendPrepared } from '../../../http/answer/index.js';
import { createLauncherConfigSource } from './config-source.js';
import { LANGUAGE_TAG, pickTranslation } from './translations.js';

/** GET /api/info and GET /api/fastdownload, served from LAUNCHER_CONFIG (see document.ts for the rules). */
export function launcherFeature(deps: SiteDeps): Feature<SiteLocals> {
  const source = createLauncherConfigSource({ path: deps.config.launcherConfig, log: deps.log.child({ component: 'launcher' }) });
  return {
    routes: [
      {
        method: 'GET',
        path: '/api/info',
        handler: (ctx) => {
          const answers = source.answers();
          // No file ever read is a configuration failure, 500 INTERNAL.
          if (!answers.info) throw new HttpError(500, 'INTERNAL', 'Launcher information is not available');
          // ?lang= picks the file's texts in that language; a language it does not translate gets the default.
          const lang = ctx.query.get('lang');
          if (lang !== null && !LANGUAGE_TAG.test(lang)) throw badRequest('lang must be a language tag such as zh-CN or en', 'lang');
          sendPrepared(ctx, (lang && pickTranslation(answers.translatedInfo, lang)) || answers.info);
        },
      },
      {
        method: 'GET',
        path: '/api/fastdownload',
        // Without a usable file this is {success: true, enabled: false, versions: []}.
        handler: (ctx) => sendPrepared(ctx, source.answers().fastdownload),
      },
    ],
    close: () => source.close(),
  };
}
