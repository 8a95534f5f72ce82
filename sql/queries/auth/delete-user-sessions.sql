delete from sessions where user_id = $1
