import { probe, json, media, openApiDocument, pathParam, queryParam, ref, text, type Schema } from '../../../http/openapi-parts.js';

// The OpenAPI 3.1 description of the image host (service B), served at
// /openapi.json. Every route of its table (src/services/imghost/app.ts) is here; an
// operation whose OpenAPI path is not the router pattern with `{x}` for `:x` names
// its route with `x-route`. test/openapi checks both against each other, real
// answers against the schemas, and the document against Redocly's recommended
// rules; each operation has a camelCase `operationId`, a tag and its `security`.

/** The upload API's failure body, with `code` limited to `codes`. */
function failure(description: string, ...codes: string[]): Schema {
  return json(description, { allOf: [ref('Error'), { type: 'object', properties: { code: { enum: codes } } }] });
}

const busy = json('Busy, or a dependency did not answer in time', { allOf: [ref('Error'), { type: 'object', properties: { code: { enum: ['UNAVAILABLE'] } } }] }, {
  'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
});
const cached = { '304': { description: 'Not modified (If-None-Match)' } };
/** With a bucket and STORAGE_PUBLIC_URL, reads are redirected to the object there. */
const redirected = { '302': { description: 'STORAGE_PUBLIC_URL is set: the same bytes at the public URL (Location)' } };
const storageDown = failure('The bucket did not answer (STORAGE_URL=s3://...); Retry-After says when to try again', 'UNAVAILABLE');
/** Any route, before routing: a request target over 8 KiB. */
const targetTooLong = failure('Request target over 8 KiB', 'BAD_REQUEST');
const metricsOnly = [{ metricsToken: [] }];
const imageParams = [pathParam('timestamp', 'Digits (any: the md5 alone selects the file)', { type: 'string', pattern: '^[0-9]+$' }), pathParam('md5', '32 lower-case hex digits', { type: 'string', pattern: '^[0-9a-f]{32}$' })];

