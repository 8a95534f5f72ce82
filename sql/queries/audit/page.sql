-- A page of the audit log, newest first, and the total, in one row (one round trip,
-- a total even past the last page). Parameters: $1 limit, $2 offset, $3 plugin id
-- (any case) or null, $4 the acting administrator's username (any case) or null.
-- The filter is written twice, for the count and for the page, so that each walks
-- its index (audit_log_plugin, audit_log_actor, or the primary key up to the page)
-- instead of reading every matching entry whole.
-- params: $1 limit, $2 offset, $3 plugin_id, $4 actor
-- not null: total, entries
select (select count(*) from audit_log a
         where ($3::text is null or lower(a.target_plugin) = lower($3::text))
           and ($4::text is null or a.actor_id = (select u.id from users u where lower(u.username) = lower($4::text)))) as total,
       coalesce((select json_agg(entry order by entry.id desc)
                   from (select a.id, a.actor_name, a.action, a.target_type, a.target_plugin, a.target_user,
                                a.before, a.after, a.at
                           from audit_log a
                          where ($3::text is null or lower(a.target_plugin) = lower($3::text))
                            and ($4::text is null or a.actor_id = (select u.id from users u where lower(u.username) = lower($4::text)))
                          order by a.id desc
                          limit $1 offset $2) entry), '[]')::text as entries
