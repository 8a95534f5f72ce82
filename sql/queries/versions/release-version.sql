-- Ends the hold of number $2 of plugin $1 (exact id): the upload that took it was
-- inserted (in the insert's transaction) or failed.
-- params: $1 plugin_id, $2 version
delete from version_reservations where plugin_id = $1 and version = $2
