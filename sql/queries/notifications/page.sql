-- A page of user $1's notifications, newest first, with the total and the unread
-- count, in one row. Parameters: $1 user, $2 limit, $3 offset.
-- Indexes: notifications_user, notifications_unread.
-- params: $1 user_id, $2 limit, $3 offset
-- not null: total, unread, notifications
select (select count(*) from notifications where user_id = $1) as total,
       (select count(*) from notifications where user_id = $1 and read_at is null) as unread,
       coalesce((select json_agg(entry order by entry.id desc)
                   from (select n.id, n.kind, n.plugin_id, actor.username as actor, n.message,
                                n.read_at is not null as read, n.created_at
                           from notifications n
                           left join users actor on actor.id = n.actor_id
                          where n.user_id = $1
                          order by n.id desc
                          limit $2 offset $3) entry), '[]')::text as notifications
