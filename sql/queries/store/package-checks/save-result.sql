-- A finished check: its result, and no job left (the schedule arms the next).
-- params: $1 plugin_id, $2 status, $3 sha256, $4 size, $5 entry_count, $6 manifest_json, $7 checks_json, $8 reason
update plugin_package_checks
   set status = $2, sha256 = $3, size = $4, entry_count = $5,
       manifest = $6::text::jsonb, checks = $7::text::jsonb, reason = $8,
       checked_at = now(), due_at = null, claim = null, locked_until = null, attempts = 0
 where plugin_id = $1
