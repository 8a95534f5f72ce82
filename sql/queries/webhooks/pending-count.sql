-- Deliveries waiting (due or backing off), for /metrics. Index: webhook_deliveries_due.
-- params: none
-- not null: pending
select count(*)::int as pending from webhook_deliveries where status = 'pending'
