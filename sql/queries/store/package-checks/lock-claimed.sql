-- The check a claim fetched, locked for its result, with what decides the status:
-- the hash the record under review gives, and whether this is the live download of
-- an approved plugin (differing bytes are then `changed`). No row: the check was
-- reset (another download, or the plugin gone) since the claim; its result is dropped.
-- params: $1 plugin_id, $2 claim, $3 download
-- not null: submitter_id
select c.plugin_id, c.status, c.expected_sha256, c.sha256,
       (p.status = 'approved' and p.download = c.download) as watching,
       p.submitter_id::text as submitter_id
  from plugin_package_checks c
  join plugins p on p.id = c.plugin_id
 where c.plugin_id = $1 and c.claim = $2 and c.download = $3
   for update of c
