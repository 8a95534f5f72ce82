import { HttpError } from '../../../http/errors.js';

// The documented error texts (docs/api.md, "The image host"), answered as plain text (see imghost/errors.ts).

export const iconNotFound = () => new HttpError(404, 'NOT_FOUND', 'Icon not found', { plain: true });

export const iconProcessingFailed = (cause?: unknown) =>
  new HttpError(500, 'INTERNAL', 'Error processing icon', { plain: true, cause });

export const listUnavailable = () => new HttpError(500, 'INTERNAL', 'Unable to scan directory', { plain: true });

export const invalidQuery = (message: string, field: string) =>
  new HttpError(400, 'BAD_REQUEST', message, { plain: true, field });

export const rendererBusy = () =>
  new HttpError(503, 'UNAVAILABLE', 'Too many icons being rendered, try again shortly', {
    plain: true,
    headers: { 'Retry-After': '1' },
  });
