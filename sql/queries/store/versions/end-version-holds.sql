-- Ends every hold of number $2 of plugin $1 (exact id), in the transaction that
-- inserts that version: once used, the number is refused by plugin_versions itself.
-- params: $1 plugin_id, $2 version
delete from version_reservations where plugin_id = $1 and version = $2
