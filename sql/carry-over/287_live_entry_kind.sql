-- The plugin page says what the live package runs (issue 31: "runs inside the
-- launcher", "runs a program", "a page in the launcher"): a plugin's detail carries
-- its live hosted version's entry kind (sql/284), null for an outside link or a
-- version uploaded before manifests were read. Details only (plugin_records, not
-- plugin_summaries); the column goes last, as CREATE OR REPLACE VIEW requires.
create or replace view plugin_records as
select p.id, p.submitter_id, submitter.username as submitter, p.name, p.version, p.author, p.description,
       p.long_description, p.download, p.sha256, p.url, p.icon, p.tags, p.permissions, p.screenshots,
       p.status, p.featured, p.install_count, p.rating_count, p.rating_sum, p.rating_score,
       p.stars_1, p.stars_2, p.stars_3, p.stars_4, p.stars_5,
       p.review_action, p.review_reason, p.reviewed_at, p.created_at, p.updated_at,
       pending.changed as pending_changed, pending.name as pending_name, pending.version as pending_version,
       pending.author as pending_author, pending.description as pending_description,
       pending.long_description as pending_long_description, pending.download as pending_download,
       pending.sha256 as pending_sha256, pending.url as pending_url, pending.icon as pending_icon,
       pending.tags as pending_tags, pending.permissions as pending_permissions,
       pending.screenshots as pending_screenshots, pending.submitted_at as pending_submitted_at,
       greatest(p.revision, pending.revision)::text as revision,
       live.size as live_size, live.manifest ->> 'min_launcher_version' as live_min_launcher,
       live.entry_kind as live_entry_kind
  from plugins p
  left join users submitter on submitter.id = p.submitter_id
  left join plugin_pending_updates pending on pending.plugin_id = p.id
  left join plugin_versions live on live.plugin_id = p.id and live.version = p.version and live.download = p.download;
