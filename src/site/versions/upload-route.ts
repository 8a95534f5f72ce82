import { badRequest, payloadTooLarge, validationFailed } from '../../http/errors.js';
import { parseMultipart } from '../../http/multipart/index.js';
import { rateLimited } from '../../http/rate-limited.js';
import { sendOk } from '../../http/respond.js';
import type { SharedRateLimiter } from '../../db/shared-rate-limiter.js';
import { requireUser } from '../auth/guards.js';
import type { SiteContext, SiteDeps } from '../context.js';
import { text } from '../store/text-rules.js';
import { MAX_CHANGELOG, maxUploadBytes, uploadFormLimits } from './limits.js';
import { namedPackage, type PackageClient, type PackageRelay } from './package-client.js';
import { versionRecord, type VersionRow } from './records.js';
import { checkVersionFree, insertVersion, releaseVersion, reserveVersion } from './version-writes.js';
import { versionField } from './version-number.js';

// POST /apps/api/plugins/:id/versions: multipart with the parts `file` (the ZIP),
// `version` and `changelog`. The file streams through to the image host as it
// arrives (package-client.ts), never held whole; the image host inspects it and
// answers its hash, size and file list; the version is then inserted, pending.

const FILE_FIELD = 'file';

const noFile = () => validationFailed(FILE_FIELD, 'Send the ZIP as a multipart/form-data file part named "file"');

function isMultipartForm(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';')[0]!.trim().toLowerCase() === 'multipart/form-data';
}

/**
 * In order: the user (the guard), the declared size, the user's upload rate, the
 * plugin (404 hidden, 403 not theirs), then the form. A `version` field that comes
 * before the file is checked (409 when the number was ever used) before a byte of
 * the file is relayed; whatever the order, the number and the plugin are checked
 * again once the form is complete, and held for this upload (reserveVersion),
 * before the relay's body ends; the insert decides a last time, atomically.
 * Whatever fails before that aborts the relay mid-body, so the image host keeps
 * nothing for a refused version, and of uploads racing for one number only the one
 * that holds it sends its file whole. Left: an insert refused after the image host
 * stored the file (the plugin deleted in the moment between, the database gone)
 * leaves it unreferenced; it is logged with its hash.
 */
export function uploadVersionHandler(deps: SiteDeps, client: PackageClient, limiter: SharedRateLimiter) {
  const maxBytes = deps.config.packageMaxBytes;
  const limits = uploadFormLimits(maxBytes);
  const maxForm = maxUploadBytes(maxBytes);
  return async (ctx: SiteContext): Promise<void> => {
    const user = requireUser(ctx);
    const req = ctx.req;
    const declared = req.headers['content-length'];
    // Content-Length is trusted only without Transfer-Encoding (RFC 9112 6.3).
    if (declared !== undefined && req.headers['transfer-encoding'] === undefined && Number(declared) > maxForm) {
      throw payloadTooLarge(`The package is larger than ${maxBytes} bytes`);
    }
    const decision = await limiter.hit(user.id);
    if (!decision.allowed) throw rateLimited(decision, 'Too many uploads; try again in a minute');
    const contentType = req.headers['content-type'];
    if (!isMultipartForm(contentType)) throw noFile();
    const pluginId = await checkVersionFree(deps.sql, ctx.params.id!, user, null);

    let relay: PackageRelay | null = null;
    let version: string | null = null;
    let changelog: string | null = null;
    const onClose = () => {
      if (!ctx.res.writableFinished) relay?.abort();
    };
    ctx.res.once('close', onClose);
    try {
      for await (const part of parseMultipart(req, contentType, limits)) {
        if (part.kind === 'field') {
          if (part.name === 'version') {
            if (version !== null) throw badRequest('Send one version field', 'version');
            version = versionField(part.value);
            // Before the file: refused before a byte is relayed. After it: checked below, before release.
            if (relay === null) await checkVersionFree(deps.sql, pluginId, user, version);
          } else if (part.name === 'changelog') {
            if (changelog !== null) throw badRequest('Send one changelog field', 'changelog');
            changelog = text('changelog', part.value, 0, MAX_CHANGELOG);
          }
          continue;
        }
        // Any other file part is left unread: the parser discards it when we ask for the next.
        if (part.name !== FILE_FIELD || relay !== null) continue;
        if (part.filename === '') continue; // an empty file input: no file chosen
        const rest = part.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
        relay = client.relay(rest, version === null ? pluginId : `${pluginId}-${version}`, ctx.id);
        // Only the next part waits for this: the file streams on meanwhile.
        await relay.contentSent;
      }
      if (version === null) throw validationFailed('version', 'version is required');
      if (relay === null) throw noFile();
      // The last word before the image host keeps the file: the number (a `version`
      // field after the file part was not checked yet; one before it may have been
      // taken since) and the caller's right to the plugin. The number is then held
      // for this upload (sql/007) until its insert: an upload racing for it is refused
      // here, before its file is kept. A refusal aborts the unfinished upload, so
      // nothing is stored for a version that is refused.
      const hold = await reserveVersion(deps.sql, pluginId, user, version);
      let row: VersionRow;
      try {
        relay.release();
        const stored = namedPackage(await relay.answer, `${pluginId}-${version}`);
        row = await insertVersion(deps.sql, pluginId, user, { version, changelog: changelog ?? '' }, stored).catch((error: unknown) => {
          ctx.log.warn('version refused after its file was stored: the package may be unreferenced', { plugin: pluginId, version, sha256: stored.sha256, err: error });
          throw error;
        });
      } catch (error) {
        // Not inserted: the number is free again before the answer goes out (a retry
        // may follow at once), not only when its hold ends.
        await releaseVersion(deps.sql, hold).catch((releaseError: unknown) =>
          ctx.log.warn('version hold not released; it ends by itself', { plugin: pluginId, version: hold.version, err: releaseError }),
        );
        throw error;
      }
      sendOk(ctx, { version: versionRecord(row) }, 201);
    } catch (error) {
      relay?.abort();
      throw error;
    }
  };
}
