import { validationFailed } from '../../../http/errors.js';
import { objectBody } from '../../../http/json-body.js';
import { text } from '../text-rules.js';
import { MAX_USERNAME_LENGTH } from '../auth/usernames.js';
import { PLUGIN_ID } from '../store/visibility.js';

// The bodies of POST /apps/api/reports and POST /apps/api/reports/:id/resolve.
// The database holds the same limits (sql/006_tokens_audit_reports_notifications_webhooks.sql).

export const REPORT_REASONS = ['malware', 'broken', 'spam', 'abuse', 'copyright', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];
export const MAX_REPORT_NOTE = 500;
export const RESOLUTIONS = ['dismiss', 'hide-rating', 'unlist'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];
export const MAX_RESOLUTION_REASON = 1000;

export interface ReportInput {
  plugin: string;
  /** The rater, for a report of a rating. */
  ratingUser: string | null;
  reason: ReportReason;
  note: string;
}



export function parseReport(body: unknown): ReportInput {
  const { target, reason, note } = objectBody(body, 'with target, reason and note');
  if (typeof target !== 'object' || target === null || Array.isArray(target)) throw validationFailed('target', 'target must be {type: "plugin", plugin} or {type: "rating", plugin, user}');
  const { type, plugin, user } = target as Record<string, unknown>;
  if (type !== 'plugin' && type !== 'rating') throw validationFailed('target.type', 'target.type must be "plugin" or "rating"');
  if (typeof plugin !== 'string' || !PLUGIN_ID.test(plugin)) throw validationFailed('target.plugin', 'target.plugin must be a plugin id');
  let ratingUser: string | null = null;
  // text(): a string of 1 to 64 characters without NUL (which PostgreSQL text cannot hold).
  if (type === 'rating') ratingUser = text('target.user', user, 1, MAX_USERNAME_LENGTH);
  if (typeof reason !== 'string' || !(REPORT_REASONS as readonly string[]).includes(reason)) {
    throw validationFailed('reason', `reason must be one of ${REPORT_REASONS.join(', ')}`);
  }
  const cleanNote = note === undefined || note === null ? '' : text('note', note, 0, MAX_REPORT_NOTE).trim();
  return { plugin, ratingUser, reason: reason as ReportReason, note: cleanNote };
}

export function parseResolution(body: unknown): { action: Resolution; reason: string | null } {
  const { action, reason } = objectBody(body, 'with action and reason');
  if (typeof action !== 'string' || !(RESOLUTIONS as readonly string[]).includes(action)) {
    throw validationFailed('action', `action must be one of ${RESOLUTIONS.join(', ')}`);
  }
  if (reason === undefined || reason === null) return { action: action as Resolution, reason: null };
  const trimmed = text('reason', reason, 0, MAX_RESOLUTION_REASON).trim();
  return { action: action as Resolution, reason: trimmed === '' ? null : trimmed };
}
