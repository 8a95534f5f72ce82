import { HttpError, payloadTooLarge, validationFailed } from '../../../../http/errors.js';
import { jsonBody } from '../../../../http/json-body.js';
import { declaresMoreThan, isMultipartForm, maxFormBytes, parseMultipart, type MultipartLimits } from '../../../../http/multipart/index.js';
import { rateLimited } from '../../../../http/rate-limited.js';
import { sendOk } from '../../../../http/answer/index.js';
import { inTransaction } from '../../../../db/queries.js';
import type { SharedRateLimiter } from '../../../../db/shared-rate-limiter.js';
import { requireUser } from '../../auth/guards.js';
import type { SiteContext, SiteDeps } from '../../context.js';
import { imageLinkRule, type ImageLinkRule } from '../image-links.js';
import { findPluginRecord } from '../plugin-reads.js';
import { insertPlugin } from '../plugin-writes.js';
import { pluginRecord } from '../records.js';
import { text, typedText } from '../../text-rules.js';
import { validateEdit, type PluginFields } from '../validation.js';
import { PLUGIN_ID } from '../visibility.js';
import { createHandler } from '../write-routes.js';
import { MAX_CHANGELOG } from './limits.js';
import { readManifest, type ReadManifest } from './manifest/launcher-manifest.js';
import type { ImageHostClient } from '../../image-host/client.js';
import { namedPackage, type StoredPackage } from '../../image-host/package-answer.js';
import type { Relay } from '../../image-host/relay.js';
import { ownVersionRecord, type VersionRow } from './records.js';
import { forgetRefusedFile } from './upload-route.js';
import { insertVersionIn, RefusedByChecks } from './version-writes.js';

// POST /apps/api/plugins (issue 31): a JSON body as SPEC says (store/write-routes.ts),
// or multipart/form-data with a `file` part, the plugin's ZIP, and no outside link:
// the package's manifest gives the id, name, version, author, description and
// permissions, the hosted file is the download, and the first version is created
// pending with it, in the plugin's own transaction. The form may set what the
// store shows beside the package: name, description, longDescription, url, icon,
// screenshots (repeated parts: a link, or {url, webpUrl} as JSON) and tags
// (repeated parts, or one split on commas), and the version's changelog.

const KiB = 1024;

/** The fields a form may set, each once, and the lists it may repeat. */
const ONCE = ['name', 'description', 'longDescription', 'url', 'icon', 'changelog', 'id', 'version'] as const;
const LISTS = ['tags', 'screenshots'] as const;
/** What only the package says: a form part naming one is refused, not ignored. */
const FROM_PACKAGE = ['author', 'permissions', 'download', 'sha256'];

/**
 * One ZIP and the fields above: a long description of 20,000 characters (4 bytes
 * each at most in UTF-8) is the largest; 20 tags and 8 screenshots.
 */
export function createFormLimits(packageMaxBytes: number): MultipartLimits {
  return { fileBytes: packageMaxBytes, files: 2, fields: 40, fieldBytes: 80 * KiB, headerBytes: 4 * KiB, parts: 44 };
}

/** The route's handler: multipart to createFromZip, anything else to the JSON reader and SPEC's create. */
export function createPluginHandler(deps: SiteDeps, client: ImageHostClient, limiter: SharedRateLimiter) {
  const fromZip = createFromZipHandler(deps, client, limiter);
  const readJson = jsonBody();
  const fromJson = createHandler(deps);
  return async (ctx: SiteContext): Promise<void> => {
    if (isMultipartForm(ctx.req.headers['content-type'])) return fromZip(ctx);
    await readJson(ctx, () => fromJson(ctx));
  };
}

type Form = Partial<Record<(typeof ONCE)[number], string>> & { tags: string[]; screenshots: unknown[] };

