-- The screenshots' check called store_link_ok() by a name looked up in the
-- search_path when the check runs. pg_restore (and the SQL pg_dump writes) load
-- rows with an empty search_path, so every plugin with screenshots failed to
-- restore: "function store_link_ok(jsonb) does not exist". A SQL-standard body
-- (begin atomic) is parsed once, here, with its functions bound by reference, so
-- the check runs the same under any search_path; pg_dump also orders it after
-- store_link_ok by that dependency.
create or replace function store_screenshots_ok(items jsonb) returns boolean
language sql immutable parallel safe
begin atomic
  select jsonb_typeof(items) = 'array'
     and jsonb_array_length(items) <= 8
     and not exists (
       select 1 from jsonb_array_elements(items) as shot
        where not (
          store_link_ok(shot)
          or (jsonb_typeof(shot) = 'object'
              and (shot - 'url' - 'webpUrl') = '{}'::jsonb
              and store_link_ok(shot -> 'url')
              and (not shot ? 'webpUrl' or store_link_ok(shot -> 'webpUrl')))));
end;
