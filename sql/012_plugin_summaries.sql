-- A plugin as lists show it: plugin_records without the long description, which
-- can be 20,000 characters and is for the detail page.
create view plugin_summaries as
select id, submitter_id, submitter, name, version, author, description, download, sha256, url, icon, tags,
       permissions, screenshots, status, featured, install_count, rating_count, rating_sum, rating_score,
       review_action, review_reason, reviewed_at, created_at, updated_at,
       pending_changed, pending_name, pending_version, pending_author, pending_description,
       pending_long_description, pending_download, pending_sha256, pending_url, pending_icon, pending_tags,
       pending_permissions, pending_screenshots, pending_submitted_at
  from plugin_records;
