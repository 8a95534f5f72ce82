-- Ends the hold of number $2 of plugin $1 (exact id) that ends at $3 (its
-- held_until, reserve-version.sql): an upload that failed lets go of its own hold,
-- never of a later one that took over after its own expired. $3 is read as text
-- first: postgres.js would turn a timestamptz parameter into a JavaScript Date,
-- which keeps milliseconds only.
-- params: $1 plugin_id, $2 version, $3 held_until
delete from version_reservations where plugin_id = $1 and version = $2 and expires_at = $3::text::timestamptz
