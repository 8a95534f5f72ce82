import type { Sample } from '../http/metrics/exposition.js';
import { POOL_SIZE } from './pool.js';

// How much of this process's PostgreSQL pool is in use, for /metrics. postgres.js
// keeps its connection queues private, so the counting is ours: runQuery and
// inTransaction (queries.ts) add one while a query or a transaction is under way
// (waiting for a connection included) and take it back when it settles.

export const poolUse = {
  /** Named queries under way outside a transaction (each holds or waits for a connection). */
  queries: 0,
  /** Transactions under way (each holds or waits for one connection for its whole length). */
  transactions: 0,
};

export function poolUseMetrics(): Sample[] {
  return [
    { name: 'site_db_pool_size', help: 'Connections this process may open to PostgreSQL', type: 'gauge', value: POOL_SIZE },
    { name: 'site_db_queries_in_flight', help: 'Queries outside transactions under way or waiting for a connection', type: 'gauge', value: poolUse.queries },
    { name: 'site_db_transactions_in_flight', help: 'Transactions under way or waiting for a connection', type: 'gauge', value: poolUse.transactions },
  ];
}
