-- A new open report by user $1 of plugin $2 (exact id) or, with $3, of user $3's
-- rating of it: reason $4, note $5. No row when the reporter already has an open
-- report of this target (reports_one_open): the caller answers 409.
-- params: $1 reporter_id, $2 plugin_id, $3 rating_user_id, $4 reason, $5 note
insert into reports (reporter_id, target_type, plugin_id, rating_user_id, reason, note)
values ($1, case when $3::bigint is null then 'plugin' else 'rating' end, $2, $3::bigint, $4, $5)
on conflict (reporter_id, plugin_id, coalesce(rating_user_id, 0)) where status = 'open' do nothing
returning id, status, created_at
