-- The user's live (unexpired) tokens; run after lock-user in the same transaction.
-- params: $1 user_id
-- not null: live
select count(*)::int as live from api_tokens where user_id = $1 and expires_at > now()
