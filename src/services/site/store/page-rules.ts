import { MAX_IMAGE_BYTES } from '../images/limits.js';
import { MAX_CHANGELOG } from './versions/limits.js';
import { EDITABLE_FIELDS, type EditableField } from './records.js';
import { LIMITS } from './validation.js';

// The plugin fields and their limits have one source, the server's rules
// (store/records.ts, store/validation.ts): the pages get them at render time, as
// a JSON data block their scripts read (lib.js: RULES) and as the `maxlength` of
// the form's inputs (`{{$limit.name}}` in submit.html).

export interface PageRules {
  /** The editable plugin fields, in the order the forms and the review show them. */
  fields: readonly EditableField[];
  maxLength: Record<string, number>;
  maxScreenshots: number;
  maxImageBytes: number;
  maxTags: number;
  maxTagLength: number;
}

export const PAGE_RULES: PageRules = Object.freeze({
  fields: EDITABLE_FIELDS,
  maxLength: { name: LIMITS.name, version: LIMITS.version, author: LIMITS.author, description: LIMITS.description, longDescription: LIMITS.longDescription, changelog: MAX_CHANGELOG },
  maxScreenshots: LIMITS.screenshots,
  maxImageBytes: MAX_IMAGE_BYTES,
  maxTags: LIMITS.tags.maxItems,
  maxTagLength: LIMITS.tags.maxLength,
});

/** `limit.<field>` for each text limit, as page templates name them. */
export function limitValues(rules: PageRules): Record<string, string> {
  return Object.fromEntries(Object.entries(rules.maxLength).map(([field, max]) => [`limit.${field}`, String(max)]));
}
