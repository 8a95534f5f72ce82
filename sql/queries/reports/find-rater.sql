-- The id of the user named $1 (any case).
-- params: $1 username
-- not null: id
select id::text as id, username from users where lower(username) = lower($1)
