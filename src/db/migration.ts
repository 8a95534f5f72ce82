/**
 * One file of sql/ as the runner reads it: its number, its name, its text and the
 * SHA-256 of that text (recorded in schema_migrations; sql/released.sha256 for the
 * released ones). Its own file so that the runner (migrate.ts), the released list
 * (released.ts) and the pre-release carry-over (pre-release-chain.ts) share it
 * without importing each other in a circle.
 */
export interface Migration {
  version: number;
  name: string;
  text: string;
  checksum: string;
}
