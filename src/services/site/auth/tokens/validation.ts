import { validationFailed } from '../../../../http/errors.js';
import { objectBody } from '../../../../http/json-body.js';
import { DEFAULT_EXPIRES_IN_DAYS, MAX_EXPIRES_IN_DAYS, TOKEN_NAME_MAX } from './limits.js';
import { isTokenScope, TOKEN_SCOPES, type TokenScope } from './scopes.js';

export interface NewToken {
  name: string;
  scopes: TokenScope[];
  expiresInDays: number;
}

/** The body of POST /apps/api/tokens; each bad field is 400 VALIDATION_FAILED naming it. */
export function validateNewToken(input: unknown): NewToken {
  const body = objectBody(input, 'with name and scopes');
  const rawName = body.name;
  if (typeof rawName !== 'string') throw validationFailed('name', 'name is required');
  const name = rawName.trim();
  const length = [...name].length;
  if (length < 1 || length > TOKEN_NAME_MAX || /[\u0000-\u001f\u007f]/.test(name)) {
    throw validationFailed('name', `name must be 1-${TOKEN_NAME_MAX} characters without control characters`);
  }

  const rawScopes = body.scopes;
  if (!Array.isArray(rawScopes) || rawScopes.length === 0 || rawScopes.length > TOKEN_SCOPES.length * 2 || !rawScopes.every(isTokenScope)) {
    throw validationFailed('scopes', `scopes must be a non-empty list of: ${TOKEN_SCOPES.join(', ')}`);
  }
  const scopes = TOKEN_SCOPES.filter((scope) => rawScopes.includes(scope));

  const rawDays = body.expiresInDays;
  const expiresInDays = rawDays === undefined || rawDays === null ? DEFAULT_EXPIRES_IN_DAYS : rawDays;
  if (typeof expiresInDays !== 'number' || !Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > MAX_EXPIRES_IN_DAYS) {
    throw validationFailed('expiresInDays', `expiresInDays must be a whole number of days, 1 to ${MAX_EXPIRES_IN_DAYS}`);
  }
  return { name, scopes, expiresInDays };
}
