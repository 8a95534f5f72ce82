-- Who is told of a download that changed besides its author: every administrator.
-- params: none
-- not null: id
select id::text as id from users where is_admin
