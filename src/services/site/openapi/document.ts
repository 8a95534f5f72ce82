import { probe, isoDate, json, jsonBody, media, nullable, openApiDocument, pathParam, queryParam, ref, type Schema } from '../../../http/openapi-parts.js';
import { DELIVERY_FAILURE_REASONS } from '../webhooks/failure-reasons.js';

// The OpenAPI 3.1 description of the site (service A), served at /openapi.json.
// Every route of the route table (src/services/site/app.ts) is here; test/openapi walks the
// table against `paths` both ways and checks real answers against these schemas.
// An operation whose OpenAPI path is not the router pattern with `{x}` for `:x`
// names its route with `x-route`.
// Each operation has a camelCase `operationId` (generated clients' method names),
// one tag (its feature) and its `security` (`[]` when anyone may call); both
// documents pass Redocly's recommended rules (test/openapi/lint.test.ts).

/** The site's failure envelope, with `code` limited to `codes`. */
function failure(description: string, ...codes: string[]): Schema {
  return json(description, { allOf: [ref('Error'), { type: 'object', properties: { code: { enum: codes } } }] });
}

/** The site's success envelope: `fields` beside `success: true`. */
function success(properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema {
  return { type: 'object', required: ['success', ...required], properties: { success: { const: true }, ...properties } };
}

const retryAfter = { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } };
/** Any route, before routing: a request target over 8 KiB. */
const targetTooLong = failure('Request target over 8 KiB', 'BAD_REQUEST');
const common = {
  '414': targetTooLong,
  '500': failure('Database or configuration failure', 'INTERNAL'),
  '503': json('A dependency did not answer in time', { allOf: [ref('Error'), { type: 'object', properties: { code: { enum: ['UNAVAILABLE'] } } }] }, retryAfter),
};
const badRequest = failure('Malformed JSON, query or path', 'BAD_REQUEST');
const invalid = failure('Malformed request, or a field breaks its rule (`field` names it)', 'BAD_REQUEST', 'VALIDATION_FAILED');
const unauthorized = failure('Not logged in, or a bad, revoked or expired API token', 'UNAUTHORIZED');
const forbidden = failure('Not allowed (an API token on a session-only route, a token without the scope, or not an administrator)', 'FORBIDDEN');
const notFound = failure('No such record, or one the caller may not see', 'NOT_FOUND');
const rateLimited = json('Too many requests', { allOf: [ref('Error'), { type: 'object', properties: { code: { enum: ['RATE_LIMITED'] } } }] }, retryAfter);
const tooLarge = failure('Body too large', 'PAYLOAD_TOO_LARGE');
const notJson = failure('Content-Type is not application/json', 'UNSUPPORTED_MEDIA_TYPE');
const noProvider = failure('Login through an identity provider is not configured', 'NOT_FOUND');
// Who may call (`security`): `[]` is anyone; `{}` among the choices makes the
// session optional (it changes what the caller sees). A route whose guard is
// adminRequired is sessionOnly, and says "administrators" in its summary.
const sessionOnly = [{ sessionCookie: [] }];
const optionalSession = [{}, { sessionCookie: [] }];
const sessionOrToken = (scope: string) => [{ sessionCookie: [] }, { apiToken: [scope] }];
const metricsOnly = [{ metricsToken: [] }];
const jsonWrite = { '400': invalid, '413': tooLarge, '415': notJson };
/** A route behind a login (and a scope or the administrator role): who may not call it. */
const denied = { '401': unauthorized, '403': forbidden };
/** A read behind a login with nothing else to fail on: the answers besides its 200. */
const guardedRead = { '400': badRequest, ...denied, ...common };

const VERSION_PARAM = pathParam('version', 'A version number of the plugin (URL-encoded)');
const pluginId = pathParam('id', 'Plugin id (3-128 letters, digits, `.`, `_`, `-`)');
/** A daily install series, oldest first, today included. */
const installDays: Schema = { type: 'array', items: { type: 'object', required: ['date', 'installs'], properties: { date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }, installs: { type: 'integer', minimum: 0 } } } };
const page = [queryParam('limit', 'Page size', { type: 'integer' }), queryParam('offset', 'Rows to skip', { type: 'integer', minimum: 0 })];
const html = media('HTML page', 'text/html');

/** A webhook as the API shows it; the secret only where an answer may carry it. */
function webhookSchema(withSecret: boolean): Schema {
  return {
    type: 'object',
    required: ['url', 'createdAt', 'updatedAt'],
    properties: {
      url: { type: 'string' },
      ...(withSecret ? { secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9_-]{43}$' } } : {}),
      createdAt: isoDate,
      updatedAt: isoDate,
    },
    additionalProperties: false,
  };
}

const pluginFields: Schema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string', minLength: 1, maxLength: 100 },
    version: { type: 'string', minLength: 1, maxLength: 64 },
    author: { type: 'string', maxLength: 100 },
    description: { type: 'string', maxLength: 500 },
    longDescription: { type: 'string', maxLength: 20000 },
    download: {
      type: 'string',
      description:
        'An https: URL without user or password whose path ends in .zip (any case); with DOWNLOAD_HOSTS set, on one of those hosts or a subdomain of one; ' +
        "a package on the image host (IMAGE_HOST_PUBLIC_URL's host, under its /pkg/) only when it already is the plugin's download or the file of one of its pending or approved versions " +
        '(a package comes by uploading a version, which the store checks). Else 400 VALIDATION_FAILED, field download',
    },
    sha256: nullable({ type: 'string', pattern: '^[0-9a-fA-F]{64}$' }),
    url: nullable({ type: 'string' }),
    icon: nullable({ type: 'string', description: 'https: link to another host, or an in-site path: one leading / (not // or /\\), not /apps or under /apps/' }),
    tags: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 32 } },
    permissions: { type: 'array', maxItems: 32, items: { type: 'string', maxLength: 64 } },
    screenshots: { type: 'array', maxItems: 8, description: 'each a link (as icon) or {url, webpUrl?} of such links' },
    featured: { type: 'boolean', description: 'administrators only (403 otherwise)' },
  },
};

