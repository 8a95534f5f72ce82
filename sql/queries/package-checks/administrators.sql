-- Who is told of a download that changed besides its author: every administrator.
select id::text as id from users where is_admin
