import type postgres from 'postgres';

/**
 * A pool or a transaction of postgres.js, as every query of the app takes it. Its
 * own file so that pool.ts and what the pool attaches (breaker.ts) both name it
 * without importing each other in a circle; pool.ts exports it too.
 */
export type Sql = postgres.Sql<Record<string, never>>;
