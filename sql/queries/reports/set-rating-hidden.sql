-- Hides ($3 true) or shows ($3 false) user $2's rating of plugin $1, by administrator
-- $4, through its moderation record (sql/003_ratings.sql), which outlives
-- the rating. Returns whether it was hidden before; no row when showing a rater with
-- neither a rating nor a record.
-- params: $1 plugin_id, $2 rating_user_id, $3 hidden, $4 admin_id
-- not null: was_hidden
select was_hidden from set_rating_hidden($1, $2::bigint, $3, $4::bigint)
