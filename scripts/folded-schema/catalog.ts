import type { Sql } from '../../src/db/pool.js';

// The schema of a database as PostgreSQL's catalogue states it, one line per
// object, sorted: what pg_dump --schema-only shows, for servers newer than any
// pg_dump at hand (the embedded PostgreSQL ships none). Objects that belong to an
// extension (pg_trgm's functions, operators...) are left to the extension line.
// Column positions count visible columns only, so a column dropped by some
// migration does not shift the ones after it; their order is compared as is.

const DESCRIBE = `
with ns as (select oid from pg_namespace where nspname = 'public'),
     ext_members as (select objid from pg_depend where deptype = 'e')
select 'extension ' || extname || ' ' || extversion as line from pg_extension
union all
select format('relation %s kind=%s persistence=%s options=%s acl=%s', c.relname, c.relkind, c.relpersistence, c.reloptions, c.relacl)
  from pg_class c where c.relnamespace in (select oid from ns) and c.oid not in (select objid from ext_members)
union all
select format('column %s #%s %s %s not_null=%s default=%s generated=%s identity=%s collation=%s',
              c.relname, row_number() over (partition by c.oid order by a.attnum), a.attname,
              format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid),
              a.attgenerated, a.attidentity, a.attcollation)
  from pg_attribute a
  join pg_class c on c.oid = a.attrelid and c.relnamespace in (select oid from ns) and c.relkind in ('r', 'v', 'm', 'p', 'f')
  left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
 where a.attnum > 0 and not a.attisdropped
union all
select format('constraint %s on %s: %s deferrable=%s deferred=%s valid=%s',
              con.conname, coalesce(con.conrelid::regclass::text, con.contypid::regtype::text),
              pg_get_constraintdef(con.oid), con.condeferrable, con.condeferred, con.convalidated)
  from pg_constraint con where con.connamespace in (select oid from ns)
union all
select 'index ' || pg_get_indexdef(i.indexrelid)
  from pg_index i join pg_class c on c.oid = i.indexrelid where c.relnamespace in (select oid from ns)
union all
select format('function %s acl=%s', pg_get_functiondef(p.oid), p.proacl)
  from pg_proc p where p.pronamespace in (select oid from ns) and p.prokind in ('f', 'p')
   and p.oid not in (select objid from ext_members)
union all
select format('trigger %s enabled=%s', pg_get_triggerdef(t.oid), t.tgenabled)
  from pg_trigger t join pg_class c on c.oid = t.tgrelid
 where c.relnamespace in (select oid from ns) and not t.tgisinternal
union all
select format('view %s: %s', c.relname, pg_get_viewdef(c.oid))
  from pg_class c where c.relnamespace in (select oid from ns) and c.relkind in ('v', 'm')
union all
select format('type %s kind=%s base=%s not_null=%s default=%s', t.typname, t.typtype,
              format_type(t.typbasetype, t.typtypmod), t.typnotnull, t.typdefault)
  from pg_type t where t.typnamespace in (select oid from ns) and t.typtype in ('d', 'e', 'c')
   and t.typrelid = 0 and t.oid not in (select objid from ext_members)
union all
select format('sequence %s %s start=%s increment=%s min=%s max=%s cache=%s cycle=%s',
              s.sequencename, s.data_type, s.start_value, s.increment_by, s.min_value, s.max_value, s.cache_size, s.cycle)
  from pg_sequences s where s.schemaname = 'public'
union all
select format('policy %s on %s', pol.polname, pol.polrelid::regclass) from pg_policy pol
union all
select format('rule %s on %s: %s', r.rulename, c.relname, pg_get_ruledef(r.oid))
  from pg_rewrite r join pg_class c on c.oid = r.ev_class
 where c.relnamespace in (select oid from ns) and c.relkind not in ('v', 'm')`;

/** One line per object of the public schema, and one per table for its rows, sorted. */
export async function catalogDescription(sql: Sql): Promise<string[]> {
  const lines = (await sql.unsafe(DESCRIBE)).map((row) => String(row.line));
  const tables = await sql<{ name: string }[]>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind = 'r' and c.relname <> 'schema_migrations'`;
  for (const { name } of tables) {
    const [row] = await sql.unsafe(
      `select count(*)::int as n, md5(coalesce(string_agg(t::text, e'\\n' order by t::text), '')) as digest from public."${name}" t`);
    lines.push(`rows ${name} ${row!.n} ${row!.digest}`);
  }
  return lines.sort();
}
