-- The id of the user named $1 (any case).
select id::text as id, username from users where lower(username) = lower($1)
