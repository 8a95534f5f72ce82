-- Claims the author's notification of user $2's new rating of plugin $1: a row when
-- none was sent for this rater and plugin in the last day (and marks it sent now),
-- none otherwise. One statement, so concurrent re-ratings claim it once.
-- params: $1 plugin_id, $2 user_id
insert into rating_notices as sent (plugin_id, user_id)
values ($1, $2::bigint)
on conflict (plugin_id, user_id) do update
   set notified_at = now()
 where sent.notified_at <= now() - interval '1 day'
returning true as claimed
