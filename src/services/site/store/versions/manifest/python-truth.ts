// The launcher is Python and decides with Python's truth: `raw.get("id") or
// fallback`, `if contributes.get("nav")`. The same JSON values are falsy here as
// there: null, false, 0, "", [] and {}.

export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}
