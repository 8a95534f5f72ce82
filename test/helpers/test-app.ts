// The HTTP core as the tests of http/ mount it: the site's error envelope, no
// proxies trusted, empty locals, nothing logged, unless a test says otherwise.
import { createApp, type AppHandler, type AppOptions } from '../../src/http/app.js';
import { silentLogger } from '../../src/lib/log.js';
import { renderSiteError } from '../../src/services/site/errors.js';

export function testApp(options: Partial<AppOptions<any>> & Pick<AppOptions<any>, 'routes'>): AppHandler {
  return createApp<any>({
    name: 'test',
    log: silentLogger,
    trustProxy: false,
    createLocals: () => ({}),
    renderError: renderSiteError,
    ...options,
  });
}
