import type { Sql } from '../../../db/pool.js';
import { runNamed } from '../../../db/queries.js';
import { pluginRowOf, type PluginRow } from './records.js';
import { PLUGIN_ID } from './visibility.js';

/** One plugin_records row by id (case-insensitive), whoever may see it; null when absent. */
export async function findPluginRecord(sql: Sql, id: string): Promise<PluginRow | null> {
  if (!PLUGIN_ID.test(id)) return null;
  const [row] = await runNamed(sql, 'store/find-plugin-record', { plugin_id: id });
  return row === undefined ? null : pluginRowOf(row);
}
