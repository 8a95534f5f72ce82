import { badRequest, payloadTooLarge, validationFailed } from '../../../../http/errors.js';
import { runNamed } from '../../../../db/queries.js';
import { declaresMoreThan, isMultipartForm, parseMultipart } from '../../../../http/multipart/index.js';
import { rateLimited } from '../../../../http/rate-limited.js';
import { sendOk } from '../../../../http/answer/index.js';
import type { SharedRateLimiter } from '../../../../db/shared-rate-limiter.js';
import { requireUser } from '../../auth/guards.js';
import type { SiteContext, SiteDeps } from '../../context.js';
import { text, typedText } from '../../text-rules.js';
import { MAX_CHANGELOG, maxUploadBytes, uploadFormLimits } from './limits.js';
import { readManifest } from './manifest/launcher-manifest.js';
import type { ImageHostClient } from '../../image-host/client.js';
import { namedPackage, type StoredPackage } from '../../image-host/package-answer.js';
import type { Relay } from '../../image-host/relay.js';
import { ownVersionRecord, type VersionRow } from './records.js';
import { checkVersionFree, insertVersion, RefusedByChecks, releaseVersion, reserveVersion, type VersionHold } from './version-writes.js';
import { versionField } from './version-number.js';

// POST /apps/api/plugins/:id/versions: multipart with the parts `file` (the ZIP),
// `version` (optional: the manifest's by default) and `changelog`. The file streams
// through to the image host as it arrives (image-host/relay.ts), never held whole;
// the image host inspects it and answers its hash, size, file list, manifest and
// findings; the site reads the manifest as the launcher would (manifest/), checks
// the package, and inserts the version, pending.

const FILE_FIELD = 'file';

const noFile = () => validationFailed(FILE_FIELD, 'Send the ZIP as a multipart/form-data file part named "file"');

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
export function uploadVersionHandler(deps: SiteDeps, client: ImageHostClient, limiter: SharedRateLimiter) {
  const maxBytes = deps.config.packageMaxBytes;
  const limits = uploadFormLimits(maxBytes);
  const maxForm = maxUploadBytes(maxBytes);
  return async (ctx: SiteContext): Promise<void> => {
    const user = requireUser(ctx);
    const req = ctx.req;
    if (declaresMoreThan(req, maxForm)) throw payloadTooLarge(`The package is larger than ${maxBytes} bytes`);
    const decision = await limiter.hit(user.id);
    if (!decision.allowed) throw rateLimited(decision, 'Too many uploads; try again in a minute');
    const contentType = req.headers['content-type'];
    if (!isMultipartForm(contentType)) throw noFile();
    const pluginId = await checkVersionFree(deps.sql, ctx.params.id!, user, null);

    let relay: Relay<StoredPackage> | null = null;
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
            changelog = text('changelog', typedText(part.value), 0, MAX_CHANGELOG);
          }
          continue;
        }
        // Any other file part is left unread: the parser discards it when we ask for the next.
        if (part.name !== FILE_FIELD || relay !== null) continue;
        if (part.filename === '') continue; // an empty file input: no file chosen
        const rest = part.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
        relay = client.relayPackage(rest, version === null ? pluginId : `${pluginId}-${version}`, ctx.id);
        // Only the next part waits for this: the file streams on meanwhile.
        await relay.contentSent;
      }
      if (relay === null) throw noFile();
      // The last word before the image host keeps the file: the number (a `version`
      // field after the file part was not checked yet; one before it may have been
      // taken since) and the caller's right to the plugin. The number is then held
      // for this upload (sql/007) until its insert: an upload racing for it is refused
      // here, before its file is kept. A refusal aborts the unfinished upload, so
      // nothing is stored for a version that is refused. Without a `version` field
      // the number is the manifest's, known only from the image host's answer: it is
      // held then, and what the manifest refuses is refused after the file was kept.
      let hold: VersionHold | null = version === null ? null : await reserveVersion(deps.sql, pluginId, user, version);
      let stored: StoredPackage | null = null;
      let row: VersionRow;
      try {
        relay.release();
        const answer = await relay.answer;
        stored = answer;
        const read = readManifest(answer.report, pluginId);
        if (version !== null && version !== read.manifest.version) {
          throw validationFailed('version', `version ${JSON.stringify(version)} is not the package's: its manifest says ${JSON.stringify(read.manifest.version)} (leave version out to use it)`);
        }
        const number = read.manifest.version;
        hold ??= await reserveVersion(deps.sql, pluginId, user, number);
        stored = namedPackage(answer, `${pluginId}-${number}`);
        row = await insertVersion(deps.sql, pluginId, user, { version: number, changelog: changelog ?? '' }, stored, read);
      } catch (error) {
        if (stored !== null) {
          ctx.log.info('version refused after its file was stored: the package may be unreferenced', { plugin: pluginId, version, sha256: stored.sha256, err: error });
          if (error instanceof RefusedByChecks) await forgetRefusedFile(deps, client, stored.sha256, ctx);
        }
        // Not inserted: the number is free again before the answer goes out (a retry
        // may follow at once), not only when its hold ends.
        if (hold !== null) {
          const held = hold;
          await releaseVersion(deps.sql, held).catch((releaseError: unknown) =>
            ctx.log.warn('version hold not released; it ends by itself', { plugin: pluginId, version: held.version, err: releaseError }),
          );
        }
        throw error;
      }
      sendOk(ctx, { version: ownVersionRecord(row) }, 201);
    } catch (error) {
      relay?.abort();
      throw error;
    }
  };
}

/**
 * A package refused by a block check (a secret, a file of a package removed as
 * malware) is deleted from the image host, unless a version already has the same
 * bytes: it is not left where its URL would serve it. Its bytes are then refused
 * by the image host if sent again, as they would be here.
 */
export async function forgetRefusedFile(deps: SiteDeps, client: ImageHostClient, sha256: string, ctx: SiteContext): Promise<void> {
  try {
    const [row] = await runNamed(deps.sql, 'store/versions/bytes-in-use', { sha256 });
    // exists() answers one row; without it, nothing is known unused and the file stays.
    if (row !== undefined && !row.used) await client.removePackage(sha256, ctx.id);
  } catch (error) {
    ctx.log.warn('a refused package was not deleted from the image host', { sha256, err: error });
  }
}
