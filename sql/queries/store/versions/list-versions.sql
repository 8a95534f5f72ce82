-- The versions of plugin $1 (exact id), newest first: all of them when $2, else the
-- approved ones (what visitors see). $3 caps the list.
-- params: $1 plugin_id, $2 all, $3 limit
-- not null: size
select version, changelog, sha256, size::text as size, download, status, created_at, entry_count
  from plugin_versions
 where plugin_id = $1 and ($2::boolean or status = 'approved')
 order by created_at desc, version desc
 limit $3
