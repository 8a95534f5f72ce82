-- Adds or changes user $2's rating of plugin $1: $3 stars, comment $4 (null keeps
-- the current comment, and is '' on a new rating). The trigger on plugin_ratings
-- moves the plugin's star counts in this same statement, under the plugin row's
-- lock, so a ratings page read next in the same transaction is exact.
-- params: $1 plugin_id, $2 user_id, $3 stars, $4 comment
-- not null: created
insert into plugin_ratings as current (plugin_id, user_id, stars, comment)
values ($1, $2::bigint, $3, coalesce($4::text, ''))
on conflict (plugin_id, user_id) do update
   set stars = excluded.stars,
       comment = coalesce($4::text, current.comment),
       updated_at = now()
-- `created`: true for a new rating (xmax is 0 on a row this statement inserted),
-- false for a change of an existing one: only a new one notifies the author, and
-- not a hidden one (a rater an administrator hid: sql/003_ratings.sql).
returning stars, (xmax = 0) as created, hidden
