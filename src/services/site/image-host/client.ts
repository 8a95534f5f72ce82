import { randomBytes } from 'node:crypto';
import { HttpError, validationFailed } from '../../../http/errors.js';
import { checkAnswer } from './answer.js';
import { openConnection, type ImageHostSettings } from './connection.js';
import { transportFailure, upstreamFailed, statusFailure } from './failures.js';
import { uploadedImageFrom, type UploadedImage } from './image-answer.js';
import { callBounds, type ImageHostLimits } from './limits.js';
import { inspectedPackageFrom, storedPackageFrom, type InspectedPackage, type StoredPackage } from './package-answer.js';
import { startRelay, type Relay } from './relay.js';

// The site's one client of the image host (service B), shared by its features:
// images (POST /api/upload), packages (POST /api/packages, DELETE
// /api/packages/:sha256) and the package checks' inspections (POST
// /api/packages/inspect). One connection (connection.ts), one relay of an upload
// body (relay.ts), one check of the answers (answer.ts); each call says here what
// the image host's refusals and failures mean to its caller.

/** Packages go on in writes of at least this many bytes (see RelayBody.writeBytes). */
const PACKAGE_WRITE_BYTES = 256 * 1024;

/** An image part whose first bytes were read to check its type; the rest still streaming. */
export interface ImageBody {
  /** Name and type for the outgoing part: the site's, never the client's text. */
  filename: string;
  mime: string;
  head: Buffer[];
  rest: AsyncIterator<Buffer>;
}

export type Inspection =
  | { kind: 'accepted'; inspected: InspectedPackage }
  /** Not an acceptable package (400), or larger than the image host takes (413): the reason is for people. */
  | { kind: 'refused'; reason: string };

export interface ImageHostClient {
  /** Relays an image as the `image` part of a form; the answer's URLs are absolute. */
  relayImage(image: ImageBody, requestId: string): Relay<UploadedImage>;
  /** Relays a package's bytes, to be kept under the file name `name`; a refusal is the client's 400 or 413 on `file`. */
  relayPackage(part: AsyncIterator<Buffer>, name: string, requestId: string): Relay<StoredPackage>;
  /** Deletes the package with this hash: its URL answers 410 from then on. */
  removePackage(sha256: string, requestId: string): Promise<void>;
  /**
   * Inspects a package kept nowhere. The image host failing to answer is thrown as
   * a 502; failing to reach it, or the body's own source failing, is thrown as it
   * came, so the caller can tell its source's failure from the image host's.
   */
  inspectPackage(body: AsyncIterable<Buffer>, signal: AbortSignal): Promise<Inspection>;
  close(): Promise<void>;
}

export function createImageHostClient(settings: ImageHostSettings, limits: ImageHostLimits): ImageHostClient {
  const connection = openConnection(settings, limits);
  const bounds = callBounds(limits);
  const publicBase = settings.imageHostPublicUrl;

  function relayImage(image: ImageBody, requestId: string): Relay<UploadedImage> {
    const boundary = `----launcher-web-${randomBytes(16).toString('hex')}`;
    const opening = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="${image.filename}"\r\nContent-Type: ${image.mime}\r\n\r\n`,
      'latin1',
    );
    // The closing delimiter only once the whole client form is known good.
    const closing = Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1');
    const part = following(image.head, image.rest);
    return startRelay({ opening, part, closing, writeBytes: 0 }, async (chunks, signal) => {
      const answer = await reached(
        connection.send({ method: 'POST', path: '/api/upload', bounds: bounds.image, requestId, body: { contentType: `multipart/form-data; boundary=${boundary}`, chunks }, signal }),
      );
      const checked = checkAnswer(answer, 200, (json) => uploadedImageFrom(json, publicBase), 'an image upload');
      if (checked.kind === 'accepted') return checked.value;
      // The site checked the image's type before relaying it: a refusal is the image host's view, not the user's fault to fix.
      if (checked.status === 413) throw upstreamFailed('The image host refused the image as too large');
      throw upstreamFailed(`The image host refused the image${checked.said ? `: ${checked.said}` : ''}`);
    });
  }

  function relayPackage(part: AsyncIterator<Buffer>, name: string, requestId: string): Relay<StoredPackage> {
    return startRelay({ part, writeBytes: PACKAGE_WRITE_BYTES }, async (chunks, signal) => {
      const path = `/api/packages?name=${encodeURIComponent(name)}`;
      const answer = await reached(connection.send({ method: 'POST', path, bounds: bounds.package, requestId, body: { contentType: 'application/zip', chunks }, signal }));
      const checked = checkAnswer(answer, 201, (json) => storedPackageFrom(json, publicBase), 'a package upload');
      if (checked.kind === 'accepted') return checked.value;
      if (checked.status === 413) throw new HttpError(413, 'PAYLOAD_TOO_LARGE', 'The package is larger than the image host accepts', { field: 'file' });
      throw validationFailed('file', checked.said ?? 'Not an acceptable package');
    });
  }

  async function removePackage(sha256: string, requestId: string): Promise<void> {
    const { status } = await reached(connection.send({ method: 'DELETE', path: `/api/packages/${sha256}`, bounds: bounds.removal, requestId }));
    // 404: the image host never had it (or lost it): nothing left to serve either way.
    if (status !== 200 && status !== 404) throw upstreamFailed(statusFailure(status));
  }

  async function inspectPackage(body: AsyncIterable<Buffer>, signal: AbortSignal): Promise<Inspection> {
    const answer = await connection.send({ method: 'POST', path: '/api/packages/inspect', bounds: bounds.inspection, body: { contentType: 'application/zip', chunks: body }, signal });
    const checked = checkAnswer(answer, 200, inspectedPackageFrom, 'an inspection');
    if (checked.kind === 'accepted') return { kind: 'accepted', inspected: checked.value };
    return { kind: 'refused', reason: checked.status === 413 ? 'The file is larger than PACKAGE_MAX_BYTES' : (checked.said ?? 'Not an acceptable package') };
  }

  return { relayImage, relayPackage, removePackage, inspectPackage, close: () => connection.close() };
}

/** The call's answer, or the reason the image host could not be reached, as a 502. */
async function reached<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw upstreamFailed(transportFailure(error));
  }
}

/** The bytes already read (`head`), then the rest of the part, through `next()` alone. */
function following(head: Buffer[], rest: AsyncIterator<Buffer>): AsyncIterator<Buffer> {
  let index = 0;
  return { next: () => (index < head.length ? Promise.resolve({ done: false, value: head[index++]! }) : rest.next()) };
}
