import { payloadTooLarge } from '../../../http/errors.js';
import { declaresMoreThan, isMultipartForm, parseMultipart } from '../../../http/multipart/index.js';
import { rateLimited } from '../../../http/rate-limited.js';
import { sendOk } from '../../../http/answer/index.js';
import type { SharedRateLimiter } from '../../../db/shared-rate-limiter.js';
import { requireUser } from '../auth/guards.js';
import type { SiteContext } from '../context.js';
import type { ImageHostClient } from '../image-host/client.js';
import type { UploadedImage } from '../image-host/image-answer.js';
import type { Relay } from '../image-host/relay.js';
import { checkImagePart, IMAGE_FIELD, noImage } from './image-part.js';
import { MAX_FORM_BYTES, MAX_IMAGE_BYTES, UPLOAD_FORM_LIMITS } from './limits.js';

/**
 * POST /apps/api/media/upload. In order: the user (the guard, before this), the
 * declared size, the user's upload rate, then the form streams: the `image` part's
 * first bytes are checked, and it is relayed to the image host as it arrives.
 * Whatever fails on the client's side aborts the relay mid-body, so the image
 * host keeps nothing.
 */
export function uploadHandler(client: ImageHostClient, limiter: SharedRateLimiter) {
  return async (ctx: SiteContext): Promise<void> => {
    const user = requireUser(ctx);
    const req = ctx.req;
    if (declaresMoreThan(req, MAX_FORM_BYTES)) throw payloadTooLarge(`The image is larger than ${MAX_IMAGE_BYTES} bytes`);
    const decision = await limiter.hit(user.id);
    if (!decision.allowed) throw rateLimited(decision, 'Too many uploads; try again in a minute');
    const contentType = req.headers['content-type'];
    if (!isMultipartForm(contentType)) throw noImage();

    let relay: Relay<UploadedImage> | null = null;
    // The user went away before our answer: nothing will read it, so stop the relay.
    const onClose = () => {
      if (!ctx.res.writableFinished) relay?.abort();
    };
    ctx.res.once('close', onClose);
    try {
      for await (const part of parseMultipart(req, contentType, UPLOAD_FORM_LIMITS)) {
        // Any other part is left unread: the parser discards it when we ask for the next.
        if (part.kind !== 'file' || part.name !== IMAGE_FIELD || relay !== null) continue;
        const image = await checkImagePart(part);
        if (image === null) continue;
        relay = client.relayImage(image, ctx.id);
        // Only the next part waits for this: the image streams on meanwhile.
        await relay.contentSent;
      }
      if (relay === null) throw noImage();
      relay.release();
      sendOk(ctx, { data: await relay.answer });
    } catch (error) {
      relay?.abort();
      throw error;
    }
  };
}
