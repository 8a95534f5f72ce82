-- Administrators' actions (src/site/audit): who, what, when, and the before/after
-- of the fields the action changed, written in the same transaction as the action.
-- Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE whoever asks (table
-- owners included, which REVOKE alone would not stop). No foreign keys on purpose:
-- the record outlives a deleted user or plugin, so the actor's name is kept too.
create table audit_log (
  id bigint generated always as identity primary key,
  actor_id bigint not null,
  actor_name text not null,
  action text not null check (char_length(action) between 1 and 64),
  target_type text not null check (target_type in ('plugin', 'rating', 'report')),
  target_plugin text,
  target_user text,
  before jsonb not null default '{}',
  after jsonb not null default '{}',
  at timestamptz not null default now()
);
-- The pages: all entries newest first, or those of one plugin, or of one actor.
create index audit_log_plugin on audit_log (lower(target_plugin), id desc) where target_plugin is not null;
create index audit_log_actor on audit_log (actor_id, id desc);

create function audit_log_refuse_change() returns trigger language plpgsql as $$
begin
  raise exception 'audit_log is append-only (% refused)', tg_op using errcode = 'insufficient_privilege';
end
$$;
create trigger audit_log_append_only before update or delete on audit_log
  for each row execute function audit_log_refuse_change();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function audit_log_refuse_change();
revoke update, delete, truncate on audit_log from public;
