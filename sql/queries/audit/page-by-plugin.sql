-- A page of plugin $3's audit entries (id in any case), newest first, and their
-- total, in one row. Parameters: $1 limit, $2 offset, $3 plugin id. Index: audit_log_plugin.
select (select count(*) from audit_log a where lower(a.target_plugin) = lower($3)) as total,
       coalesce((select json_agg(entry order by entry.id desc)
                   from (select a.id, a.actor_name, a.action, a.target_type, a.target_plugin, a.target_user,
                                a.before, a.after, a.at
                           from audit_log a where lower(a.target_plugin) = lower($3)
                          order by a.id desc
                          limit $1 offset $2) entry), '[]')::text as entries
