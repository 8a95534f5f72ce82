import { notFound } from '../../http/errors.js';
import type { SiteContext } from '../context.js';

// GET /img/:timestamp/:file on the site: 302 to the same path on the image host
// (IMAGE_HOST_PUBLIC_URL). Plugin images must be https or in-site paths (the field
// rules and the pages say so), so an image host reached over plain http, as under
// `npm start`, can only be named through the site: `/img/...` is that in-site name,
// and the same path served by a proxy in front of both services works without the
// hop. Only the image host's own URL shapes are redirected; anything else is 404.

const TIMESTAMP = /^\d{1,16}$/;
const FILE_NAME = /^[0-9a-f]{32}(\.webp)?$/;
/** The target only changes with the configuration: let browsers keep it a day. */
const CACHE_CONTROL = 'public, max-age=86400';

export function imageRedirect(imageHostPublicUrl: string) {
  const base = imageHostPublicUrl.replace(/\/+$/, '');
  return (ctx: SiteContext): void => {
    const { timestamp, file } = ctx.params;
    if (!TIMESTAMP.test(timestamp ?? '') || !FILE_NAME.test(file ?? '')) throw notFound('No such image');
    ctx.res.writeHead(302, { Location: `${base}/img/${timestamp}/${file}`, 'Cache-Control': CACHE_CONTROL, 'Content-Length': 0 }).end();
  };
}
