/**
 * A JSON object (not null, not an array): what request bodies, provider answers and
 * the launcher configuration must be at their top level.
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own property only: a key like "constructor" must not come from the prototype. */
export function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}
