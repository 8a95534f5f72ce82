-- Who may see plugin $1 (case-insensitive id): see src/services/site/store/visibility.ts.
-- params: $1 plugin_id
-- not null: submitter_id
select id, status, submitter_id::text as submitter_id
  from plugins
 where lower(id) = lower($1)
