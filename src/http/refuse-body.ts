import type { Context, Middleware } from './context.js';

/** How long a client may keep sending a body we already refused. */
export const DISCARD_GRACE_MS = 2000;

/**
 * We answer (413, 400...) before the client has finished sending its body. Closing
 * the connection at once makes a client that is still writing see EPIPE/ECONNRESET
 * and often lose our answer unread. So the rest is read and thrown away (nothing
 * is buffered), and the socket is cut only if the client is still sending after a
 * short grace period, which bounds what a hostile client can make us read.
 */
export function refuseRestOfBody(ctx: Context<any>): void {
  const { req } = ctx;
  // Not `req.complete`: that says every byte has arrived, not that it was read. A
  // parser that stopped at the end of its form leaves the rest buffered and the
  // request paused, and a paused request holds up the next one on the connection.
  if (req.readableEnded) return;
  const socket = req.socket;
  req.resume();
  const cutOff = setTimeout(() => socket?.destroy(), DISCARD_GRACE_MS);
  cutOff.unref();
  req.once('end', () => clearTimeout(cutOff));
  req.once('close', () => clearTimeout(cutOff));
}

/**
 * Put first in an upload route's `use`: whatever refuses the request before its
 * body has been read (no login, too many uploads, not an image, 413...) lets the
 * client finish sending for the grace period above, so it reads our answer
 * instead of a reset connection, and then cuts it off.
 */
export const refuseBodyOnError: Middleware<any> = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    refuseRestOfBody(ctx);
    throw error;
  }
};