/** What an upload and an inspection report of a package's contents (packages/upload-route.ts, inspectionReport). */
const packageContents: Record<string, Schema> = {
  entries: {
    type: 'array',
    maxItems: 1000,
    description: 'The first 1,000 entries in archive order',
    items: {
      type: 'object',
      required: ['name', 'size', 'crc32'],
      properties: { name: { type: 'string' }, size: { type: 'integer', minimum: 0 }, crc32: { type: 'integer', minimum: 0 } },
    },
  },
  entryCount: { type: 'integer', minimum: 1, maximum: 10000 },
  manifest: {
    description: 'plugin.json, else cwplugin.json, at the root or in the root’s only folder, parsed as found; null when there is none usable (then manifestProblem says why)',
    anyOf: [
      {
        type: 'object',
        required: ['path', 'json'],
        properties: { path: { type: 'string', description: 'The entry’s name, e.g. "MyPlugin/plugin.json"' }, json: { type: 'object' } },
      },
      { type: 'null' },
    ],
  },
  manifestProblem: {
    type: ['string', 'null'],
    description: 'Why there is no usable manifest, for a person: none, two, larger than 64 KiB, a BOM, not UTF-8, not JSON, not a JSON object; null when manifest is set',
  },
  findings: {
    type: 'array',
    description: 'What the checks found, in archive order; reported, never refused by the image host',
    items: {
      anyOf: [
        {
          type: 'object',
          required: ['code', 'file', 'kind'],
          properties: { code: { const: 'secret' }, file: { type: 'string' }, kind: { type: 'string', description: 'e.g. "GitHub token", "PEM private key"; never the secret' } },
        },
        {
          type: 'object',
          required: ['code', 'file', 'format'],
          properties: { code: { const: 'native-executable' }, file: { type: 'string' }, format: { enum: ['PE', 'ELF', 'Mach-O'] } },
        },
      ],
    },
  },
  files: {
    type: 'array',
    maxItems: 10000,
    description: 'Every file entry (folders left out) in archive order, with the SHA-256 of its unpacked bytes',
    items: {
      type: 'object',
      required: ['name', 'sha256'],
      properties: { name: { type: 'string' }, sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
    },
  },
};

export const IMGHOST_OPENAPI = {
  openapi: '3.1.0',
  info: {
    title: 'Image host',
    version: '1.0.0',
    description:
      'Image upload, originals and WebP previews, icons. Any route may also answer 405 (with Allow) to another method, 400 to a malformed target ' +
      'and 414 to an over-long one. The reference in prose is docs/api.md in the repository.',
    license: { name: 'MIT', identifier: 'MIT' },
  },
  servers: [{ url: '/' }],
  tags: [
    { name: 'service', description: 'Probes, metrics and this document' },
    { name: 'images', description: 'Upload, originals and WebP previews' },
    { name: 'icons', description: 'Built-in icons as SVG or PNG, and their search page' },
    { name: 'packages', description: 'Plugin packages (ZIP): upload, download, removal' },
  ],
  components: {
    securitySchemes: {
      uploadToken: { type: 'http', scheme: 'bearer', description: 'IMGHOST_UPLOAD_TOKEN, required for uploads when it is set' },
      metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN' },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['success', 'message'],
        properties: { success: { const: false }, message: { type: 'string' }, error: { type: 'string' }, code: { type: 'string' }, field: { type: 'string' } },
      },
      Package: {
        type: 'object',
        required: ['success', 'data'],
        properties: {
          success: { const: true },
          data: {
            type: 'object',
            required: ['sha256', 'size', 'url', 'entries', 'entryCount', 'manifest', 'manifestProblem', 'findings', 'files'],
            properties: {
              sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
              size: { type: 'integer', minimum: 1 },
              url: { type: 'string', pattern: '^/pkg/[0-9a-f]{64}/[A-Za-z0-9][A-Za-z0-9._-]*\\.zip$' },
              ...packageContents,
            },
          },
        },
      },
      PackageInspection: {
        type: 'object',
        required: ['success', 'data'],
        properties: {
          success: { const: true },
          data: {
            type: 'object',
            required: ['sha256', 'size', ...Object.keys(packageContents)],
            properties: {
              sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
              size: { type: 'integer', minimum: 1 },
              ...packageContents,
            },
          },
        },
      },
      Upload: {
        type: 'object',
        required: ['success', 'message', 'data'],
        properties: {
          success: { const: true },
          message: { const: 'Upload successful' },
          data: {
            type: 'object',
            required: ['url', 'webpUrl', 'timestamp', 'md5', 'filename'],
            properties: {
              url: { type: 'string', pattern: '^/img/[0-9]+/[0-9a-f]{32}$' },
              webpUrl: { type: 'string', pattern: '^/img/[0-9]+/[0-9a-f]{32}\\.webp$' },
              timestamp: { type: 'integer' },
              md5: { type: 'string', pattern: '^[0-9a-f]{32}$' },
              filename: { type: 'string' },
            },
          },
        },
      },
    },
  },
  paths: {
    '/healthz': { get: { operationId: 'getHealth', tags: ['service'], security: [], summary: 'The process serves', responses: { '200': json('Alive', probe('ok')), '414': targetTooLong } } },
    '/readyz': { get: { operationId: 'getReadiness', tags: ['service'], security: [], summary: 'The image folder is usable, with free space, and the bucket answers (when STORAGE_URL is set)', responses: { '200': json('Ready', probe('ready')), '414': targetTooLong, '503': json('Not ready (not an error envelope: probes read the status)', probe('unavailable')) } } },
    '/metrics': {
      get: {
        operationId: 'getMetrics', tags: ['service'], security: metricsOnly,
        summary: 'Prometheus text (METRICS_TOKEN as a bearer token); 404 while METRICS_TOKEN is unset',
        responses: {
          '200': media('Prometheus text exposition format 0.0.4', 'text/plain'),
          '401': failure('Missing or wrong metrics token', 'UNAUTHORIZED'),
          '404': failure('METRICS_TOKEN is unset', 'NOT_FOUND'),
        },
      },
    },
    '/openapi.json': { get: { operationId: 'getOpenApiDocument', tags: ['service'], security: [], summary: 'This document', responses: { '200': json('OpenAPI 3.1 document', openApiDocument), ...cached, '414': targetTooLong } } },
    '/api/upload': {
      post: {
        operationId: 'uploadImage', tags: ['images'],
        summary: 'Stores an image (the same bytes are stored once)',
        security: [{}, { uploadToken: [] }],
        requestBody: {
          required: true,
          content: { 'multipart/form-data': { schema: { type: 'object', required: ['image'], properties: { image: { type: 'string', contentMediaType: 'application/octet-stream', description: 'JPG, PNG, GIF or WebP by content' } } } } },
        },
        responses: {
          '200': json('Stored', ref('Upload')),
          '400': failure('No file (also when the body is not multipart/form-data), not an accepted image by content, or a malformed form', 'BAD_REQUEST'),
          '401': failure('Missing or wrong upload token', 'UNAUTHORIZED'),
          '409': failure('Another image with the same md5 is stored', 'CONFLICT'),
          '413': failure('Over IMGHOST_MAX_BYTES', 'PAYLOAD_TOO_LARGE'),
          '500': failure('Storage failure', 'INTERNAL'),
          '503': busy,
          '507': failure('Not enough disk space', 'INSUFFICIENT_STORAGE'),
        },
      },
    },
    '/api/packages': {
      post: {
        operationId: 'uploadPackage', tags: ['packages'],
        summary: 'Stores a plugin package (ZIP), inspected first; the same bytes are stored once',
        security: [{}, { uploadToken: [] }],
        parameters: [queryParam('name', 'File name for the URL (letters, digits, `.`, `_`, `-`; default "package")')],
        requestBody: { required: true, content: { 'application/zip': { schema: { type: 'string', contentMediaType: 'application/zip' } } } },
        responses: {
          '201': json('Stored (or already stored)', ref('Package')),
          '400': failure('Not an acceptable ZIP: the message says why (field "file")', 'VALIDATION_FAILED'),
          '401': failure('Missing or wrong upload token', 'UNAUTHORIZED'),
          '413': failure('Over PACKAGE_MAX_BYTES', 'PAYLOAD_TOO_LARGE'),
          '415': failure('The body is not sent as application/zip', 'UNSUPPORTED_MEDIA_TYPE'),
          '500': failure('Storage failure', 'INTERNAL'),
          '503': busy,
          '507': failure('Not enough disk space', 'INSUFFICIENT_STORAGE'),
        },
      },
    },
    '/api/packages/inspect': {
      post: {
        operationId: 'inspectPackage', tags: ['packages'],
        summary: 'Inspects a plugin package (ZIP) as an upload is, and keeps nothing',
        description: 'The same token, limits, inspection and report as POST /api/packages, without `url`: the bytes are removed before the answer. The site sends here the files behind plugins\' outside download links as it fetches them.',
        security: [{}, { uploadToken: [] }],
        requestBody: { required: true, content: { 'application/zip': { schema: { type: 'string', contentMediaType: 'application/zip' } } } },
        responses: {
          '200': json('Inspected; nothing kept', ref('PackageInspection')),
          '400': failure('Not an acceptable ZIP: the message says why (field "file")', 'VALIDATION_FAILED'),
          '401': failure('Missing or wrong upload token', 'UNAUTHORIZED'),
          '413': failure('Over PACKAGE_MAX_BYTES', 'PAYLOAD_TOO_LARGE'),
          '415': failure('The body is not sent as application/zip', 'UNSUPPORTED_MEDIA_TYPE'),
          '500': failure('Storage failure', 'INTERNAL'),
          '503': busy,
          '507': failure('Not enough disk space', 'INSUFFICIENT_STORAGE'),
        },
      },
    },
    '/api/packages/{sha256}': {
      delete: {
        operationId: 'removePackage', tags: ['packages'],
        summary: 'Removes a package for good (malware): its URL answers 410 from then on',
        security: [{}, { uploadToken: [] }],
        parameters: [pathParam('sha256', '64 lower-case hex digits', { type: 'string', pattern: '^[0-9a-f]{64}$' })],
        responses: {
          '200': json('Removed', { type: 'object', required: ['success'], properties: { success: { const: true } } }),
          '401': failure('Missing or wrong upload token', 'UNAUTHORIZED'),
          '404': failure('Not a SHA-256', 'NOT_FOUND'),
          '503': storageDown,
        },
      },
    },
    '/pkg/{sha256}/{file}': {
      get: {
        operationId: 'getPackage', tags: ['packages'], security: [],
        summary: 'A package, immutable; one byte range per request (Range, If-Range) so downloads resume',
        parameters: [
          pathParam('sha256', '64 lower-case hex digits', { type: 'string', pattern: '^[0-9a-f]{64}$' }),
          pathParam('file', 'The name to save it as, ending in .zip (any: the hash alone selects the file)'),
        ],
        responses: {
          '200': media('The ZIP (Content-Disposition: attachment)', 'application/zip'),
          '206': media('The requested byte range (Content-Range)', 'application/zip'),
          ...redirected,
          ...cached,
          '404': failure('No such package', 'NOT_FOUND'),
          '410': failure('Removed by an administrator', 'GONE'),
          '416': failure('Range not satisfiable (Content-Range: bytes */size)', 'RANGE_NOT_SATISFIABLE'),
          '503': storageDown,
        },
      },
    },
    '/img/{timestamp}/{md5}': {
      get: {
        operationId: 'getImage', tags: ['images'], security: [],
        'x-route': '/img/:timestamp/:file',
        summary: 'The original image, immutable; one byte range per request (Range, If-Range)',
        parameters: imageParams,
        responses: {
          '200': media('The image', 'image/jpeg', 'image/png', 'image/gif', 'image/webp'),
          '206': media('The requested byte range (Content-Range)', 'image/jpeg', 'image/png', 'image/gif', 'image/webp'),
          ...redirected, ...cached,
          '404': text('Image not found'),
          '416': text('Range not satisfiable (Content-Range: bytes */size)'),
          '503': storageDown,
        },
      },
    },
    '/img/{timestamp}/{md5}.webp': {
      get: {
        operationId: 'getImagePreview', tags: ['images'], security: [],
        'x-route': '/img/:timestamp/:file',
        summary: 'WebP preview, made on first request and kept; one byte range per request (Range, If-Range)',
        parameters: imageParams,
        responses: {
          '200': media('The WebP', 'image/webp'),
          '206': media('The requested byte range (Content-Range)', 'image/webp'),
          ...redirected, ...cached,
          '404': text('Image not found'),
          '416': failure('Range not satisfiable (Content-Range: bytes */size)', 'RANGE_NOT_SATISFIABLE'),
          '500': text('Error converting image'),
          '503': busy,
        },
      },
    },
    '/img/{path}': {
      get: {
        operationId: 'getUnknownImagePath', tags: ['images'], security: [],
        'x-route': '/img/*',
        summary: 'Any other shape under /img',
        parameters: [pathParam('path', 'Anything else')],
        responses: { '404': text('Image not found') },
      },
    },
    '/SF': { get: { operationId: 'getIconPage', tags: ['icons'], security: [], summary: 'Icon search page', responses: { '200': media('HTML page', 'text/html'), ...cached, '414': targetTooLong } } },
    '/static/sf/{path}': {
      get: {
        operationId: 'getIconPageFile', tags: ['icons'], security: [],
        'x-route': '/static/sf/*',
        summary: 'Assets of the icon page',
        parameters: [pathParam('path', 'Asset path')],
        responses: { '200': media('The file', '*/*'), ...cached, '404': failure('No such asset', 'NOT_FOUND') },
      },
    },
    '/SF/{name}': {
      get: {
        operationId: 'getIcon', tags: ['icons'], security: [],
        'x-route': '/SF/*',
        summary: 'An icon as SVG or PNG (SF Symbols names through the alias table)',
        parameters: [
          pathParam('name', 'Letters, digits, `.`, `_`, `-`'),
          queryParam('color', 'CSS colour name or hex of 3, 4, 6 or 8 digits (with or without #); default black'),
          queryParam('png', 'true or 1: PNG'),
          queryParam('size', 'PNG width, 16-1024', { type: 'integer', minimum: 16, maximum: 1024 }),
        ],
        responses: {
          '200': media('The icon', 'image/svg+xml', 'image/png'),
          ...cached,
          '400': text('Invalid color (or size)'),
          '404': text('Icon not found'),
          '500': text('Error processing icon'),
          '503': busy,
        },
      },
    },
    '/SFs/{file}': {
      get: {
        operationId: 'getIconFile', tags: ['icons'], security: [],
        'x-route': '/SFs/*',
        summary: 'An icon file unchanged',
        parameters: [pathParam('file', 'name.svg')],
        responses: { '200': media('The SVG', 'image/svg+xml'), ...cached, '404': text('Icon not found') },
      },
    },
    '/api/svg_files': {
      get: {
        operationId: 'listIconFiles', tags: ['icons'], security: [],
        summary: 'Icon file names, sorted',
        responses: { '200': json('Names', { type: 'array', items: { type: 'string', pattern: '\\.svg$' } }), ...cached, '414': targetTooLong, '500': text('Unable to scan directory') },
      },
    },
    '/api/svg_aliases': {
      get: {
        operationId: 'listIconAliases', tags: ['icons'], security: [], summary: 'SF Symbols names in use and their files, sorted', responses: { '200': json('Aliases', { type: 'object', additionalProperties: { type: 'string' } }), ...cached, '414': targetTooLong } },
    },
  },
} as const;
