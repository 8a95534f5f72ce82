/**
 * A JSON object (not null, not an array): what request bodies, provider answers and
 * the launcher configuration must be at their top level.
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