/**
 * In order: the user (the guard), the declared size, the user's upload rate, then
 * the form: its fields are checked as they arrive and once it is complete, before
 * the file's last byte is handed on, so a refused field leaves nothing on the
 * image host. Then the manifest the image host found is read as the launcher reads
 * it (every refusal 400 VALIDATION_FAILED, field "file", or "version" for a
 * `version` part that is not the package's), and the plugin and its first version
 * are inserted in one transaction (409 CONFLICT, field "id", for a taken id): never
 * one without the other. A package refused by a block check is deleted from the
 * image host, as a version upload's is; one refused otherwise after the image host
 * kept it (a taken id, a manifest the store refuses) is logged with its hash.
 */
function createFromZipHandler(deps: SiteDeps, client: ImageHostClient, limiter: SharedRateLimiter) {
  const maxBytes = deps.config.packageMaxBytes;
  const limits = createFormLimits(maxBytes);
  const maxForm = maxFormBytes({ ...limits, files: 1 });
  const images = imageLinkRule(deps.config);
  return async (ctx: SiteContext): Promise<void> => {
    const user = requireUser(ctx);
    const req = ctx.req;
    if (declaresMoreThan(req, maxForm)) throw payloadTooLarge(`The form is larger than ${maxForm} bytes (the package may have ${maxBytes})`);
    const decision = await limiter.hit(user.id);
    if (!decision.allowed) throw rateLimited(decision, 'Too many uploads; try again in a minute');

    let relay: Relay<StoredPackage> | null = null;
    const form: Form = { tags: [], screenshots: [] };
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) relay?.abort();
    });
    try {
      for await (const part of parseMultipart(req, req.headers['content-type'], limits)) {
        if (part.kind === 'field') {
          readField(form, part.name, part.value);
          continue;
        }
        // Any other file part is left unread: the parser discards it when we ask for the next.
        if (part.name !== 'file' || relay !== null || part.filename === '') continue;
        // Named once the manifest gives the id (namedPackage, below).
        relay = client.relayPackage(part.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>, 'plugin', ctx.id);
        // Only the next part waits for this: the file streams on meanwhile.
        await relay.contentSent;
      }
      if (relay === null) throw validationFailed('file', 'Send the plugin\'s ZIP as a multipart/form-data file part named "file"');
      const shown = checkForm(form, user.admin, images);
      const changelog = form.changelog === undefined ? '' : text('changelog', form.changelog, 0, MAX_CHANGELOG);

      relay.release();
      const answer = await relay.answer;
      let stored: StoredPackage = answer;
      try {
        const read = readManifest(answer.report, claimedId(answer));
        const plugin = pluginOf(read, form, shown, answer.report.manifest!.path, images);
        stored = namedPackage(answer, `${plugin.id}-${plugin.version}`);
        const row = await inTransaction(deps.sql, async (t): Promise<VersionRow> => {
          if (!(await insertPlugin(t, user, { ...plugin, download: stored.download, sha256: stored.sha256, featured: false }))) {
            throw new HttpError(409, 'CONFLICT', 'A plugin with this id already exists', { field: 'id' });
          }
          return insertVersionIn(t, plugin.id, user, { version: plugin.version, changelog }, stored, read);
        });
        const record = await findPluginRecord(deps.sql, plugin.id);
        sendOk(ctx, { plugin: record && pluginRecord(record, ctx.locals.user), version: ownVersionRecord(row) }, 201);
      } catch (error) {
        ctx.log.info('new plugin refused after its package was stored: the package may be unreferenced', { sha256: stored.sha256, err: error });
        if (error instanceof RefusedByChecks) await forgetRefusedFile(deps, client, stored.sha256, ctx);
        throw error;
      }
    } catch (error) {
      relay?.abort();
      throw error;
    }
  };
}

