delete from sessions where token_hash = $1
