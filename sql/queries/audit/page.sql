-- A page of the audit log, newest first, and the total, in one row (one round trip,
-- a total even past the last page). Parameters: $1 limit, $2 offset.
select (select count(*) from audit_log a) as total,
       coalesce((select json_agg(entry order by entry.id desc)
                   from (select a.id, a.actor_name, a.action, a.target_type, a.target_plugin, a.target_user,
                                a.before, a.after, a.at
                           from audit_log a
                          order by a.id desc
                          limit $1 offset $2) entry), '[]')::text as entries
