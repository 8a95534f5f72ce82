-- One audit entry, inside the transaction of the action it records.
-- Parameters: $1 actor (users.id), $2 actor's username, $3 action, $4 target type,
-- $5 target plugin id or null, $6 target user (username) or null, $7 before (JSON
-- text), $8 after (JSON text).
-- params: $1 actor_id, $2 actor, $3 action, $4 target_type, $5 target_plugin, $6 target_user, $7 before, $8 after
insert into audit_log (actor_id, actor_name, action, target_type, target_plugin, target_user, before, after)
values ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8::text::jsonb)
returning id
