import { HttpError, validationFailed } from '../../../http/errors.js';
import { objectBody } from '../../../http/json-body.js';
import type { EditableField } from './records.js';
import { EDITABLE_FIELDS } from './records.js';
import { imageLink, type ImageLinkRule } from './image-links.js';
import { httpsUrl, storedHref, text, wordList } from '../text-rules.js';
import { PLUGIN_ID } from './visibility.js';

// The plugin field rules (docs/api.md, "Plugin store"). Each failure is 400
// VALIDATION_FAILED naming its `field`; unknown fields are ignored. The database
// holds the same rules as constraints (sql/002_plugins.sql).

export const LIMITS = {
  name: 100,
  version: 64,
  author: 100,
  description: 500,
  longDescription: 20_000,
  tags: { maxItems: 20, maxLength: 32, foldCase: true },
  permissions: { maxItems: 32, maxLength: 64, foldCase: false },
  screenshots: 8,
} as const;

export type Screenshot = string | { url: string; webpUrl?: string };

export interface PluginFields {
  name: string;
  version: string;
  author: string;
  description: string;
  longDescription: string;
  download: string;
  sha256: string | null;
  url: string | null;
  icon: string | null;
  tags: string[];
  permissions: string[];
  screenshots: Screenshot[];
}

export interface ValidEdit {
  /** The fields the body sets, already normalized. */
  fields: Partial<PluginFields>;
  /** Present only when an administrator set it. */
  featured?: boolean;
}

/** One rule per field; `null` clears an optional field. */
// The download's form as sent is kept only when it also has the shape the database
// holds it to (sql/002_plugins.sql, plugin_download): host, then a path ending in .zip.
const DOWNLOAD_AS_SENT = /^https:\/\/[^/?#@\s]+\/[^?#\s]*\.zip([?#]\S*)?$/i;

const RULES: { [K in EditableField]: (value: unknown, images: ImageLinkRule) => PluginFields[K] } = {
  name: (value) => text('name', trimmed(value), 1, LIMITS.name),
  version: (value) => text('version', trimmed(value), 1, LIMITS.version),
  author: (value) => (value === null ? '' : text('author', trimmed(value), 0, LIMITS.author)),
  description: (value) => (value === null ? '' : text('description', trimmed(value), 0, LIMITS.description)),
  longDescription: (value) => (value === null ? '' : text('longDescription', value, 0, LIMITS.longDescription)),
  download: (value) => {
    const url = httpsUrl('download', value);
    if (!url.pathname.toLowerCase().endsWith('.zip')) throw validationFailed('download', 'download must be a direct link to a .zip file');
    return storedHref(String(value).trim(), url, DOWNLOAD_AS_SENT);
  },
  sha256: (value) => {
    if (isBlank(value)) return null;
    if (typeof value !== 'string' || !/^[0-9a-fA-F]{64}$/.test(value.trim())) {
      throw validationFailed('sha256', 'sha256 must be 64 hexadecimal characters');
    }
    return value.trim().toLowerCase();
  },
  url: (value) => (isBlank(value) ? null : storedHref(String(value).trim(), httpsUrl('url', value))),
  icon: (value, images) => (isBlank(value) ? null : imageLink('icon', value, images)),
  tags: (value) => wordList('tags', value, LIMITS.tags),
  permissions: (value) => wordList('permissions', value, LIMITS.permissions),
  screenshots: (value, images) => screenshots(value, images),
};

const REQUIRED_ON_CREATE: EditableField[] = ['name', 'version', 'download'];

/**
 * POST /apps/api/plugins: the id and every field (defaults for the optional ones).
 * `images`: where image fields may point (image-links.ts), from the site's config.
 */
export function validateNewPlugin(body: unknown, isAdmin: boolean, images: ImageLinkRule): { id: string } & PluginFields & { featured: boolean } {
  const input = objectBody(body, 'of plugin fields');
  if (input.id === undefined || input.id === null || input.id === '') throw validationFailed('id', 'id is required');
  if (typeof input.id !== 'string' || !PLUGIN_ID.test(input.id)) {
    throw validationFailed('id', 'id must be 3 to 128 letters, digits, dots, underscores or hyphens');
  }
  for (const field of REQUIRED_ON_CREATE) {
    if (input[field] === undefined || input[field] === null) throw validationFailed(field, `${field} is required`);
  }
  const edit = validateEdit(input, isAdmin, images);
  return {
    id: input.id,
    name: edit.fields.name!,
    version: edit.fields.version!,
    author: edit.fields.author ?? '',
    description: edit.fields.description ?? '',
    longDescription: edit.fields.longDescription ?? '',
    download: edit.fields.download!,
    sha256: edit.fields.sha256 ?? null,
    url: edit.fields.url ?? null,
    icon: edit.fields.icon ?? null,
    tags: edit.fields.tags ?? [],
    permissions: edit.fields.permissions ?? [],
    screenshots: edit.fields.screenshots ?? [],
    featured: edit.featured ?? false,
  };
}

/** PATCH /apps/api/plugins/:id (and the shared part of POST): the fields the body sets. */
export function validateEdit(body: unknown, isAdmin: boolean, images: ImageLinkRule, currentId?: string): ValidEdit {
  // status, installCount, ratingAvg and ratingCount are the server's: a body naming
  // them (a record read and sent back whole, say) is taken without them, as unknown
  // fields are. Only featured is refused to a non-administrator (403, below).
  const input = objectBody(body, 'of plugin fields');
  if (currentId !== undefined && input.id !== undefined && (typeof input.id !== 'string' || input.id.toLowerCase() !== currentId.toLowerCase())) {
    throw validationFailed('id', 'id cannot be changed');
  }
  const edit: ValidEdit = { fields: {} };
  if (input.featured !== undefined) {
    if (!isAdmin) throw new HttpError(403, 'FORBIDDEN', 'Only administrators can feature plugins');
    if (typeof input.featured !== 'boolean') throw validationFailed('featured', 'featured must be true or false');
    edit.featured = input.featured;
  }
  for (const field of EDITABLE_FIELDS) {
    const value = input[field];
    if (value === undefined) continue;
    (edit.fields as Record<string, unknown>)[field] = RULES[field](value, images);
  }
  return edit;
}



function trimmed(value: unknown): unknown {
  return typeof value === 'string' ? value.trim() : value;
}

function isBlank(value: unknown): boolean {
  return value === null || (typeof value === 'string' && value.trim() === '');
}

function screenshots(value: unknown, images: ImageLinkRule): Screenshot[] {
  if (value === null) return [];
  if (!Array.isArray(value)) throw validationFailed('screenshots', 'screenshots must be a list');
  if (value.length > LIMITS.screenshots) throw validationFailed('screenshots', `screenshots may have at most ${LIMITS.screenshots} entries`);
  return value.map((item): Screenshot => {
    if (typeof item === 'string') return imageLink('screenshots', item, images);
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw validationFailed('screenshots', 'each screenshot is a link or an object with url and webpUrl');
    }
    const shot = item as Record<string, unknown>;
    if (shot.url === undefined || shot.url === null) throw validationFailed('screenshots', 'each screenshot object needs a url');
    const result: Screenshot = { url: imageLink('screenshots', shot.url, images) };
    if (shot.webpUrl !== undefined && shot.webpUrl !== null) result.webpUrl = imageLink('screenshots', shot.webpUrl, images);
    return result;
  });
}
