import { codePointLength, text } from '../../text-rules.js';

// The rule of a version number (the rule of plugins.version): 1-64 characters once
// trimmed, no NUL. An upload's `version` field is checked by it (400 when it fails);
// a `:version` in a path that fails it names no version there can be (404), and is
// never sent to PostgreSQL, which cannot hold a NUL.

const MAX_VERSION = 64;

/** The version field of an upload, trimmed: 400 VALIDATION_FAILED (field "version") when it breaks the rule. */
export function versionField(value: unknown): string {
  return text('version', typeof value === 'string' ? value.trim() : value, 1, MAX_VERSION);
}

/** Whether `value`, as it stands, could be a stored version number (a route's `:version`). */
export function couldBeVersion(value: string): boolean {
  if (value.length === 0 || value.length > MAX_VERSION * 2 || value.includes('\u0000') || value.trim() !== value) return false;
  return codePointLength(value) <= MAX_VERSION;
}
