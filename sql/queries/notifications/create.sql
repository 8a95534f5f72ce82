-- One notification of kind $2 about plugin $3 by actor $4 (users.id) with message
-- $5 for each of users $1 (bigint[]), once each, never for the actor themself.
insert into notifications (user_id, kind, plugin_id, actor_id, message)
select distinct recipient, $2, $3, $4::bigint, $5
  from unnest($1::bigint[]) as recipient
 where recipient is distinct from $4::bigint
