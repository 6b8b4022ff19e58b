-- One sorted line per catalog fact of the user schemas: tables, columns,
-- constraints, indexes, functions (with bodies), triggers, event triggers,
-- views, sequences, policies, owners and privileges. Two databases with the
-- same snapshot have the same schema for every purpose the engine cares about.
-- ACLs are normalised (NULL = the type's default ACL, elements sorted): pg_dump
-- omits a default ACL and may reorder grants, which changes nothing.
\pset format unaligned
\pset tuples_only on
with ns as (
  select oid, nspname from pg_namespace
  where nspname not in ('pg_catalog', 'information_schema', 'graphile_migrate', 'pg_toast')
    and nspname not like 'pg_temp_%' and nspname not like 'pg_toast_temp_%'
), ext_objs as (
  select objid from pg_depend where deptype = 'e'
), facts as (
  select 'schema ' || n.nspname || ' owner=' || pg_get_userbyid(n.nspowner) || ' acl=' || (select string_agg(a::text, ',' order by a::text) from unnest(coalesce(n.nspacl, acldefault('n', n.nspowner))) a) as fact
  from pg_namespace n join ns using (oid)
  union all
  select 'extension ' || extname from pg_extension where extname <> 'plpgsql'
  union all
  select 'relation ' || ns.nspname || '.' || c.relname || ' kind=' || c.relkind::text
         || ' owner=' || pg_get_userbyid(c.relowner) || ' acl=' || (select string_agg(a::text, ',' order by a::text) from unnest(coalesce(c.relacl, acldefault(case when c.relkind = 'S' then 's' else 'r' end::"char", c.relowner))) a)
         || ' rls=' || c.relrowsecurity || ' persistence=' || c.relpersistence::text
  from pg_class c join ns on ns.oid = c.relnamespace
  where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f') and c.oid not in (select objid from ext_objs)
  union all
  select 'column ' || ns.nspname || '.' || c.relname || '.' || a.attname
         || ' type=' || format_type(a.atttypid, a.atttypmod) || ' notnull=' || a.attnotnull
         || ' default=' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
         || ' identity=' || a.attidentity::text || ' generated=' || a.attgenerated::text
         || ' collation=' || coalesce((select collname from pg_collation where oid = a.attcollation and a.attcollation <> 100), '')
         || ' acl=' || coalesce((select string_agg(a::text, ',' order by a::text) from unnest(a.attacl) a), '')
  from pg_attribute a
  join pg_class c on c.oid = a.attrelid
  join ns on ns.oid = c.relnamespace
  left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
  where a.attnum > 0 and not a.attisdropped and c.relkind in ('r', 'p', 'v', 'm', 'f')
    and c.oid not in (select objid from ext_objs)
  union all
  select 'constraint ' || ns.nspname || '.' || c.relname || '.' || con.conname || ' ' || pg_get_constraintdef(con.oid)
  from pg_constraint con join pg_class c on c.oid = con.conrelid join ns on ns.oid = c.relnamespace
  union all
  select 'index ' || pg_get_indexdef(i.indexrelid)
  from pg_index i join pg_class c on c.oid = i.indrelid join ns on ns.oid = c.relnamespace
  union all
  select 'view ' || ns.nspname || '.' || c.relname || ' ' || pg_get_viewdef(c.oid)
  from pg_class c join ns on ns.oid = c.relnamespace where c.relkind in ('v', 'm')
  union all
  select 'function ' || ns.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')'
         || ' kind=' || p.prokind::text
         || ' returns=' || coalesce(pg_get_function_result(p.oid), '')
         || ' args=' || pg_get_function_arguments(p.oid)
         || ' volatile=' || p.provolatile::text || ' secdef=' || p.prosecdef || ' strict=' || p.proisstrict
         || ' parallel=' || p.proparallel::text || ' lang=' || l.lanname
         || ' config=' || coalesce(p.proconfig::text, '') || ' owner=' || pg_get_userbyid(p.proowner)
         || ' acl=' || (select string_agg(a::text, ',' order by a::text) from unnest(coalesce(p.proacl, acldefault('f', p.proowner))) a) || ' md5=' || md5(p.prosrc)
  from pg_proc p join ns on ns.oid = p.pronamespace join pg_language l on l.oid = p.prolang
  where p.oid not in (select objid from ext_objs)
  union all
  select 'trigger ' || pg_get_triggerdef(t.oid) || ' enabled=' || t.tgenabled::text
  from pg_trigger t join pg_class c on c.oid = t.tgrelid join ns on ns.oid = c.relnamespace
  where not t.tgisinternal
  union all
  select 'event_trigger ' || e.evtname || ' on=' || e.evtevent || ' fn=' || e.evtfoid::regproc::text
         || ' tags=' || coalesce(e.evttags::text, '') || ' enabled=' || e.evtenabled::text
  from pg_event_trigger e
  union all
  select 'policy ' || schemaname || '.' || tablename || '.' || policyname || ' ' || cmd || ' '
         || array_to_string(roles, ',') || ' using=' || coalesce(qual, '') || ' check=' || coalesce(with_check, '')
  from pg_policies where schemaname not in ('graphile_migrate')
  union all
  select 'default_acl ' || coalesce(pg_get_userbyid(defaclrole), '') || ' ' || defaclobjtype::text || ' ' || (select string_agg(a::text, ',' order by a::text) from unnest(defaclacl) a)
  from pg_default_acl
)
select fact from facts order by fact collate "C";
