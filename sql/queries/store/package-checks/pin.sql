-- Approval pins what was checked: the live record's sha256 becomes the checked
-- file's, when the download approved is the one checked.
-- params: $1 plugin_id, $2 sha256, $3 download
update plugins
   set sha256 = $2
 where id = $1 and download = $3 and sha256 is distinct from $2
