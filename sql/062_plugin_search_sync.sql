-- plugin_search's trigger (sql/060), two corrections:
-- - New name words go in in word order: two transactions adding the same two new
--   words in opposite orders could otherwise wait on each other (a deadlock).
-- - Only inserts and renames look at the words; an install click or a rating
--   (most updates) no longer probes plugin_name_words.
create or replace function store_sync_plugin_search() returns trigger
language plpgsql as $$
declare
  changed plugins[];
  named plugins[];
begin
  if tg_op = 'INSERT' then
    select array_agg(n) into changed from inserted n;
    named := changed;
  else
    -- Only rows whose searched or sorted fields changed (not, say, a new icon).
    select array_agg(n), array_agg(n) filter (where n.name is distinct from o.name) into changed, named
      from updated n join previous o on o.id = n.id
     where (n.status, n.submitter_id, n.featured, n.install_count, n.rating_score, n.updated_at,
            n.name, n.author, n.description, n.tags)
           is distinct from
           (o.status, o.submitter_id, o.featured, o.install_count, o.rating_score, o.updated_at,
            o.name, o.author, o.description, o.tags);
  end if;
  if changed is null then
    return null;
  end if;
  insert into plugin_search
  select * from store_search_rows(changed)
  on conflict (id) do update set
    status = excluded.status, submitter_id = excluded.submitter_id, featured = excluded.featured,
    install_count = excluded.install_count, rating_score = excluded.rating_score,
    updated_at = excluded.updated_at, id_lower = excluded.id_lower, name_lower = excluded.name_lower,
    author_lower = excluded.author_lower, tags_lower = excluded.tags_lower, name_words = excluded.name_words,
    name_word_list = excluded.name_word_list, search_key = excluded.search_key,
    search_words = excluded.search_words;
  if named is not null then
    insert into plugin_name_words (word)
    select distinct word
      from unnest(named) as p, unnest(string_to_array(btrim(store_name_words(p.name)), ' ')) as word
     where word <> ''
     order by word
    on conflict do nothing;
  end if;
  return null;
end
$$;
