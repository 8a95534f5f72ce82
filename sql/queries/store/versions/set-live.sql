-- Plugin $1 (locked) goes live with version $2, file $3, hash $4 (an earlier approved
-- version, after the live one was withdrawn or removed).
-- params: $1 plugin_id, $2 version, $3 download, $4 sha256
update plugins set version = $2, download = $3, sha256 = $4, updated_at = now()
 where id = $1
