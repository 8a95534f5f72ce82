-- User $1's webhook, without its secret.
-- params: $1 user_id
select url, created_at, updated_at from webhooks where user_id = $1
