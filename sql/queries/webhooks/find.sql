-- User $1's webhook, without its secret.
select url, created_at, updated_at from webhooks where user_id = $1
