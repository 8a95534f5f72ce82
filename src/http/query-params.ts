import { badRequest } from './errors.js';

// Query parameters a client got wrong are a malformed query: 400 BAD_REQUEST
// (docs/api.md, "Conventions"), naming the parameter in `field`. VALIDATION_FAILED is kept for the
// field rules of JSON bodies.

/** The one value of `name`, or undefined; a repeated parameter is ambiguous, hence refused. */
export function singleParam(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw badRequest(`${name} may be given once`, name);
  return values[0];
}

/** A whole number from `min` to `max` (decimal digits only); absent or empty gives `fallback`. */
export function integerParam(query: URLSearchParams, name: string, range: { fallback: number; min: number; max: number }): number {
  const value = singleParam(query, name);
  if (value === undefined || value === '') return range.fallback;
  // At most 9 digits: anything longer is over every max we use, and stays a safe integer.
  const number = /^\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!(number >= range.min && number <= range.max)) {
    throw badRequest(`${name} must be a whole number from ${range.min} to ${range.max}`, name);
  }
  return number;
}

/**
 * The query of a request to a service that stores what it is given (the site's
 * ctx.query, through createApp's parseQuery). A NUL in a name or value is 400
 * BAD_REQUEST naming the parameter, for every route at once: PostgreSQL cannot hold
 * it, so a handler passing it to a query answered 500 (audit's ?user=a%00b did).
 */
export function storableQuery(raw: string): URLSearchParams {
  const query = new URLSearchParams(raw);
  // A NUL only arrives as %00 (URLSearchParams decodes invalid UTF-8 to U+FFFD, and
  // Node refuses a raw NUL in the request line): most queries are not walked.
  if (raw.includes('%00')) {
    for (const [name, value] of query) {
      if (name.includes('\u0000')) throw badRequest('Query parameter names must not contain NUL characters');
      if (value.includes('\u0000')) throw badRequest(`${name} must not contain NUL characters`, name);
    }
  }
  return query;
}
