-- A local account by its name, any case, with its password hash.
-- params: $1 username
-- not null: password_hash
select id, username, password_hash
from users
where lower(username) = lower($1) and password_hash is not null
