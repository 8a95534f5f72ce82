// What a personal API token may do. Everything else on the site stays
// session-only: a route accepts a token only by naming one of these in its guard
// (guards.userOrToken in src/services/site/auth/guards.ts).

export const TOKEN_SCOPES = ['plugins:write', 'media:upload'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

export function isTokenScope(value: unknown): value is TokenScope {
  return typeof value === 'string' && (TOKEN_SCOPES as readonly string[]).includes(value);
}
