-- The audit log also records API token creation and revocation (src/site/tokens):
-- a fourth target type, 'token', whose target_user is the token's owner.
alter table audit_log drop constraint audit_log_target_type_check;
alter table audit_log add constraint audit_log_target_type_check check (target_type in ('plugin', 'rating', 'report', 'token'));
