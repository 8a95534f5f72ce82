-- Plugins as the API shows them (with long_description), by their exact ids $1 (as a
-- list answered them): the review queue's details in one round trip (include=review).
-- params: $1 plugin_ids
select *
  from plugin_records
 where id = any($1::text[])
