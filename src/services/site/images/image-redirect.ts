import { redirect } from '../../../http/answer/index.js';
import { notFound } from '../../../http/errors.js';
import type { SiteContext } from '../context.js';

// GET /img/:timestamp/:file on the site, when the image host is on https: 302 to the
// same path on the image host (IMAGE_HOST_PUBLIC_URL). Plugin images must be https or
// in-site paths (the field rules and the pages say so): `/img/...` is the in-site
// name of an image on the image host, and the same path served by a proxy in front
// of both services works without the hop. An image host on plain http, as under
// `npm start`, is fetched and sent by the site instead (image-proxy.ts), so that no page
// loads an image over http. Only the image host's own URL shapes are answered;
// anything else is 404.

const TIMESTAMP = /^\d{1,16}$/;
const FILE_NAME = /^[0-9a-f]{32}(\.webp)?$/;
/** The target only changes with the configuration: let browsers keep it a day. */
const CACHE_CONTROL = 'public, max-age=86400';

export const imageNotFound = () => notFound('No such image');

/** Whether `/img/<timestamp>/<file>` has the shape of the image host's image URLs. */
export function isImagePath(timestamp: string | undefined, file: string | undefined): boolean {
  return TIMESTAMP.test(timestamp ?? '') && FILE_NAME.test(file ?? '');
}

export function imageRedirect(imageHostPublicUrl: string) {
  const base = imageHostPublicUrl.replace(/\/+$/, '');
  return (ctx: SiteContext): void => {
    const { timestamp, file } = ctx.params;
    if (!isImagePath(timestamp, file)) throw imageNotFound();
    redirect(ctx, `${base}/img/${timestamp}/${file}`, 302, undefined, CACHE_CONTROL);
  };
}