function readField(form: Form, name: string, value: string): void {
  if (FROM_PACKAGE.includes(name)) throw validationFailed(name, `${name} comes from the package's manifest (plugin.json), not from the form`);
  if ((LISTS as readonly string[]).includes(name)) {
    const list = name as (typeof LISTS)[number];
    if (list === 'tags') form.tags.push(value);
    else form.screenshots.push(screenshotPart(value));
    return;
  }
  const once = (ONCE as readonly string[]).includes(name) ? (name as (typeof ONCE)[number]) : null;
  if (once === null) return; // unknown fields are ignored, as in a JSON body
  if (form[once] !== undefined) throw validationFailed(once, `Send one ${once} field`);
  form[once] = typedText(value);
}

/** A screenshot part: a link, or {url, webpUrl} as JSON (what the image upload answers). */
function screenshotPart(value: string): unknown {
  if (!value.trimStart().startsWith('{')) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw validationFailed('screenshots', 'a screenshot part is a link, or {"url", "webpUrl"} as JSON');
  }
}

/** The form's own fields, checked as a JSON body's are (each broken rule names its field). */
function checkForm(form: Form, isAdmin: boolean, images: ImageLinkRule): Partial<PluginFields> {
  const body: Record<string, unknown> = {};
  for (const field of ['name', 'description', 'longDescription', 'url', 'icon'] as const) if (form[field] !== undefined) body[field] = form[field];
  // One tags part may list several, split on commas as a JSON string is.
  if (form.tags.length > 0) body.tags = form.tags.length === 1 ? form.tags[0] : form.tags;
  if (form.screenshots.length > 0) body.screenshots = form.screenshots;
  // An empty name or description in the form leaves the manifest's.
  for (const field of ['name', 'description'] as const) if (typeof body[field] === 'string' && (body[field] as string).trim() === '') delete body[field];
  return validateEdit(body, isAdmin, images).fields;
}

/** The id the manifest claims, for readManifest to check as the launcher reads it ('' when it has none). */
function claimedId(stored: StoredPackage): string {
  const id = stored.report.manifest?.json.id;
  return typeof id === 'string' ? id.trim() : '';
}

/**
 * The new plugin's fields: the manifest's, but for what the form set. What the
 * store cannot hold of the manifest's is refused as the package's (field "file"),
 * and a `version` or `id` part that is not the package's as a version upload's is.
 */
function pluginOf(read: ReadManifest, form: Form, shown: Partial<PluginFields>, path: string, images: ImageLinkRule): { id: string } & Omit<PluginFields, 'download' | 'sha256'> {
  const { manifest } = read;
  if (form.version !== undefined && form.version.trim() !== manifest.version) {
    throw validationFailed('version', `version ${JSON.stringify(form.version)} is not the package's: its manifest says ${JSON.stringify(manifest.version)} (leave version out to use it)`);
  }
  if (form.id !== undefined && form.id.trim() !== manifest.id) {
    throw validationFailed('file', `${path} names the plugin ${JSON.stringify(manifest.id)}, not ${JSON.stringify(form.id.trim())}`);
  }
  if (!PLUGIN_ID.test(manifest.id)) throw validationFailed('file', `${path}'s "id" ${JSON.stringify(manifest.id)} is not 3 to 128 letters, digits, dots, underscores or hyphens, which the store requires`);
  const given: Record<string, unknown> = { version: manifest.version, author: manifest.author, permissions: manifest.permissions };
  if (shown.name === undefined) given.name = manifest.name;
  if (shown.description === undefined) given.description = manifest.description;
  let fields: Partial<PluginFields>;
  try {
    fields = validateEdit(given, false, images).fields;
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    throw validationFailed('file', `${path}: ${error.message}${error.field === 'name' || error.field === 'description' ? ` (the form's ${error.field} may replace it)` : ''}`);
  }
  return {
    id: manifest.id,
    name: shown.name ?? fields.name!,
    version: fields.version!,
    author: fields.author ?? '',
    description: shown.description ?? fields.description ?? '',
    longDescription: shown.longDescription ?? '',
    url: shown.url ?? null,
    icon: shown.icon ?? null,
    tags: shown.tags ?? [],
    permissions: fields.permissions ?? [],
    screenshots: shown.screenshots ?? [],
  };
}
