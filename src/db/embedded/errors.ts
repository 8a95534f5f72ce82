/**
 * A failure of the embedded PostgreSQL that the person starting the project can
 * fix: its message is one line saying what failed and what to do, printed as is
 * (no stack trace) by the entrypoints.
 */
export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

/** The start-up was interrupted by a signal: not a failure, nothing to print. */
export class StartAborted extends Error {
  override name = 'StartAborted';
  constructor() {
    super('start-up interrupted');
  }
}

/** "EACCES" -> "permission denied", for the one-line messages. */
export function describeSystemError(error: unknown): string {
  const code = (error as { code?: string } | undefined)?.code;
  const known: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    ENOENT: 'no such file',
    ENOEXEC: 'not an executable for this system',
    ENOSPC: 'no space left on the device',
    EROFS: 'read-only file system',
  };
  if (code && known[code]) return `${known[code]} (${code})`;
  return error instanceof Error ? error.message : String(error);
}
