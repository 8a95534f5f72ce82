import { badRequest, validationFailed } from './errors.js';

// PostgreSQL holds neither a NUL character (text refuses the byte, jsonb the \u0000
// escape) nor an unpaired UTF-16 surrogate (jsonb refuses "\ud800"; text gets it
// as U+FFFD, silently). Such input can only come from a client, through a JSON
// escape or a percent-escape, and no field has a use for it: it is refused where
// requests are parsed, once for every route, instead of reaching a query as a 500.

// NUL, or a surrogate that is not one half of a pair.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether `text` holds a NUL or an unpaired surrogate. */
export function isUnstorable(text: string): boolean {
  return UNSTORABLE.test(text);
}

// In JSON text, NUL and surrogates can only be escapes (raw control characters are
// invalid JSON, and invalid UTF-8 was decoded to U+FFFD): bodies without such an
// escape, nearly all, are not walked at all.
const MAYBE_UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/**
 * Refuses a parsed JSON body holding a NUL or an unpaired surrogate in any string or
 * key: 400 VALIDATION_FAILED naming the field (`target.user`; a list is named as a
 * whole, `screenshots`), or BAD_REQUEST when the body itself is such a string.
 * `text` is the JSON as received. The walk keeps its own stack: a body may nest
 * deeper than the call stack.
 */
export function refuseUnstorableJson(text: string, value: unknown): void {
  if (!MAYBE_UNSTORABLE_ESCAPE.test(text)) return;
  const stack: Array<{ value: unknown; field: string; inList: boolean }> = [{ value, field: '', inList: false }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value === 'string') {
      if (isUnstorable(item.value)) throw refusal(item.field);
    } else if (Array.isArray(item.value)) {
      for (const element of item.value) stack.push({ value: element, field: item.field, inList: true });
    } else if (typeof item.value === 'object' && item.value !== null) {
      for (const [key, element] of Object.entries(item.value)) {
        const field = item.inList ? item.field : item.field === '' ? key : `${item.field}.${key}`;
        if (isUnstorable(key)) throw refusal(item.field);
        stack.push({ value: element, field, inList: item.inList });
      }
    }
  }
}

function refusal(field: string) {
  const message = 'must not contain NUL characters or unpaired surrogates';
  return field === '' ? badRequest(`The request body ${message}`) : validationFailed(field, `${field} ${message}`);
}
