-- What the launcher reads of a plugin (issue 31): list and detail records carry
-- `size` (bytes of the live package, null for an outside link) and `min_launcher`
-- (the live version's manifest min_launcher_version, or null), the names the Bloret
-- launcher's store page reads (modules/plugin_store.py normalize_listing); and the
-- update check offers a launcher only a version it can run.

-- A version as the Bloret launcher compares versions (modules/plugin_store.py
-- _version_key): trimmed, lower case, leading v's dropped, split at . + _ -; each
-- part is its first run of digits, or -1 when it has none; missing parts are 0;
-- the first four parts count. So 25.3 = 25.3.0 = v25.3.0.0 < 25.3.1, and
-- 25.4.0-beta.2 (25, 4, 0, -1) < 25.4.0. Arrays of four compare part by part. Only
-- ASCII digits are digits here (Python's \d takes other scripts' digits too).
create function launcher_version_key(value text) returns numeric[]
  language sql immutable strict parallel safe
as $$
  select (array(
    select coalesce(substring(part from '[0-9]+')::numeric, -1)
      from unnest(regexp_split_to_array(
             ltrim(lower(regexp_replace(coalesce(nullif(value, ''), '0'), '^\s+|\s+$', '', 'g')), 'v'),
             '[.+_-]')) with ordinality as parts (part, n)
     order by n) || array[0, 0, 0, 0]::numeric[])[1:4]
$$;

-- The live package is the version the record carries: same plugin, number and
-- file (versions/package-review.ts finds it the same way). A left join on the
-- versions' primary key, so a query that reads neither column does not pay for it
-- (a count); a list reads it by one probe per listed plugin. The views gain the two
-- columns last, as CREATE OR REPLACE VIEW requires.
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
       live.size as live_size, live.manifest ->> 'min_launcher_version' as live_min_launcher
  from plugins p
  left join users submitter on submitter.id = p.submitter_id
  left join plugin_pending_updates pending on pending.plugin_id = p.id
  left join plugin_versions live on live.plugin_id = p.id and live.version = p.version and live.download = p.download;

create or replace view plugin_summaries as
select id, submitter_id, submitter, name, version, author, description, download, sha256, url, icon, tags,
       permissions, screenshots, status, featured, install_count, rating_count, rating_sum, rating_score,
       review_action, review_reason, reviewed_at, created_at, updated_at,
       pending_changed, pending_name, pending_version, pending_author, pending_description,
       pending_long_description, pending_download, pending_sha256, pending_url, pending_icon, pending_tags,
       pending_permissions, pending_screenshots, pending_submitted_at, revision, live_size, live_min_launcher
  from plugin_records;
