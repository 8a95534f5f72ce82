select id, username, password_hash
from users
where lower(username) = lower($1) and password_hash is not null
