import { HttpError } from '../../../http/errors.js';

// A full disk (or a used-up quota) is not a bug: it has its own status, 507
// (RFC 4918 11.5), so clients and monitoring can tell it from a crash.

const FULL = new Set(['ENOSPC', 'EDQUOT']);

export function isDiskFull(error: unknown): boolean {
  return FULL.has((error as NodeJS.ErrnoException | null)?.code ?? '');
}

export const insufficientStorage = (plain: boolean, cause: unknown) =>
  new HttpError(507, 'INSUFFICIENT_STORAGE', 'Not enough disk space to store the image', { plain, cause });
