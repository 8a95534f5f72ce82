-- Version $2 of plugin $1 (exact id, whose row the caller locked first), locked for a
-- withdrawal or removal in this transaction.
-- params: $1 plugin_id, $2 version
select version, sha256, download, status
  from plugin_versions
 where plugin_id = $1 and version = $2
   for update