export const SITE_OPENAPI = {
  openapi: '3.1.0',
  info: {
    title: 'Launcher site',
    version: '1.0.0',
    description:
      'Launcher info, plugin store, login, ratings, media upload and personal API tokens. Any route may also answer ' +
      '405 METHOD_NOT_ALLOWED (with Allow) to another method, 400 BAD_REQUEST to a malformed target, and 414 to an over-long one. ' +
      'The reference in prose is docs/api.md in the repository.',
    license: { name: 'MIT', identifier: 'MIT' },
  },
  servers: [{ url: '/' }],
  tags: [
    { name: 'service', description: 'Probes, metrics and this document' },
    { name: 'launcher', description: 'What the launcher reads at start' },
    { name: 'auth', description: 'Login, sessions, local accounts' },
    { name: 'plugins', description: 'The plugin store: submit, edit, review, list, install' },
    { name: 'ratings', description: 'Ratings and replies' },
    { name: 'stats', description: 'Install statistics' },
    { name: 'reports', description: 'Reports and their resolution (moderation)' },
    { name: 'notifications', description: "The caller's notifications" },
    { name: 'webhooks', description: "The caller's webhook and its deliveries" },
    { name: 'audit', description: "Administrators' actions" },
    { name: 'media', description: 'Image upload through the image host' },
    { name: 'versions', description: "Plugin versions whose ZIPs the image host keeps, and the launchers' update check" },
    { name: 'tokens', description: 'Personal API tokens' },
    { name: 'pages', description: 'Web pages and their files' },
  ],
  components: {
    securitySchemes: {
      sessionCookie: { type: 'apiKey', in: 'cookie', name: 'sid', description: '`__Host-sid` when PUBLIC_URL is https' },
      apiToken: { type: 'http', scheme: 'bearer', description: 'Personal API token (`lwt_...`); its scopes are the roles listed per operation' },
      metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN' },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['success', 'error', 'code'],
        properties: { success: { const: false }, error: { type: 'string' }, code: { type: 'string' }, field: { type: 'string' } },
      },
      Ok: success({}),
      User: {
        type: 'object',
        required: ['username', 'avatar', 'admin'],
        properties: { username: { type: 'string' }, avatar: { type: 'string' }, admin: { type: 'boolean' } },
      },
      Plugin: {
        type: 'object',
        required: ['id', 'name', 'version', 'author', 'description', 'download', 'sha256', 'url', 'icon', 'permissions', 'size', 'min_launcher', 'tags', 'screenshots', 'status', 'installCount', 'ratingAvg', 'ratingCount', 'featured', 'submitter', 'createdAt', 'updatedAt'],
        properties: {
          ...(pluginFields.properties as Record<string, Schema>),
          size: nullable({ type: 'integer', minimum: 1, description: 'Bytes of the live package when it is hosted; null for an outside link (the Bloret launcher\'s store page reads it)' }),
          min_launcher: nullable({ type: 'string', description: 'The live hosted version\'s manifest min_launcher_version; null without one (the Bloret launcher\'s store page reads it)' }),
          status: { enum: ['pending', 'approved', 'rejected'] },
          installCount: { type: 'integer', minimum: 0 },
          ratingAvg: { type: 'number', minimum: 0, maximum: 5 },
          ratingCount: { type: 'integer', minimum: 0 },
          featured: { type: 'boolean' },
          entryKind: nullable({
            type: 'string',
            pattern: '^(none|python(\\+process)?(\\+qml)?|process(\\+qml)?|qml)$',
            description: 'Details only: what the live hosted package runs (python: code inside the launcher\'s process; process: a program; qml: a page in the launcher; several joined by +; none: declarations only); null for an outside link or a version uploaded before manifests were read',
          }),
          longDescriptionTree: {
            type: 'array',
            description: 'Details only: longDescription read as Markdown, as JSON elements [tag, {attributes}, ...children] (children are strings or elements); only safe tags, https: links and images',
            items: { $ref: '#/components/schemas/MarkdownNode' },
          },
          submitter: { type: 'string' },
          createdAt: isoDate,
          updatedAt: isoDate,
          pendingUpdate: nullable({ type: 'object', required: ['submittedAt'], properties: {
            submittedAt: isoDate,
            longDescriptionTree: {
              type: 'array',
              description: 'With a proposed longDescription only: it read as Markdown, as the record\'s longDescriptionTree',
              items: { $ref: '#/components/schemas/MarkdownNode' },
            },
            package: nullable({ description: 'Details for its author and administrators: the hosted version the update proposes, with files and `diff` ({added, removed, changed}) against the live version\'s files (null when the live version is not hosted), and `diffCounts` (the three counts); in a list (include=review) without files and diff', type: 'object' }),
          } }),
          package: nullable({ description: 'Details for its author and administrators: the hosted version the plugin carries, with its files (not in a list: include=review)', type: 'object' }),
          warnings: {
            type: 'array',
            description: 'Details and include=review lists, for its author and administrators: each outside link (the live download, or `pendingUpdate.download`) on a host not on the Bloret launcher\'s default trusted list, which launchers with default settings refuse along with the whole store list',
            items: {
              type: 'object',
              required: ['code', 'field', 'host', 'message'],
              properties: { code: { const: 'untrusted-download-host' }, field: { enum: ['download', 'pendingUpdate.download'] }, host: { type: 'string' }, message: { type: 'string' } },
            },
          },
          packageCheck: {
            type: 'object',
            required: ['status', 'checkedAt'],
            description:
              'Plugins whose download (or pendingUpdate.download) is an outside link, not a hosted version: the store\'s check of the file behind it. All of it for its author and administrators (details, and the answers of create, edit and review); ' +
              'for anyone else only {status: "changed", checkedAt}, when the bytes no longer match what was reviewed. ' +
              'pending: not checked yet; ok: an acceptable package whose SHA-256 matches the record\'s (or it gives none); unreachable: DNS, TLS, connection, a 4xx/5xx or the 60 s limit; ' +
              'refused: not a ZIP, fails inspection or the manifest rules, over PACKAGE_MAX_BYTES, or a private address; mismatch: the author\'s sha256 is not the file\'s; changed: an approved link whose bytes differ from the pinned sha256',
            properties: {
              status: { enum: ['pending', 'ok', 'unreachable', 'refused', 'mismatch', 'changed'] },
              sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'The SHA-256 of the file fetched' },
              size: { type: 'integer', minimum: 0 },
              entryCount: { type: 'integer', minimum: 0 },
              manifest: { type: 'object', description: 'The package\'s plugin.json as found' },
              checks: { type: 'array', items: { type: 'object', required: ['code', 'level', 'message'], properties: { code: { type: 'string' }, level: { enum: ['warn', 'block'] }, message: { type: 'string' }, file: { type: 'string' } } } },
              reason: { type: 'string', description: 'Why it is not ok, for people' },
              checkedAt: nullable(isoDate),
            },
          },
          review: nullable({ type: 'object', required: ['action', 'reason', 'at'], properties: { action: { enum: ['approve', 'reject'] }, reason: nullable({ type: 'string' }), at: isoDate } }),
          revision: {
            type: 'string',
            maxLength: 64,
            description: 'For its author and administrators: opaque, changes with every change to the plugin or its pending update (not with install or rating counts); a review may name it',
          },
        },
      },
      PluginFields: pluginFields,
      MarkdownNode: {
        description: 'A string, or an element: [tag, {attributes}, ...children]',
        anyOf: [{ type: 'string' }, { type: 'array', minItems: 2 }],
      },

      Reply: {
        type: 'object',
        required: ['id', 'user', 'avatar', 'body', 'createdAt'],
        properties: { id: { type: 'integer' }, user: { type: 'string' }, avatar: { type: 'string' }, body: { type: 'string' }, createdAt: isoDate },
      },
      Rating: {
        type: 'object',
        required: ['user', 'avatar', 'stars', 'comment', 'createdAt', 'updatedAt', 'replies'],
        properties: {
          user: { type: 'string' },
          avatar: { type: 'string' },
          stars: { type: 'integer', minimum: 1, maximum: 5 },
          comment: { type: 'string' },
          createdAt: isoDate,
          updatedAt: isoDate,
          replies: { type: 'array', items: ref('Reply') },
          hidden: { type: 'boolean', description: "On the caller's own rating only (myRating, PUT's rating): true while an administrator keeps it hidden from everyone else" },
        },
      },
      RatingStats: {
        type: 'object',
        required: ['avg', 'count', 'distribution'],
        properties: { avg: { type: 'number' }, count: { type: 'integer' }, distribution: { type: 'object' } },
      },
      Token: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'scopes', 'prefix', 'createdAt', 'expiresAt', 'lastUsedAt'],
        properties: {
          id: { type: 'string', pattern: '^[1-9][0-9]*$' },
          name: { type: 'string', minLength: 1, maxLength: 100 },
          scopes: { type: 'array', minItems: 1, items: { enum: ['plugins:write', 'media:upload'] } },
          prefix: { type: 'string', pattern: '^lwt_' },
          createdAt: isoDate,
          expiresAt: isoDate,
          lastUsedAt: nullable(isoDate),
        },
      },
      Report: {
        type: 'object',
        required: ['id', 'target', 'reason', 'note', 'status', 'createdAt'],
        properties: {
          id: { type: 'integer' },
          target: { type: 'object', required: ['type', 'plugin'], properties: { type: { enum: ['plugin', 'rating'] }, plugin: { type: 'string' }, user: { type: 'string' } } },
          reason: { enum: ['malware', 'broken', 'spam', 'abuse', 'copyright', 'other'] },
          note: { type: 'string' },
          status: { enum: ['open', 'resolved'] },
          reporter: { type: 'string' },
          resolution: nullable({ enum: ['dismiss', 'hide-rating', 'unlist'] }),
          resolutionReason: nullable({ type: 'string' }),
          targetReports: { type: 'integer' },
          createdAt: isoDate,
          resolvedAt: nullable(isoDate),
        },
      },
      PluginVersion: {
        type: 'object',
        required: ['version', 'changelog', 'changelogTree', 'sha256', 'size', 'download', 'status', 'createdAt', 'entryCount'],
        properties: {
          version: { type: 'string', minLength: 1, maxLength: 64 },
          changelog: { type: 'string', maxLength: 10000 },
          changelogTree: { type: 'array', description: 'changelog read as Markdown (as longDescriptionTree)', items: { $ref: '#/components/schemas/MarkdownNode' } },
          sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          size: { type: 'integer', minimum: 1 },
          download: { type: 'string', description: 'The ZIP on the image host: IMAGE_HOST_PUBLIC_URL/pkg/<sha256>/<name>.zip' },
          status: { enum: ['pending', 'approved', 'rejected', 'withdrawn', 'removed'] },
          createdAt: isoDate,
          entryCount: { type: 'integer', minimum: 1 },
          files: { type: 'array', maxItems: 1000, items: ref('PackageEntry'), description: 'One version only: the first 1,000 entries of the ZIP' },
          manifest: nullable({ ...ref('VersionManifest'), description: 'Its author and administrators only (not in lists): the package\'s plugin.json as the launcher reads it; null for a version uploaded before manifests were read' }),
          permissions: { type: 'array', items: ref('VersionPermission'), description: 'Its author and administrators only: what the launcher grants on install' },
          entryKind: nullable({ type: 'string', pattern: '^(none|python(\\+process)?(\\+qml)?|process(\\+qml)?|qml)$', description: 'Its author and administrators only: what the launcher runs (python inside its own process, process a program, qml a page; several joined by +)' }),
          checks: { type: 'array', items: ref('VersionCheck'), description: 'Its author and administrators only: computed at upload, again by npm run recheck and when a removal blocks one of its files' },
          warningCount: { type: 'integer', minimum: 0, description: 'Its author and administrators only (also in the review queue, include=review): the `warn` checks' },
        },
      },
      VersionManifest: {
        type: 'object',
        required: ['id', 'name', 'version', 'author', 'description', 'entry', 'permissions', 'min_launcher_version'],
        properties: {
          id: { type: 'string', pattern: '^[a-zA-Z0-9._-]{1,128}$' },
          name: { type: 'string', minLength: 1 },
          version: { type: 'string', minLength: 1, maxLength: 64 },
          author: { type: 'string', description: '`author`, else `master`, else empty' },
          description: { type: 'string' },
          entry: {
            type: 'object',
            required: ['python', 'process', 'qml_page'],
            description: 'Each kind\'s path from `entry`, else the launcher\'s fallback file (main.py, plugin.py; main.exe, main; main.qml, ui/Page.qml), else null',
            properties: { python: nullable({ type: 'string' }), process: nullable({ type: 'string' }), qml_page: nullable({ type: 'string' }) },
          },
          permissions: { type: 'array', maxItems: 32, items: { type: 'string' }, description: 'Declared (trimmed, duplicates dropped), else inferred from contributes and hooks' },
          min_launcher_version: nullable({ type: 'string' }),
        },
      },
      VersionPermission: {
        type: 'object',
        required: ['id', 'risk'],
        properties: { id: { type: 'string' }, risk: { enum: ['safe', 'high'], description: 'safe: ui.nav, ui.theme, ui.settings, ui.toolbar, ui.home, ui.tools, config.read; high: every other id' } },
      },
      VersionCheck: {
        type: 'object',
        required: ['code', 'level', 'message'],
        properties: {
          code: { enum: ['secret', 'blocked-file', 'native-executable', 'high-risk-permission', 'new-permission', 'similar-name', 'entry-kind-changed'] },
          level: { enum: ['warn', 'block'], description: 'block: secret, blocked-file (the upload is refused; a pending version cannot be approved); warn: the others' },
          message: { type: 'string', description: 'Names the file, the permission, the similar plugin or the kinds; never a secret' },
          file: { type: 'string', description: 'The entry it is about (secret, blocked-file, native-executable)' },
        },
      },
      PackageEntry: {
        type: 'object',
        required: ['name', 'size', 'crc32'],
        properties: { name: { type: 'string' }, size: { type: 'integer', minimum: 0 }, crc32: { type: 'integer', minimum: 0 } },
      },
      MediaData: {
        type: 'object',
        required: ['url', 'webpUrl', 'timestamp', 'md5', 'filename'],
        properties: { url: { type: 'string' }, webpUrl: { type: 'string' }, timestamp: { type: 'integer' }, md5: { type: 'string', pattern: '^[0-9a-f]{32}$' }, filename: { type: 'string' } },
      },
    },
  },
  paths: {
    '/healthz': { get: { operationId: 'getHealth', tags: ['service'], security: [], summary: 'The process serves', responses: { '200': json('Alive', probe('ok')), '414': targetTooLong } } },
    '/readyz': { get: { operationId: 'getReadiness', tags: ['service'], security: [], summary: 'PostgreSQL answers', responses: { '200': json('Ready', probe('ready')), '414': targetTooLong, '503': json('Not ready (not an error envelope: probes read the status)', probe('unavailable')) } } },
    '/metrics': {
      get: {
        operationId: 'getMetrics', tags: ['service'], security: metricsOnly,
        summary: 'Prometheus text (METRICS_TOKEN as a bearer token); 404 while METRICS_TOKEN is unset',
        responses: {
          '200': media('Prometheus text exposition format 0.0.4', 'text/plain'),
          '401': failure('Missing or wrong metrics token', 'UNAUTHORIZED'),
          '404': notFound,
        },
      },
    },
    '/openapi.json': { get: { operationId: 'getOpenApiDocument', tags: ['service'], security: [], summary: 'This document', responses: { '200': json('OpenAPI 3.1 document', openApiDocument), '304': { description: 'Not modified (If-None-Match)' }, '414': targetTooLong } } },
    '/api/info': {
      get: {
        operationId: 'getLauncherInfo', tags: ['launcher'], security: [],
        summary: 'Launcher info (LAUNCHER_CONFIG)',
        parameters: [queryParam('lang', 'A language tag (zh-CN, en): the texts the file translates into it, else the default texts')],
        responses: {
          '200': json('Launcher info', success({ latestVersion: {}, BLTips: { type: 'array' } }, [])),
          '400': failure('lang is not a language tag', 'BAD_REQUEST'),
          '304': { description: 'Not modified (If-None-Match)' },
          '414': targetTooLong,
          '500': failure('No launcher configuration was ever read', 'INTERNAL'),
        },
      },
    },
    '/api/fastdownload': {
      get: {
        operationId: 'getFastDownload', tags: ['launcher'], security: [], summary: 'Fast-download configuration', responses: { '200': json('Fast download', success({ enabled: { type: 'boolean' }, versions: { type: 'array' } })), '304': { description: 'Not modified (If-None-Match)' }, '414': targetTooLong } },
    },
    '/apps/auth/login': {
      get: {
        operationId: 'startLogin', tags: ['auth'], security: [],
        summary: 'Starts a login at the identity provider',
        parameters: [queryParam('return_to', 'In-site path to land on afterwards (else /apps/)')],
        responses: { '302': { description: 'To the identity provider (state and PKCE)' }, '404': noProvider, ...common },
      },
    },
    '/apps/auth/callback': {
      get: {
        operationId: 'finishLogin', tags: ['auth'], security: [],
        summary: 'The identity provider returns here',
        parameters: [queryParam('code', 'Authorization code'), queryParam('state', 'State bound to the login cookie'), queryParam('error', 'Set by the provider on refusal')],
        responses: {
          '302': { description: 'Session cookie set; to return_to' },
          '400': failure('State missing or not this browser\'s', 'BAD_REQUEST'),
          '401': failure('The provider refused the login', 'LOGIN_DENIED', 'UNAUTHORIZED'),
          '404': noProvider,
          '502': failure('The identity provider failed', 'UPSTREAM_FAILED'),
          ...common,
        },
      },
    },
    '/apps/auth/password': {
      post: {
        operationId: 'loginWithPassword', tags: ['auth'], security: [],
        summary: 'Logs in with a local account',
        requestBody: jsonBody({ type: 'object', required: ['username', 'password'], properties: { username: { type: 'string' }, password: { type: 'string' } } }),
        responses: {
          '200': json('Logged in; session cookie set', success({ user: ref('User') })),
          ...jsonWrite,
          '401': failure('Wrong name or password (one message for both)', 'INVALID_CREDENTIALS'),
          '429': rateLimited,
          ...common,
        },
      },
    },
    '/apps/auth/logout': {
      post: {
        operationId: 'logout', tags: ['auth'], security: optionalSession, summary: 'Deletes the session', responses: { '200': json('Logged out', ref('Ok')), '403': failure('Cross-site request', 'FORBIDDEN'), ...common } },
      get: {
        operationId: 'logoutAndReturn', tags: ['auth'], security: optionalSession,
        summary: 'Deletes the session and goes to the store; for a client without Fetch Metadata (curl, a script) or a top-level navigation from this site',
        responses: { '302': { description: 'To /apps/' }, '403': failure('Fetch Metadata says it is not a top-level navigation from this site (an image, a script, a frame, a fetch, a prefetch, another site): nothing done', 'FORBIDDEN'), ...common },
      },
    },
    '/apps/api/me': {
      get: {
        operationId: 'getMe', tags: ['auth'], security: optionalSession,
        summary: 'Who is logged in',
        responses: {
          '200': json('The session\'s user, or loggedIn false', success({ loggedIn: { type: 'boolean' }, user: nullable(ref('User')) })),
          '400': badRequest,
          ...denied,
          '429': rateLimited,
          ...common,
        },
      },
    },
    '/apps/api/plugins': {
      get: {
        operationId: 'listPlugins', tags: ['plugins'],
        summary: 'Lists and searches plugins the caller may see',
        security: optionalSession,
        parameters: [
          queryParam('q', 'Search words (typo-tolerant)'),
          queryParam('tag', 'Only plugins with this tag'),
          queryParam('sort', 'Order: updated (default), rating, installs, each highest first; oldest: least recently updated first (the review queue)', { enum: ['updated', 'rating', 'installs', 'oldest'] }),
          queryParam('public', '1: approved plugins only'),
          queryParam('scope', 'mine: own plugins (login); admin: all (administrators)', { enum: ['mine', 'admin'] }),
          queryParam('status', 'Filter by status', { enum: ['pending', 'approved', 'rejected'] }),
          queryParam('update', 'pending: plugins with a pending update (review queue)'),
          queryParam('include', 'review (with scope, at most 100 a page): each plugin as its detail shows it to its author or an administrator (longDescription, package, pendingUpdate.package), the packages as summaries: no `files` or `diff` (entryCount and diffCounts stay)', { enum: ['review'] }),
          queryParam('featured', '1: featured only'),
          ...page,
        ],
        responses: {
          '200': json('A page of plugins', success({ plugins: { type: 'array', items: ref('Plugin') }, total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } })),
          '400': invalid,
          ...denied,
          '429': rateLimited,
          ...common,
        },
      },
      post: {
        operationId: 'submitPlugin', tags: ['plugins'],
        summary: 'Submits a plugin (pending review): its fields as JSON, or its ZIP alone as multipart, the package\'s manifest giving the id, name, version, author, description and permissions and the hosted file its download',
        security: sessionOrToken('plugins:write'),
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { allOf: [ref('PluginFields'), { required: ['id', 'name', 'version', 'download'] }] } },
            'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: {
              file: { type: 'string', contentMediaType: 'application/zip', description: 'The ZIP, up to PACKAGE_MAX_BYTES, with a plugin.json (else cwplugin.json) at its root or in its one folder: its id (3 to 128 letters, digits, dots, underscores or hyphens), name, version, author, description and permissions make the plugin; the first version is created pending with it' },
              name: { type: 'string', maxLength: 100, description: 'Replaces the manifest\'s name (empty: the manifest\'s)' },
              description: { type: 'string', maxLength: 500, description: 'Replaces the manifest\'s description (empty: the manifest\'s)' },
              longDescription: { type: 'string', maxLength: 20000 },
              url: { type: 'string', description: 'The homepage, https' },
              icon: { type: 'string' },
              tags: { type: 'array', items: { type: 'string' }, description: 'Repeated parts, or one split on commas' },
              screenshots: { type: 'array', items: { type: 'string' }, description: 'Repeated parts: a link, or {url, webpUrl} as JSON' },
              changelog: { type: 'string', maxLength: 10000, description: 'The first version\'s, Markdown' },
              version: { type: 'string', description: 'Optional: must equal the manifest\'s' },
              id: { type: 'string', description: 'Optional: must equal the manifest\'s' },
            } } },
          },
        },
        responses: {
          '201': json('Created, pending (from a ZIP, with its first version, pending)', success({ plugin: ref('Plugin'), version: ref('PluginVersion') }, ['plugin'])),
          '400': failure('A broken field rule (`field` names it); from a ZIP, `field` file: the image host refused it, its manifest is missing or refused (none, two, too large, not a JSON object, no or a bad id, no name or version, a field the store cannot hold), or a block check (a secret, a file of a package removed for malware); `field` version or id: not the manifest\'s; `field` author, permissions, download or sha256: the manifest\'s or the store\'s, not the form\'s', 'VALIDATION_FAILED', 'BAD_REQUEST'),
          '413': tooLarge,
          '415': notJson,
          ...denied,
          '409': failure('The id is taken (in any case)', 'CONFLICT'),
          '429': rateLimited,
          '502': failure('The image host failed or did not answer (a ZIP)', 'UPSTREAM_FAILED'),
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}': {
      get: {
        operationId: 'getPlugin', tags: ['plugins'],
        summary: 'One plugin',
        security: optionalSession,
        parameters: [pluginId, queryParam('include', 'related: also up to 6 related approved plugins'), queryParam('related', '1: same as include=related')],
        responses: {
          '200': json('The plugin', success({ plugin: ref('Plugin'), related: { type: 'array', items: ref('Plugin') } }, ['plugin'])),
          '400': badRequest,
          ...denied,
          '404': notFound,
          '429': rateLimited,
          ...common,
        },
      },
      patch: {
        operationId: 'editPlugin', tags: ['plugins'],
        summary: 'Edits a plugin (an approved plugin\'s edit becomes its pending update)',
        security: sessionOrToken('plugins:write'),
        parameters: [pluginId],
        requestBody: jsonBody(ref('PluginFields')),
        responses: {
          '200': json('Edited', success({ plugin: ref('Plugin') })),
          ...jsonWrite,
          ...denied,
          '404': notFound,
          '429': rateLimited,
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}/review': {
      post: {
        operationId: 'reviewPlugin', tags: ['plugins'],
        summary: 'Approves or rejects a plugin or its pending update, or unlists an approved plugin (administrators)',
        description:
          'A plugin with a pending update: approve applies it, reject discards it (the plugin stays approved). Without one: approve sets approved, reject sets rejected. ' +
          'unlist (reason required) takes an approved plugin down (rejected) and discards its pending update. ' +
          'With `revision`, the review applies only if the plugin and its pending update are still as the record with that revision showed them, else 409 (field `revision`) and nothing changes; administrators\' tools should always send it. ' +
          'Approving an outside link whose packageCheck is ok makes the checked SHA-256 the plugin\'s sha256 (pinned); refused or mismatch is 409 (field `download`); pending and unreachable leave approval as it is.',
        security: sessionOnly,
        parameters: [pluginId],
        requestBody: jsonBody({
          type: 'object',
          required: ['action'],
          properties: {
            action: { enum: ['approve', 'reject', 'unlist'] },
            reason: { type: 'string', maxLength: 1000, description: 'Shown to the author; required for unlist' },
            revision: nullable({ type: 'string', minLength: 1, maxLength: 64, description: 'The `revision` of the record reviewed' }),
          },
        }),
        responses: {
          '200': json('Reviewed', success({ plugin: ref('Plugin') })),
          ...jsonWrite,
          ...denied,
          '404': notFound,
          '409': failure('Nothing to review, an unlisting of a plugin that is not approved, `revision` is not current (`field`: revision), or an approval of an outside link whose packageCheck is refused or mismatch (`field`: download)', 'CONFLICT'),
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}/package-check': {
      post: {
        operationId: 'requestPackageCheck', tags: ['plugins'],
        summary: 'Checks a plugin\'s outside download link again, as soon as a worker is free (administrators)',
        description: 'The result appears as the record\'s packageCheck. 404 for a plugin whose download is hosted (nothing to fetch) or that does not exist.',
        security: sessionOnly,
        parameters: [pluginId],
        responses: {
          '202': json('Queued', { type: 'object', required: ['success'], properties: { success: { const: true } } }),
          ...denied,
          '404': notFound,
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}/install-link': {
      get: {
        operationId: 'getInstallLink', tags: ['plugins'], security: [],
        summary: 'The launcher\'s install link',
        parameters: [pluginId],
        responses: {
          '200': json('Install link', success({
            install_url: { type: 'string' },
            download: { type: 'string' },
            sha256: nullable({ type: 'string' }),
            propose: {
              type: 'object',
              description: 'The request as a JSON body for the launcher\'s local endpoint, with what its confirmation dialog shows; sha256 only when known; author is the plugin\'s, else its submitter\'s username',
              required: ['download', 'id', 'source', 'name', 'version', 'author', 'description', 'permissions'],
              properties: {
                download: { type: 'string' },
                id: { type: 'string' },
                source: { const: 'store' },
                sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
                name: { type: 'string' },
                version: { type: 'string' },
                author: { type: 'string' },
                description: { type: 'string' },
                permissions: { type: 'array', items: { type: 'string' } },
              },
            },
          })),
          '400': badRequest,
          '404': notFound,
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}/manifest.json': {
      get: {
        operationId: 'getManifest', tags: ['plugins'], security: [],
        summary: 'Launcher manifest (no envelope)',
        parameters: [pluginId],
        responses: {
          '200': json('Manifest', { type: 'object', required: ['name', 'master', 'download', 'version'], properties: { name: { type: 'string' }, master: { type: 'string' }, download: { type: 'string' }, version: { type: 'string' } } }),
          '400': badRequest,
          '404': notFound,
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}/install-click': {
      post: {
        operationId: 'countInstallClick', tags: ['plugins'], security: [],
        summary: 'Counts an install (once per address per plugin per hour); refused from other sites',
        parameters: [pluginId],
        responses: {
          '200': json('Count', success({ id: { type: 'string' }, installCount: { type: 'integer' } })),
          '400': badRequest,
          '403': failure('Sent by a page of another site (Origin or Sec-Fetch-Site); nothing counted', 'FORBIDDEN'),
          '404': notFound,
          '429': rateLimited,
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}/versions': {
      get: {
        operationId: 'listPluginVersions', tags: ['versions'],
        summary: 'The plugin\'s versions, newest first: approved ones for visitors, all with their state for its author and administrators',
        security: optionalSession,
        parameters: [pluginId],
        responses: {
          '200': json('Versions', success({ versions: { type: 'array', items: ref('PluginVersion') } })),
          '400': badRequest,
          '404': notFound,
          ...common,
        },
      },
      post: {
        operationId: 'uploadPluginVersion', tags: ['versions'],
        summary: 'Uploads a new version (its author): the ZIP streams to the image host; pending until reviewed like any update',
        security: sessionOrToken('plugins:write'),
        parameters: [pluginId],
        requestBody: {
          required: true,
          content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: {
            file: { type: 'string', contentMediaType: 'application/zip', description: 'The ZIP, up to PACKAGE_MAX_BYTES (32 MiB by default), with a plugin.json (else cwplugin.json) at its root or in its one folder naming this plugin\'s id exactly, a name and a version' },
            version: { type: 'string', minLength: 1, maxLength: 64, description: 'Optional: the manifest\'s version by default, and must equal it; never used before by this plugin (withdrawn and removed numbers included)' },
            changelog: { type: 'string', maxLength: 10000, description: 'Markdown' },
          } } } },
        },
        responses: {
          '201': json('Pending, with its manifest, permissions, entry kind and checks', success({ version: ref('PluginVersion') })),
          '400': failure('`field` file: the image host refused the ZIP, its manifest is missing or refused (the reason says which: none, two, too large, not a JSON object, no or another plugin\'s id, no name or version), or a block check (a secret, a file of a package removed for malware); `field` version: not the manifest\'s version; other fields: their rule', 'VALIDATION_FAILED', 'BAD_REQUEST'),
          ...denied,
          '404': notFound,
          '409': failure('The version number (the form\'s or the manifest\'s) was used before (`field`: version)', 'CONFLICT'),
          '413': tooLarge,
          '429': rateLimited,
          '502': failure('The image host failed or did not answer', 'UPSTREAM_FAILED'),
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}/versions/{version}': {
      get: {
        operationId: 'getPluginVersion', tags: ['versions'],
        summary: 'One version with its file list (visitors: approved versions only); for its author and administrators also its manifest, permissions, entry kind and checks',
        security: optionalSession,
        parameters: [pluginId, VERSION_PARAM],
        responses: {
          '200': json('The version', success({ version: ref('PluginVersion') })),
          '400': badRequest,
          '404': notFound,
          ...common,
        },
      },
      delete: {
        operationId: 'removePluginVersion', tags: ['versions'],
        summary: 'Removes a version for malware (administrators): its file answers 410 unless another live version has the same bytes',
        description: 'When it is the live version, the plugin goes back to its newest earlier approved version, or is unlisted when there is none.',
        security: sessionOnly,
        parameters: [pluginId, VERSION_PARAM],
        responses: {
          '200': json('Removed', ref('Ok')),
          '400': badRequest,
          ...denied,
          '404': notFound,
          '502': failure('The image host failed to delete the file (ask again)', 'UPSTREAM_FAILED'),
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}/versions/{version}/withdraw': {
      post: {
        operationId: 'withdrawPluginVersion', tags: ['versions'],
        summary: 'Withdraws a version (its author or an administrator): it leaves updates and the visitors\' history; its file stays',
        description: 'When it is the live version, the plugin goes back to its newest earlier approved version; when there is none, the plugin leaves the store (rejected with the reason) until a new version is approved.',
        security: sessionOrToken('plugins:write'),
        parameters: [pluginId, VERSION_PARAM],
        responses: {
          '200': json('Withdrawn', success({ version: ref('PluginVersion') })),
          '400': badRequest,
          ...denied,
          '404': notFound,
          ...common,
        },
      },
    },
    '/apps/api/updates': {
      post: {
        operationId: 'checkUpdates', tags: ['versions'], security: [],
        summary: 'Which installed plugins have another live version (launchers; any origin)',
        description: 'An entry is listed when the live version differs from what is installed: by sha256 when given (and the live version has one), else by version; an entry with neither is listed with the live version. Plugins not found or not approved are in `unknown`. Entries come in id order. ' +
          'With `launcher`, a plugin whose live version\'s manifest asks for a newer launcher (min_launcher_version, compared as the Bloret launcher compares: numeric parts, missing ones 0, a part without digits -1, the first four) offers instead the newest approved version that launcher meets, and none at all when there is none.',
        requestBody: jsonBody({
          type: 'object',
          required: ['plugins'],
          properties: {
            launcher: {
              type: 'string', maxLength: 64, pattern: '^[vV]?[0-9]{1,9}(\\.[0-9]{1,9}){0,3}([-+_][0-9A-Za-z]+([-+_.][0-9A-Za-z]+)*)?$',
              description: 'The asking launcher\'s version (25.3.1, 25.4.0-beta.2); anything else is 400 VALIDATION_FAILED, field launcher',
            },
            plugins: {
              type: 'array', minItems: 1, maxItems: 500,
              items: {
                type: 'object', required: ['id'],
                properties: { id: { type: 'string', minLength: 1, maxLength: 128 }, version: { type: 'string', minLength: 1, maxLength: 64 }, sha256: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' } },
              },
            },
          },
        }),
        responses: {
          '200': json('Updates', success({
            updates: { type: 'array', items: { type: 'object', required: ['id', 'installed', 'latest'], properties: {
              id: { type: 'string' },
              installed: { type: 'object', required: ['version', 'sha256'], properties: { version: nullable({ type: 'string' }), sha256: nullable({ type: 'string' }) } },
              latest: { type: 'object', required: ['version', 'sha256', 'size', 'download', 'install_url', 'changelog'], properties: {
                version: { type: 'string' },
                sha256: nullable({ type: 'string' }),
                size: nullable({ type: 'integer' }),
                download: { type: 'string' },
                install_url: { type: 'string' },
                changelog: nullable({ type: 'string' }),
              } },
            } } },
            unknown: { type: 'array', items: { type: 'string' } },
          })),
          ...jsonWrite,
          '429': rateLimited,
          ...common,
        },
      },
      options: {
        operationId: 'preflightUpdates', tags: ['versions'], security: [],
        summary: 'CORS preflight of the update check',
        responses: {
          '204': { description: 'Allowed from any origin (POST, Content-Type)', headers: { 'Access-Control-Allow-Origin': { schema: { type: 'string', const: '*' } } } },
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}/stats': {
      get: {
        operationId: 'getInstallStats', tags: ['stats'],
        summary: 'Install clicks per UTC day, oldest first, today included',
        security: optionalSession,
        parameters: [pluginId, queryParam('days', 'Days in the series (default 30)', { type: 'integer', enum: [30, 90, 365] })],
        responses: {
          '200': json('The daily series and its total', success({
            days: installDays,
            total: { type: 'integer', minimum: 0 },
          })),
          '400': badRequest,
          '404': notFound,
          ...common,
        },
      },
    },
    '/apps/api/stats/installs': {
      get: {
        operationId: 'getManyInstallStats', tags: ['stats'],
        summary: "Several plugins' install series in one request (My plugins' sparklines); plugins the caller may not see are left out",
        security: optionalSession,
        parameters: [
          { ...queryParam('ids', 'Plugin ids separated by commas, 1 to 100'), required: true },
          queryParam('days', 'Days in each series (default 30)', { type: 'integer', enum: [30, 90, 365] }),
        ],
        responses: {
          '200': json('Each visible plugin asked for, in the order asked, with its daily series and total', success({
            plugins: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'days', 'total'],
                properties: {
                  id: { type: 'string' },
                  days: installDays,
                  total: { type: 'integer', minimum: 0 },
                },
              },
            },
          })),
          '400': badRequest,
          ...common,
        },
      },
    },
    '/apps/api/audit': {
      get: {
        operationId: 'listAuditEntries', tags: ['audit'],
        summary: "Administrators' actions, newest first (administrators)",
        security: sessionOnly,
        parameters: [queryParam('plugin', 'Only entries about this plugin (id, any case)'), queryParam('user', 'Only entries by this administrator (username)'), ...page],
        responses: {
          '200': json('A page of the audit log', success({
            entries: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'actor', 'action', 'target', 'before', 'after', 'at'],
                properties: {
                  id: { type: 'integer' },
                  actor: { type: 'string' },
                  action: { type: 'string' },
                  target: { type: 'object', required: ['type'], properties: { type: { enum: ['plugin', 'rating', 'report', 'token'] }, plugin: { type: 'string' }, user: { type: 'string' } } },
                  before: { type: 'object' },
                  after: { type: 'object' },
                  at: isoDate,
                },
              },
            },
            total: { type: 'integer', minimum: 0 },
          })),
          ...guardedRead,
        },
      },
    },
    '/apps/api/reports': {
      post: {
        operationId: 'createReport', tags: ['reports'],
        summary: 'Reports a plugin or a rating (10 a day per user)',
        security: sessionOnly,
        requestBody: jsonBody({ type: 'object', required: ['target', 'reason'], properties: { target: { type: 'object' }, reason: { enum: ['malware', 'broken', 'spam', 'abuse', 'copyright', 'other'] }, note: { type: 'string', maxLength: 500 } } }),
        responses: {
          '201': json('The report', success({ report: ref('Report') })),
          ...jsonWrite,
          ...denied,
          '404': notFound,
          '409': failure('The caller already has an open report of this target', 'CONFLICT'),
          '429': rateLimited,
          ...common,
        },
      },
      get: {
        operationId: 'listReports', tags: ['reports'],
        summary: 'The report queue, grouped by target (administrators)',
        security: sessionOnly,
        parameters: [queryParam('status', 'open (default) or resolved', { enum: ['open', 'resolved'] }), ...page],
        responses: {
          '200': json('A page of reports', success({ reports: { type: 'array', items: ref('Report') }, total: { type: 'integer', minimum: 0 } })),
          ...guardedRead,
        },
      },
    },
    '/apps/api/review/counts': {
      get: {
        operationId: 'getReviewCounts', tags: ['plugins'],
        summary: 'What waits for review, by kind, in one call: plugins pending review, pending updates, open reports (administrators)',
        security: sessionOnly,
        responses: {
          '200': json('The three counts', success({
            pending: { type: 'integer', minimum: 0, description: 'Plugins pending review (the list with status=pending)' },
            updates: { type: 'integer', minimum: 0, description: 'Approved plugins with a pending update (the list with update=pending)' },
            reports: { type: 'integer', minimum: 0, description: 'Open reports (GET /apps/api/reports)' },
          })),
          ...denied,
          ...common,
        },
      },
    },
    '/apps/api/reports/{id}/resolve': {
      post: {
        operationId: 'resolveReport', tags: ['reports'],
        summary: "Resolves a report and every open report of its target (administrators)",
        security: sessionOnly,
        parameters: [pathParam('id', 'Report id', { type: 'string', pattern: '^[0-9]+$' })],
        requestBody: jsonBody({ type: 'object', required: ['action'], properties: { action: { enum: ['dismiss', 'hide-rating', 'unlist'] }, reason: { type: 'string', maxLength: 1000 } } }),
        responses: {
          '200': json('The resolved report and the ids of every report it resolved', success({ report: ref('Report'), resolved: { type: 'array', items: { type: 'integer' } } })),
          ...jsonWrite,
          ...denied,
          '404': notFound,
          '409': failure('Already resolved', 'CONFLICT'),
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}/ratings/{ratingUser}/unhide': {
      post: {
        operationId: 'unhideRating', tags: ['reports'],
        summary: 'Shows a hidden rating again (administrators)',
        security: sessionOnly,
        parameters: [pluginId, pathParam('ratingUser', "The rater's username")],
        responses: {
          '200': json('The statistics with the rating counted again', { allOf: [ref('RatingStats'), success({})] }),
          '400': badRequest,
          ...denied,
          '404': notFound,
          ...common,
        },
      },
    },
    '/apps/api/notifications': {
      get: {
        operationId: 'listNotifications', tags: ['notifications'],
        summary: "The caller's notifications, newest first",
        security: sessionOnly,
        parameters: page,
        responses: {
          '200': json('A page of notifications', success({
            notifications: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'kind', 'plugin', 'actor', 'message', 'read', 'createdAt'],
                properties: {
                  id: { type: 'integer' },
                  kind: { enum: ['review.approved', 'review.rejected', 'update.approved', 'update.rejected', 'rating.created', 'reply.created', 'report.resolved', 'package.changed'] },
                  plugin: nullable({ type: 'string' }),
                  actor: nullable({ type: 'string' }),
                  message: { type: 'string' },
                  read: { type: 'boolean' },
                  createdAt: isoDate,
                },
              },
            },
            unread: { type: 'integer', minimum: 0 },
            total: { type: 'integer', minimum: 0 },
          })),
          ...guardedRead,
        },
      },
    },
    '/apps/api/notifications/read': {
      post: {
        operationId: 'markNotificationsRead', tags: ['notifications'],
        summary: "Marks the caller's notifications read, by ids or all",
        security: sessionOnly,
        requestBody: jsonBody({ type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' }, maxItems: 200 }, all: { const: true } } }),
        responses: {
          '200': json('The unread count after', success({ unread: { type: 'integer', minimum: 0 } })),
          ...jsonWrite,
          ...denied,
          ...common,
        },
      },
    },
    '/apps/api/webhook': {
      get: {
        operationId: 'getWebhook', tags: ['webhooks'],
        summary: "The caller's webhook (never its secret), or null",
        security: sessionOnly,
        responses: {
          '200': json('The webhook', success({ webhook: nullable(webhookSchema(false)) })),
          ...guardedRead,
        },
      },
      put: {
        operationId: 'setWebhook', tags: ['webhooks'],
        summary: "Sets the caller's webhook URL (https, public address); the secret is shown when made or rotated",
        security: sessionOnly,
        requestBody: jsonBody({ type: 'object', required: ['url'], properties: { url: { type: 'string', maxLength: 2048, description: 'https: URL, no user name or password, not a private, loopback, link-local or otherwise non-public address; port 443, 8443 or one of WEBHOOK_ALLOWED_PORTS' }, rotateSecret: { type: 'boolean' } } }),
        responses: {
          '200': json('Set; `secret` only when the webhook is new or rotateSecret was true', success({ webhook: webhookSchema(true) })),
          ...jsonWrite,
          ...denied,
          ...common,
        },
      },
      delete: {
        operationId: 'deleteWebhook', tags: ['webhooks'],
        summary: "Removes the caller's webhook and cancels its pending deliveries",
        security: sessionOnly,
        responses: { '200': json('Removed (or there was none)', ref('Ok')), ...guardedRead },
      },
    },
    '/apps/api/webhook/deliveries': {
      get: {
        operationId: 'listWebhookDeliveries', tags: ['webhooks'],
        summary: "The caller's webhook deliveries, newest first",
        security: sessionOnly,
        parameters: page,
        responses: {
          '200': json('A page of deliveries', success({
            deliveries: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'notificationId', 'kind', 'status', 'attempts', 'lastStatusCode', 'lastError', 'nextAttemptAt', 'deliveredAt', 'createdAt'],
                properties: {
                  id: { type: 'integer' },
                  notificationId: { type: 'integer' },
                  kind: { type: 'string' },
                  status: { enum: ['pending', 'delivered', 'failed'] },
                  attempts: { type: 'integer', minimum: 0 },
                  lastStatusCode: nullable({ type: 'integer' }),
                  lastError: nullable({ enum: [...DELIVERY_FAILURE_REASONS], description: "Why the last attempt failed, a coarse reason (the detail is in the server log only); with `http_status` and `redirect`, lastStatusCode has the answer's status" }),
                  nextAttemptAt: nullable(isoDate),
                  deliveredAt: nullable(isoDate),
                  createdAt: isoDate,
                },
              },
            },
            total: { type: 'integer', minimum: 0 },
          })),
          ...guardedRead,
        },
      },
    },
    '/apps/api/plugins/{id}/ratings': {
      get: {
        operationId: 'listRatings', tags: ['ratings'],
        summary: 'Ratings of a plugin, newest first',
        security: optionalSession,
        parameters: [pluginId, ...page],
        responses: {
          '200': json('A page of ratings', { allOf: [ref('RatingStats'), success({ ratings: { type: 'array', items: ref('Rating') }, limit: { type: 'integer' }, offset: { type: 'integer' }, myRating: nullable(ref('Rating')) }, ['ratings', 'limit', 'offset'])] }),
          '400': invalid,
          ...denied,
          '404': notFound,
          '429': rateLimited,
          ...common,
        },
      },
      put: {
        operationId: 'ratePlugin', tags: ['ratings'],
        summary: 'Rates a plugin (or changes the caller\'s rating)',
        security: sessionOnly,
        parameters: [pluginId],
        requestBody: jsonBody({ type: 'object', required: ['stars'], properties: { stars: { type: 'integer', minimum: 1, maximum: 5 }, comment: { type: 'string' } } }),
        responses: {
          '200': json('Rated', { allOf: [ref('RatingStats'), success({ rating: ref('Rating') })] }),
          ...jsonWrite,
          ...denied,
          '404': notFound,
          '429': rateLimited,
          ...common,
        },
      },
      delete: {
        operationId: 'deleteRating', tags: ['ratings'],
        summary: 'Deletes the caller\'s rating and its replies',
        security: sessionOnly,
        parameters: [pluginId],
        responses: {
          '200': json('Deleted', { allOf: [ref('RatingStats'), success({})] }),
          '400': badRequest,
          ...denied,
          '404': notFound,
          '429': rateLimited,
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}/ratings/{ratingUser}/replies': {
      post: {
        operationId: 'replyToRating', tags: ['ratings'],
        summary: 'Replies to a user\'s rating',
        security: sessionOnly,
        parameters: [pluginId, pathParam('ratingUser', 'Username of the rating replied to')],
        requestBody: jsonBody({ type: 'object', properties: { body: { type: 'string' }, comment: { type: 'string' } } }),
        responses: {
          '201': json('Reply created', success({ reply: ref('Reply') })),
          ...jsonWrite,
          ...denied,
          '404': notFound,
          '429': rateLimited,
          ...common,
        },
      },
    },
    '/apps/api/plugins/{id}/ratings/replies/{replyId}': {
      delete: {
        operationId: 'deleteReply', tags: ['ratings'],
        summary: 'Deletes a reply (its author or an administrator)',
        security: sessionOnly,
        parameters: [pluginId, pathParam('replyId', 'Reply id', { type: 'string', pattern: '^[0-9]+$' })],
        responses: { '200': json('Deleted', ref('Ok')), '400': badRequest, ...denied, '404': notFound, ...common },
      },
    },
    '/apps/api/media/upload': {
      post: {
        operationId: 'uploadMedia', tags: ['media'],
        summary: 'Uploads an image through the image host',
        security: sessionOrToken('media:upload'),
        requestBody: {
          required: true,
          content: { 'multipart/form-data': { schema: { type: 'object', required: ['image'], properties: { image: { type: 'string', contentMediaType: 'application/octet-stream', description: 'JPG, PNG, GIF or WebP (by content), up to 8 MiB' } } } } },
        },
        responses: {
          '200': json('Stored', success({ data: ref('MediaData') })),
          '400': invalid,
          ...denied,
          '413': tooLarge,
          '429': rateLimited,
          '502': failure('The image host failed or did not answer', 'UPSTREAM_FAILED'),
          ...common,
        },
      },
    },
    '/img/{timestamp}/{file}': {
      get: {
        operationId: 'redirectToImage', tags: ['media'], security: [],
        summary: 'The in-site name of an image on the image host: 302 to the same path under an https IMAGE_HOST_PUBLIC_URL, or the image fetched from an http one and sent by the site',
        parameters: [
          pathParam('timestamp', 'Any whole number (the upload answer\'s)', { type: 'string', pattern: '^[0-9]{1,16}$' }),
          pathParam('file', 'The md5, or the md5 and `.webp` for its WebP preview', { type: 'string', pattern: '^[0-9a-f]{32}(\\.webp)?$' }),
        ],
        responses: {
          '200': { description: 'The image (image host on plain http)', content: { 'image/*': { schema: { type: 'string', format: 'binary' } } } },
          '302': { description: 'To the image on the image host (cached a day)', headers: { Location: { schema: { type: 'string', format: 'uri' } } } },
          '304': { description: 'The client holds it (image host on plain http)' },
          '404': notFound,
          '414': targetTooLong,
          '429': json('The caller\'s address already has 8 images in flight (image host on plain http)', { allOf: [ref('Error'), { type: 'object', properties: { code: { enum: ['RATE_LIMITED'] } } }] }, retryAfter),
          '502': failure('The image host failed, or answered something that is not an image', 'UPSTREAM_FAILED'),
          '503': json('Images waiting for their clients fill the memory set aside for them (image host on plain http)', { allOf: [ref('Error'), { type: 'object', properties: { code: { enum: ['UNAVAILABLE'] } } }] }, retryAfter),
        },
      },
    },
    '/apps/api/tokens': {
      get: {
        operationId: 'listTokens', tags: ['tokens'],
        summary: 'The caller\'s API tokens, newest first (never a secret)',
        security: sessionOnly,
        responses: { '200': json('Tokens', success({ tokens: { type: 'array', items: ref('Token') } })), '400': badRequest, ...denied, '429': rateLimited, ...common },
      },
      post: {
        operationId: 'createToken', tags: ['tokens'],
        summary: 'Creates an API token; its secret is in this answer only',
        security: sessionOnly,
        requestBody: jsonBody({
          type: 'object',
          required: ['name', 'scopes'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            scopes: { type: 'array', minItems: 1, items: { enum: ['plugins:write', 'media:upload'] } },
            expiresInDays: { type: 'integer', minimum: 1, maximum: 365, default: 90 },
          },
        }),
        responses: {
          '201': json('Created', success({ token: ref('Token'), secret: { type: 'string', pattern: '^lwt_[A-Za-z0-9_-]{43}$' } })),
          ...jsonWrite,
          ...denied,
          '409': failure('Already 20 live tokens', 'CONFLICT'),
          '429': rateLimited,
          ...common,
        },
      },
    },
    '/apps/api/tokens/{id}': {
      delete: {
        operationId: 'revokeToken', tags: ['tokens'],
        summary: 'Revokes one of the caller\'s tokens',
        security: sessionOnly,
        parameters: [pathParam('id', 'Token id')],
        responses: { '200': json('Revoked', ref('Ok')), '400': badRequest, ...denied, '404': notFound, '429': rateLimited, ...common },
      },
    },
    '/': { get: { operationId: 'getHomePage', tags: ['pages'], security: [], summary: 'Landing page', responses: { '200': html, '414': targetTooLong } } },
    // One operation for two routes: the store page is served at /apps/ (its relative
    // links need the slash) and /apps redirects there; OpenAPI paths end without one.
    '/apps': { get: { 'x-route': ['/apps', '/apps/'], operationId: 'getStorePage', tags: ['pages'], security: [], summary: 'Store page, at /apps/ (/apps answers 301 to it)', responses: { '200': html, '301': { description: 'To /apps/' }, '414': targetTooLong } } },
    '/apps/plugin/{id}': { get: { operationId: 'getPluginPage', tags: ['pages'], security: optionalSession, summary: 'A plugin\'s page (the launcher\'s link)', parameters: [pluginId], responses: { '200': html, '404': html, ...common } } },
    '/apps/submit': { get: { operationId: 'getSubmitPage', tags: ['pages'], security: [], summary: 'Submit page', responses: { '200': html, '414': targetTooLong } } },
    '/apps/edit/{id}': { get: { operationId: 'getEditPage', tags: ['pages'], security: [], summary: 'Edit page', parameters: [pluginId], responses: { '200': html, '414': targetTooLong } } },
    '/apps/mine': { get: { operationId: 'getMyPluginsPage', tags: ['pages'], security: [], summary: 'My plugins page', responses: { '200': html, '414': targetTooLong } } },
    '/apps/review': { get: { operationId: 'getReviewPage', tags: ['pages'], security: [], summary: 'Review page (administrators)', responses: { '200': html, '414': targetTooLong } } },
    '/apps/tokens': { get: { operationId: 'getTokensPage', tags: ['pages'], security: [], summary: 'API tokens page (create, copy once, list, revoke)', responses: { '200': html, '414': targetTooLong } } },
    '/static/{path}': {
      get: {
        operationId: 'getStaticFile', tags: ['pages'], security: [],
        'x-route': '/static/*',
        summary: 'Static assets of the pages',
        parameters: [pathParam('path', 'Asset path')],
        responses: { '200': media('The file', '*/*'), '304': { description: 'Not modified' }, '404': notFound },
      },
    },
  },
} as const;
