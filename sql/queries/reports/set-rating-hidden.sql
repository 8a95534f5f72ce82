-- Hides ($3 true) or shows ($3 false) user $2's rating of plugin $1; the star
-- trigger moves the plugin's counts in the same statement. Returns the value before
-- (no row: no such rating).
update plugin_ratings r
   set hidden = $3
  from plugin_ratings old
 where r.plugin_id = $1 and r.user_id = $2::bigint
   and old.plugin_id = r.plugin_id and old.user_id = r.user_id
returning old.hidden as was_hidden
