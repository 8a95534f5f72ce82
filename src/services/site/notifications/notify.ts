import type { Sql } from '../../../db/pool.js';
import { runNamed } from '../../../db/queries.js';

// Writing notifications, in the transaction of the event they tell about, so a
// notification exists exactly when its event happened.

export const NOTIFICATION_KINDS = ['review.approved', 'review.rejected', 'update.approved', 'update.rejected', 'rating.created', 'reply.created', 'report.resolved', 'package.changed'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Longest message kept (the database holds the same limit); a longer reason is cut. */
export const MAX_MESSAGE = 2000;

export interface Notice {
  /** users.id of each recipient; duplicates and the actor are dropped. */
  recipients: string[];
  kind: NotificationKind;
  plugin: string | null;
  /** users.id of who caused it. */
  actorId: string;
  message: string;
}

export async function notify(tx: Sql, notice: Notice): Promise<void> {
  if (notice.recipients.length === 0) return;
  const message = [...notice.message].length > MAX_MESSAGE ? [...notice.message].slice(0, MAX_MESSAGE - 1).join('') + '…' : notice.message;
  await runNamed(tx, 'notifications/create', { recipients: notice.recipients, kind: notice.kind, plugin_id: notice.plugin, actor_id: notice.actorId, message });
}
