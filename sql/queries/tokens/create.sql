-- A personal API token; only its hash is kept, and the prefix shown in lists.
-- params: $1 user_id, $2 token_hash, $3 name, $4 scopes, $5 prefix, $6 lifetime_days
-- not null: id
insert into api_tokens (user_id, token_hash, name, scopes, prefix, expires_at)
values ($1, $2, $3, $4::text[], $5, now() + make_interval(days => $6::int))
returning id::text as id, name, scopes, prefix, created_at, expires_at, last_used_at
