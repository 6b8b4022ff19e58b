--! Previous: sha1:397df1fc2a617097edd0285309a41f18f8fcd492
--! Hash: sha1:993c9223915095541a8e7957459be1f4b5f68c09
--! Message: Round two of the adversarial pass: the DDL guard covers community columns and the lifecycle guard of communities, keyset lookups walk only base-type keys and domain constraints are owner code for every event, invisible-character and Punycode spellings folded

-- Round two of the adversarial pass (variations of what 000032 closed):
--  * the DDL guard also refuses renaming or dropping a registered table's
--    community column, and anything that weakens public.communities as the
--    lifecycle guard needs it — the trigger _010_protect_lifecycle dropped,
--    disabled or replaced, a lifecycle column renamed, dropped or retyped
--    (_communities_guard_problems; validate_catalog reports the same where
--    no event trigger guards DDL);
--  * a keyset lookup walks only base-type key columns (a domain's CHECK ran
--    as the engine owner when the recorded key was cast back), and domain
--    constraints count as owner code for every event, not only UPDATE;
--  * identities and hosts also drop the Khitan filler, private-use
--    characters and noncharacters when compared;
--  * a tombstone's host is reserved in its Punycode spelling too
--    (xn--bcher-kva.example for bücher.example: _punycode_label).
--! Included functions/_without_invisible.sql
-- p_text with every whitespace and invisible character removed: spaces of
-- every kind (NBSP, ideographic, the Braille blank), tabs and line breaks,
-- zero-width spaces and joiners, direction marks and embeddings, soft
-- hyphens, the BOM, variation selectors (both blocks), Hangul and Mongolian
-- fillers, and every other Unicode format character (general category Cf:
-- Arabic number signs, Kaithi, Egyptian and shorthand format controls,
-- musical formatting, the tag characters of U+E0000–E0FFF), the Khitan
-- filler (U+16FE4), and what a terminal has no glyph for: private-use
-- characters (U+E000–F8FF, planes 15 and 16) and the noncharacters
-- U+FDD0–FDEF. Used where two
-- typed texts must compare as a reader sees them (_identity_key, _host_key):
-- what a terminal shows as nothing must count as nothing.
create or replace function community_deletion._without_invisible(p_text text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.regexp_replace(p_text,
           '[[:space:]\u0085\u00a0\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u2800\u3000\u3164\ue000-\uf8ff\ufdd0-\ufdef\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U00016fe4\U0001d173-\U0001d17a\U000e0000-\U000e0fff\U000f0000-\U0010ffff]',
           '', 'g')
$$;
--! EndIncluded functions/_without_invisible.sql
--! Included functions/_punycode_label.sql
-- One host label in Unicode: an ACE label ("xn--" followed by Punycode,
-- RFC 3492, as IDNA writes a non-ASCII label for DNS) decoded, any other
-- label unchanged — also an "xn--" label that is not valid Punycode. So
-- "xn--bcher-kva" is "bücher", the name a browser shows for it
-- (_host_key: a tombstone's host is reserved in both spellings).
create or replace function community_deletion._punycode_label(p_label text)
  returns text
  language plpgsql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
declare
  c_base constant integer := 36;
  c_tmin constant integer := 1;
  c_tmax constant integer := 26;
  v_input text;
  v_out integer[] := '{}';
  v_len integer;
  v_pos integer := 1;
  v_delim integer;
  v_n bigint := 128;
  v_i bigint := 0;
  v_bias bigint := 72;
  v_oldi bigint;
  v_w bigint;
  v_k bigint;
  v_t bigint;
  v_digit integer;
  v_code integer;
  v_delta bigint;
  v_points integer;
begin
  if p_label is null or pg_catalog.lower(pg_catalog.left(p_label, 4)) <> 'xn--' then
    return p_label;
  end if;
  v_input := pg_catalog.lower(pg_catalog.substr(p_label, 5));
  if v_input = '' or v_input ~ '[^a-z0-9-]' then
    return p_label;
  end if;
  v_len := pg_catalog.length(v_input);
  -- The basic code points are everything before the last delimiter.
  v_delim := v_len + 1 - coalesce(pg_catalog.strpos(pg_catalog.reverse(v_input), '-'), 0);
  if v_delim <= v_len then
    v_out := (select coalesce(pg_catalog.array_agg(pg_catalog.ascii(ch) order by o), '{}')
                from pg_catalog.regexp_split_to_table(pg_catalog.substr(v_input, 1, v_delim - 1), '') with ordinality as x(ch, o));
    v_pos := v_delim + 1;
  end if;
  while v_pos <= v_len loop
    v_oldi := v_i;
    v_w := 1;
    v_k := c_base;
    loop
      if v_pos > v_len then
        return p_label;
      end if;
      v_code := pg_catalog.ascii(pg_catalog.substr(v_input, v_pos, 1));
      v_pos := v_pos + 1;
      v_digit := case when v_code between 48 and 57 then v_code - 22      -- '0'..'9' → 26..35
                      when v_code between 97 and 122 then v_code - 97     -- 'a'..'z' → 0..25
                      else c_base end;
      if v_digit >= c_base then
        return p_label;
      end if;
      v_i := v_i + v_digit * v_w;
      v_t := case when v_k <= v_bias then c_tmin when v_k >= v_bias + c_tmax then c_tmax else v_k - v_bias end;
      exit when v_digit < v_t;
      v_w := v_w * (c_base - v_t);
      v_k := v_k + c_base;
      if v_i > 1114111 * 64 or v_w > 1114111 * 64 then
        return p_label;
      end if;
    end loop;
    -- Bias adaptation (RFC 3492, 6.1).
    v_points := pg_catalog.cardinality(v_out) + 1;
    v_delta := case when v_oldi = 0 then (v_i - v_oldi) / 700 else (v_i - v_oldi) / 2 end;
    v_delta := v_delta + v_delta / v_points;
    v_k := 0;
    while v_delta > ((c_base - c_tmin) * c_tmax) / 2 loop
      v_delta := v_delta / (c_base - c_tmin);
      v_k := v_k + c_base;
    end loop;
    v_bias := v_k + ((c_base - c_tmin + 1) * v_delta) / (v_delta + 38);
    v_n := v_n + v_i / v_points;
    v_i := v_i % v_points;
    if v_n > 1114111 or v_n between 55296 and 57343 then
      return p_label;
    end if;
    v_out := v_out[1:v_i] || v_n::integer || v_out[v_i + 1:];
    v_i := v_i + 1;
  end loop;
  return (select pg_catalog.string_agg(pg_catalog.chr(cp), '' order by o)
            from pg_catalog.unnest(v_out) with ordinality as x(cp, o));
end;
$$;
--! EndIncluded functions/_punycode_label.sql
--! Included functions/_host_key.sql
-- The form a community host is compared in when a tombstone reserves it
-- (tg_communities__protect_lifecycle, DL8T2): what a resolver or a browser
-- would take for the same name. Unicode NFKC (full-width letters and dots
-- become plain ones), lower case, every whitespace and invisible character
-- removed (_without_invisible), the ideographic full stop (U+3002, and the
-- half-width one NFKC maps to it) read as a dot, as IDNA does, each ACE
-- label ("xn--…", Punycode) decoded to the Unicode label it stands for
-- (_punycode_label) and normalised the same way, and trailing dots removed
-- (a fully qualified "a.example." is "a.example"). So a tombstoned
-- "bücher.example" also reserves "BÜCHER.example", "bücher.example.",
-- "ｂücher.example", "bücher。example", "bü​cher.example" (a zero-width
-- space inside) and "xn--bcher-kva.example".
create or replace function community_deletion._host_key(p_host text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.rtrim(
           (select pg_catalog.string_agg(
                     community_deletion._without_invisible(
                       pg_catalog.lower(pg_catalog.normalize(community_deletion._punycode_label(l.label), 'NFKC'))),
                     '.' order by l.o)
              from pg_catalog.regexp_split_to_table(
                     pg_catalog.translate(
                       community_deletion._without_invisible(pg_catalog.lower(pg_catalog.normalize(p_host, 'NFKC'))),
                       '。', '.'),
                     '\.') with ordinality as l(label, o)),
           '.')
$$;
--! EndIncluded functions/_host_key.sql
--! Included functions/_communities_guard_problems.sql
-- What is wrong with public.communities as the engine's lifecycle guard
-- needs it, in words, sorted; empty when nothing is. The tombstone and the
-- fence stand on it: its owner could otherwise revive a tombstone or lift a
-- fence without a row trigger seeing it.
--   * the trigger _010_protect_lifecycle (db/engine/triggers.sql): present,
--     BEFORE INSERT OR UPDATE OR DELETE, FOR EACH ROW, executing
--     community_deletion.tg_communities__protect_lifecycle(), no WHEN
--     clause, no column list, enabled (for ordinary sessions, or always) —
--     not dropped, disabled, replica-only or replaced;
--   * the columns the engine and the write fence read by name — id uuid,
--     host text, deletion_state text, deletion_fence_generation bigint,
--     deleted_at timestamptz — present with those types: renaming one away
--     and adding a look-alike (a constant default rewrites nothing) would
--     let the fence read another column.
-- Used by the DDL guard (_guard_registered_tables: the command is refused,
-- DL7C2) and the catalog check (validate_catalog: DL7C1, where no event
-- trigger guards DDL).
create or replace function community_deletion._communities_guard_problems()
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
declare
  v_rel oid := pg_catalog.to_regclass('public.communities');
  v_problems text[] := '{}';
begin
  if v_rel is null then
    return array['public.communities is missing'];
  end if;
  if not exists (select 1 from pg_catalog.pg_trigger t
                  where t.tgrelid = v_rel and t.tgname = '_010_protect_lifecycle' and not t.tgisinternal
                    and t.tgfoid = pg_catalog.to_regprocedure('community_deletion.tg_communities__protect_lifecycle()')
                    and t.tgenabled in ('O', 'A')
                    and (t.tgtype & 1) = 1            -- row level
                    and (t.tgtype & 66) = 2           -- BEFORE
                    and (t.tgtype & 28) = 28          -- INSERT, DELETE, UPDATE
                    and t.tgqual is null
                    and pg_catalog.cardinality(t.tgattr::int2[]) = 0) then
    v_problems := v_problems || 'trigger _010_protect_lifecycle is missing, disabled or altered'::text;
  end if;
  select v_problems || coalesce(pg_catalog.array_agg(pg_catalog.format('column %s %s is missing or not of that type', c.name, c.type)
                                                     order by c.name), '{}')
    into v_problems
    from (values ('id', 'uuid'), ('host', 'text'), ('deletion_state', 'text'),
                 ('deletion_fence_generation', 'bigint'), ('deleted_at', 'timestamp with time zone')) c(name, type)
   where not exists (select 1 from pg_catalog.pg_attribute a
                      where a.attrelid = v_rel and a.attname = c.name and not a.attisdropped and a.attnum > 0
                        and pg_catalog.format_type(a.atttypid, null) = c.type);
  return v_problems;
end;
$$;
--! EndIncluded functions/_communities_guard_problems.sql
--! Included functions/_guard_registered_tables.sql
-- Raises protected_table_ddl (DL7C2) when DDL has weakened the guards of a
-- registered table (docs/security.md#table-owners): a write-fence trigger of
-- a scoped table, or the provenance guard of a provenance table, dropped,
-- renamed, disabled or set to fire on replicas only or always; or a
-- registered table made part of a partition or inheritance tree (the fence
-- does not cover statements addressed to a partition or child). Called at
-- the end of every DDL command (event trigger _110_guard_registered_tables),
-- so the command fails and nothing it did remains. Also refused: a
-- registered table renamed or moved to another schema — the registry, and
-- with it this guard, binds a table by name, so a renamed table could have
-- its fence disabled, be written and be renamed back unseen. That is: a
-- registered name no longer resolves while a table not registered under its
-- own name carries the engine's guards (the write fence, its early refusal
-- or TRUNCATE guard, the provenance guard). Tables that no longer exist are
-- otherwise the catalog check's business (a dropped table is drift, not
-- tampering). And refused: a registered table's community column renamed
-- or dropped (the fence reads it by name: renamed, and a look-alike column
-- added, writes of a fenced community would pass); public.communities'
-- lifecycle trigger dropped, disabled or replaced, or one of its lifecycle
-- columns renamed, dropped or retyped (_communities_guard_problems: a
-- tombstone revived, a fence lifted, no row trigger seeing it). Security definer, executable by every role: the DDL may come
-- from any table owner, who cannot read the registry; it only answers.
create or replace function community_deletion._guard_registered_tables()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
declare
  v_problems text[];
begin
  select coalesce(pg_catalog.array_agg(pg_catalog.format('%s: %s', p.label, pg_catalog.array_to_string(p.problems, ', '))
                                        order by p.label collate "C"), '{}')
    into v_problems
    from (select community_deletion._table_label(r.schema_name, r.table_name) as label,
                 case r.kind when 'scoped' then community_deletion._fence_trigger_problems(x.rel)
                             else community_deletion._provenance_guard_problems(x.rel, r.community_column) end
                 || pg_catalog.array_remove(array['it became ' || community_deletion._inheritance_role(x.rel)], null)
                 || case when exists (select 1 from pg_catalog.pg_attribute a
                                       where a.attrelid = x.rel and a.attname = r.community_column
                                         and a.attnum > 0 and not a.attisdropped) then '{}'::text[]
                         else array[pg_catalog.format('its community column %s is missing (renamed or dropped)', r.community_column)] end
                   as problems
            from community_deletion.registered_tables r
            cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
           where r.kind in ('scoped', 'provenance') and x.rel is not null) p
   where pg_catalog.cardinality(p.problems) > 0;
  if exists (select 1 from community_deletion.registered_tables r
              where r.kind in ('scoped', 'provenance')
                and community_deletion._registered_relation(r.schema_name, r.table_name) is null) then
    select v_problems || coalesce(pg_catalog.array_agg(pg_catalog.format(
             '%s: carries the guards of a registered table that is no longer under its registered name (renamed or moved)',
             community_deletion._table_label(g.schema_name, g.table_name)) order by g.schema_name, g.table_name), '{}')
      into v_problems
      from (select distinct n.nspname::text as schema_name, c.relname::text as table_name
              from pg_catalog.pg_trigger t
              join pg_catalog.pg_class c on c.oid = t.tgrelid
              join pg_catalog.pg_namespace n on n.oid = c.relnamespace
             where not t.tgisinternal
               and t.tgfoid in (pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()'),
                                pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_write_early()'),
                                pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_truncate()'),
                                pg_catalog.to_regprocedure('community_deletion.tg_provenance_table__refuse_inactive_community()'))
               and n.nspname <> 'pg_temp' and c.relpersistence <> 't') g
     where not exists (select 1 from community_deletion.registered_tables r
                        where r.schema_name = g.schema_name and r.table_name = g.table_name);
  end if;
  select v_problems || coalesce(pg_catalog.array_agg('communities: ' || p), '{}')
    into v_problems
    from pg_catalog.unnest(community_deletion._communities_guard_problems()) p;
  if pg_catalog.cardinality(v_problems) > 0 then
    raise exception 'community deletion: refused DDL on registered tables: %', pg_catalog.array_to_string(v_problems, '; ')
      using errcode = 'DL7C2',
            hint = 'The write fence and provenance guards of registered tables cannot be dropped, disabled or bypassed '
                   '(docs/security.md). To retire a table, drop it in a migration and update the registry.';
  end if;
end;
$$;
--! EndIncluded functions/_guard_registered_tables.sql
--! Included functions/validate_catalog.sql
-- Refuses (catalog_drift, DL7C1) unless the live catalog is exactly what the
-- registry says (docs/design.md#catalog):
--   1. the relations that hold communities, in every schema
--      (_live_community_tables), equal the registry (every kind): no
--      registered table missing, no unknown one — partitions, inheritance
--      children, foreign tables and materialized views included;
--   2. the tables carrying the write fence equal the registered scoped tables
--      (an unfenced scoped table lets writes escape; a fence trigger on an
--      unregistered table means the registry is stale);
--   3. every registered scoped table is a plain table (not partitioned, not
--      a partition, not part of an inheritance tree), has community_id uuid
--      NOT NULL and no other column holding a community, a valid index
--      leading with community_id, and all six fence triggers present,
--      executing their functions and firing for ordinary sessions;
--   4. every registered provenance table is a plain table whose only
--      community column is the registered one, nullable and leading an
--      index, guarded by _020_provenance_guard;
--   5. row-level security of a registered scoped or provenance table, or
--      of public.communities, does not apply to the engine owner
--      (_row_security_problem: without BYPASSRLS, on a managed server, a
--      policy could hide rows from the purge and the absence proof, and its
--      expressions would run as the engine owner; reported with item 7);
--   6. every foreign key of a registered scoped or provenance table that
--      references a registered scoped table has an index leading with its
--      referencing columns (_foreign_key_index_problems: without it the
--      purge is quadratic);
--   7. no code another role attached to a registered scoped table (on
--      DELETE), provenance table or public.communities (on UPDATE) would run
--      as the engine owner when the engine changes their rows: a trigger or
--      expression calling a function no superuser or engine owner owns, a
--      rule, or row-level security (_invoker_code_problems;
--      _refuse_invoker_code checks it again, under lock, right before each
--      such statement);
--   8. public.communities keeps its lifecycle guard: the trigger
--      _010_protect_lifecycle and the lifecycle columns the engine and the
--      fence read by name (_communities_guard_problems).
-- Excluded tables are only required to be registered. The message lists
-- every problem (table names included) so a claim that blocks on it explains
-- itself; DETAIL carries the same as JSON. Destructive stages call it inside
-- their own transaction after _lock_schema_destruction_shared(), so the
-- validated surface cannot change before they commit.
create or replace function community_deletion.validate_catalog()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
  set jit = off
as $$
declare
  v_live text[] := community_deletion._live_community_tables();
  v_fenced text[] := community_deletion._live_fenced_tables();
  v_registered text[];
  v_scoped text[];
  v_missing text[];
  v_unknown text[];
  v_unfenced text[];
  v_stray_fences text[];
  v_shape text[];
  v_communities_code text[] := coalesce(community_deletion._invoker_code_problems(pg_catalog.to_regclass('public.communities'), 'update'), '{}');
  v_communities_guard text[] := community_deletion._communities_guard_problems();
  v_problems text[] := '{}';
  -- The registered scoped and provenance tables that exist, and each one's
  -- community column (same order), for the _of helpers.
  v_rels regclass[];
  v_columns text[];
  v_scoped_rels regclass[];
  v_provenance_rels regclass[];
begin
  select coalesce(array_agg(x.rel), '{}'), coalesce(array_agg(r.community_column), '{}'),
         coalesce(array_agg(x.rel) filter (where r.kind = 'scoped'), '{}'),
         coalesce(array_agg(x.rel) filter (where r.kind = 'provenance'), '{}')
    into v_rels, v_columns, v_scoped_rels, v_provenance_rels
    from community_deletion.registered_tables r
    cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
   where r.kind in ('scoped', 'provenance') and x.rel is not null;
  select coalesce(array_agg(l.label order by l.label collate "C"), '{}'),
         coalesce(array_agg(l.label order by l.label collate "C") filter (where r.kind = 'scoped'), '{}')
    into v_registered, v_scoped
    from community_deletion.registered_tables r
    cross join lateral (select community_deletion._table_label(r.schema_name, r.table_name) as label) l;
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_missing
    from unnest(v_registered) x where x <> all (v_live);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unknown
    from unnest(v_live) x where x <> all (v_registered);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unfenced
    from unnest(v_scoped) x where x <> all (v_fenced) and x = any (v_live);
  -- Any trigger executing a fence function (complete or not, enabled or not)
  -- on a table not registered as scoped means the registry is stale.
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_stray_fences
    from (select distinct community_deletion._table_label(n.nspname::text, c.relname::text) as x
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where not t.tgisinternal
             and t.tgfoid in ((select pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()')),
                              (select pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_write_early()')),
                              (select pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_truncate()')))) f
   where x <> all (v_scoped);
  -- The shape of every registered scoped and provenance table that exists,
  -- each rule checked for all of them in one query (the _of helpers).
  select coalesce(array_agg(s.label || ': ' || array_to_string(s.problems, ', ') order by s.label collate "C"), '{}')
    into v_shape
    from (select t.label,
                 array_remove(array[
                   case when ih.inheritance is not null then 'it is ' || ih.inheritance end,
                   case when t.kind = 'scoped'
                         and not coalesce(ca.atttypid = 'pg_catalog.uuid'::pg_catalog.regtype and ca.attnotnull, false)
                        then 'community_id is not uuid not null' end,
                   case when cc.columns <> array[t.community_column]
                        then format('the columns holding a community are %s, registered: %s',
                                    coalesce(nullif(array_to_string(cc.columns, ', '), ''), 'none'),
                                    t.community_column) end,
                   case when t.kind = 'provenance' and coalesce(ca.attnotnull, false)
                        then t.community_column || ' is NOT NULL (the purge nulls it)' end,
                   case when not li.has_index
                        then 'no valid index leads with ' || t.community_column end], null)
                 || case t.kind when 'scoped' then coalesce(ft.problems, '{}')
                                else community_deletion._provenance_guard_problems(t.rel, t.community_column) end
                 || coalesce(fk.problems, '{}')
                 || coalesce(ic.problems, '{}')
                   as problems
            from (select r.kind, r.community_column, community_deletion._table_label(r.schema_name, r.table_name) as label,
                         community_deletion._registered_relation(r.schema_name, r.table_name) as rel
                    from community_deletion.registered_tables r
                   -- offset 0: each computed once per table, not at every join.
                   where r.kind in ('scoped', 'provenance') offset 0) t
            -- The community column (community_id for a scoped table), looked up
            -- through the catalog's index, table by table.
            left join lateral (select a.atttypid, a.attnotnull
                                 from pg_catalog.pg_attribute a
                                where a.attrelid = t.rel and not a.attisdropped
                                  and a.attname = case t.kind when 'scoped' then 'community_id' else t.community_column end) ca on true
            left join community_deletion._inheritance_role_of(v_rels) ih on ih.rel = t.rel
            left join community_deletion._community_columns_of(v_rels) cc on cc.rel = t.rel
            left join community_deletion._has_leading_index_of(v_rels, v_columns) li on li.rel = t.rel and li.column_name = t.community_column
            left join community_deletion._fence_trigger_problems_of(v_scoped_rels) ft on ft.rel = t.rel
            left join community_deletion._foreign_key_index_problems_of(v_rels) fk on fk.rel = t.rel
            left join community_deletion._invoker_code_problems_of(v_scoped_rels, 'delete') ic_d on ic_d.rel = t.rel and t.kind = 'scoped'
            left join community_deletion._invoker_code_problems_of(v_provenance_rels, 'update') ic_u on ic_u.rel = t.rel and t.kind = 'provenance'
            cross join lateral (select coalesce(ic_d.problems, ic_u.problems) as problems) ic
           where t.rel is not null) s
   where cardinality(s.problems) > 0;

  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('registered but missing: %s', array_to_string(v_missing, ', '));
  end if;
  if cardinality(v_unknown) > 0 then
    v_problems := v_problems || format('unregistered tables holding communities: %s', array_to_string(v_unknown, ', '));
  end if;
  if cardinality(v_unfenced) > 0 then
    v_problems := v_problems || format('scoped tables without the write fence: %s', array_to_string(v_unfenced, ', '));
  end if;
  if cardinality(v_stray_fences) > 0 then
    v_problems := v_problems || format('write fence on unregistered tables: %s', array_to_string(v_stray_fences, ', '));
  end if;
  if cardinality(v_shape) > 0 then
    v_problems := v_problems || format('registered tables out of shape: %s', array_to_string(v_shape, '; '));
  end if;
  if cardinality(v_communities_code) > 0 then
    v_problems := v_problems || format('code that would run as the engine owner when it updates public.communities: %s',
                                       array_to_string(v_communities_code, ', '));
  end if;
  if cardinality(v_communities_guard) > 0 then
    v_problems := v_problems || format('public.communities out of shape: %s', array_to_string(v_communities_guard, ', '));
  end if;
  if cardinality(v_problems) > 0 then
    raise exception 'community deletion catalog drift: %', array_to_string(v_problems, '; ')
      using errcode = 'DL7C1',
            detail = pg_catalog.jsonb_build_object(
              'missing', v_missing, 'unknown', v_unknown, 'unfenced', v_unfenced,
              'stray_fences', v_stray_fences, 'shape', v_shape, 'communities_code', v_communities_code,
              'communities_guard', v_communities_guard)::text,
            hint = 'In a migration, register new tables (community_deletion.register_scoped_table / '
                   'community_deletion.register_unscoped_table) or drop them, restore missing fences and indexes, '
                   'drop triggers and rules that would run as the engine owner (or have a superuser own their functions); '
                   'then unblock the request (deletions unblock ID), or abort it.';
  end if;
end;
$$;
--! EndIncluded functions/validate_catalog.sql
--! Included functions/_keyset_columns.sql
-- The key columns, community column first, of the index a bounded purge
-- batch walks p_table's community in (community_deletion._purge_batch,
-- "keyset continuation"), or NULL when p_table has none. Eligible: a valid,
-- ready, non-partial, unique btree index of an ordinary table whose first
-- key column is p_column and which has at least one more key column; every
-- key column a plain NOT NULL column (no expression), ascending, nulls last,
-- with its type's default btree operator class and the column's own
-- collation, and of a base type (not a domain, composite or enum: a lookup
-- turns the recorded key back into the column's type, and a domain's
-- CHECK — code its owner wrote — would run as the engine owner) — so that ORDER BY the columns and a row comparison on them
-- (t.a, t.b) > (x, y) follow the index's order and can start the scan at a
-- position. Of several, the one with fewest key columns (then lowest oid).
-- Which rows a lookup finds never depends on this choice for correctness:
-- a unit is completed only by a lookup from the start of the community.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._keyset_columns(p_table regclass, p_column text)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return (
  select cols.names
    from pg_catalog.pg_class c
    join pg_catalog.pg_index i on i.indrelid = c.oid
    join pg_catalog.pg_class ic on ic.oid = i.indexrelid
    join pg_catalog.pg_am am on am.oid = ic.relam
    cross join lateral (
      select array_agg(a.attname::text order by k.n) as names,
             bool_and(k.attnum > 0 and a.attnotnull and not a.attisdropped
                      and k.opt = 0 and k.coll = a.attcollation and oc.opcdefault
                      and ty.typtype = 'b') as plain
        from unnest(i.indkey::int2[], i.indoption::int2[], i.indcollation::oid[], i.indclass::oid[])
               with ordinality as k(attnum, opt, coll, opclass, n)
        left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
        left join pg_catalog.pg_opclass oc on oc.oid = k.opclass
        left join pg_catalog.pg_type ty on ty.oid = a.atttypid
       where k.n <= i.indnkeyatts) cols
   where c.oid = p_table and c.relkind = 'r'
     and am.amname = 'btree' and i.indisunique and i.indisvalid and i.indisready and i.indpred is null
     and i.indnkeyatts >= 2 and cols.plain and cols.names[1] = p_column
   order by i.indnkeyatts, i.indexrelid
   limit 1);
end;
$$;
--! EndIncluded functions/_keyset_columns.sql
--! Included functions/_invoker_code_problems.sql
-- Code another role could have attached to relation p_rel that would run as
-- the engine owner (community_deletion_owner) when one of the engine's own
-- statements changes the table: p_event 'delete' (the purge of a scoped
-- table) or 'update' (a provenance table's community column nulled; the
-- lifecycle columns of public.communities). The engine's statements run
-- inside its security-definer functions, and PostgreSQL runs a trigger's
-- function, a rule's actions and the functions in the expressions an UPDATE
-- evaluates as the role executing the statement: a table owner's trigger
-- would read and write the control plane, tombstone another community or
-- remove its rows. A function is trusted when a superuser or
-- community_deletion_owner owns it (no other role can replace it or change
-- its owner); SECURITY DEFINER is not enough, its owner can turn it off at
-- any moment. Reported:
--   * every trigger firing on p_event (enabled or not: it can be enabled
--     later) whose function is not trusted;
--   * every rule on p_event (its actions run with the engine's privileges
--     and change what the statement does);
--   * for every event: every index expression or predicate, and every
--     expression of an extended statistics object, that calls an untrusted
--     function, directly or through an operator — the planner evaluates
--     them (an immutable function with constant arguments is folded) when
--     it plans any statement on the table, a DELETE or a SELECT of the
--     engine's as much as an UPDATE — and every constraint of a column's
--     domain (or of a domain that domain is based on, at any depth) that
--     calls one: a value cast to the column's type runs it;
--   * for 'update' also: every CHECK constraint or generated column that
--     calls an untrusted function;
--   * row-level security that applies to the engine owner
--     (_row_security_problem, same words): a policy's expressions run as the
--     role whose statement reads the table. The engine's security-definer
--     functions set row_security off, so such a statement fails (42501)
--     before any policy code runs; this names the cause first.
-- Foreign-key checks and actions are not code of this kind: PostgreSQL runs
-- them as the owner of the table they read or change. Returns the problems
-- in words, sorted; empty when there are none. The query is
-- _invoker_code_problems_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._invoker_code_problems(p_rel pg_catalog.regclass, p_event text)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return coalesce((select x.problems from community_deletion._invoker_code_problems_of(array[p_rel], p_event) x), '{}');
end;
$$;
--! EndIncluded functions/_invoker_code_problems.sql
--! Included functions/_invoker_code_problems_of.sql
-- _invoker_code_problems for many relations at once (validate_catalog checks
-- every registered table in one query): one row per relation of p_rels with
-- code another role attached that would run as the engine owner when one of
-- the engine's own statements (p_event 'delete' or 'update') changes it,
-- the problems in words, sorted; relations without any have no row. What is
-- reported, and why, is _invoker_code_problems'.
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._invoker_code_problems_of(p_rels pg_catalog.regclass[], p_event text)
  returns table (rel pg_catalog.regclass, problems text[])
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  with recursive rels as (
    select distinct x.rel::pg_catalog.oid as rel from pg_catalog.unnest(p_rels) x(rel)
  ),
  domains as (
    -- The domains of each relation's columns (an array column's element type
    -- too), and the domains those are based on.
    select a.attrelid as rel, t.oid, t.typbasetype
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_type ct on ct.oid = a.atttypid
      join pg_catalog.pg_type t on t.oid in (ct.oid, ct.typelem) and t.typtype = 'd'
     where a.attrelid in (select r.rel from rels r) and a.attnum > 0 and not a.attisdropped
    union
    select dm.rel, t.oid, t.typbasetype
      from domains dm
      join pg_catalog.pg_type t on t.oid = dm.typbasetype and t.typtype = 'd'
  ),
  -- The objects whose expressions run with the statement, each with its
  -- relation: for every event, the indexes and extended statistics objects
  -- (the planner folds their expressions and predicates when it plans any
  -- statement on the table) and the constraints of the columns' domains
  -- (any value the engine casts to a column's type runs them); for
  -- 'update' also the CHECK constraints and generated columns.
  objects as (
    select i.indrelid as rel, 'pg_catalog.pg_class'::pg_catalog.regclass::oid as classid, i.indexrelid as objid
      from pg_catalog.pg_index i
     where i.indrelid in (select r.rel from rels r)
    union all
    select s.stxrelid, 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass::oid, s.oid
      from pg_catalog.pg_statistic_ext s
     where s.stxrelid in (select r.rel from rels r)
    union all
    select c.conrelid, 'pg_catalog.pg_constraint'::pg_catalog.regclass::oid, c.oid
      from pg_catalog.pg_constraint c
     where p_event = 'update' and c.conrelid in (select r.rel from rels r) and c.contype = 'c'
    union all
    select ad.adrelid, 'pg_catalog.pg_attrdef'::pg_catalog.regclass::oid, ad.oid
      from pg_catalog.pg_attrdef ad
      join pg_catalog.pg_attribute a on a.attrelid = ad.adrelid and a.attnum = ad.adnum
     where p_event = 'update' and ad.adrelid in (select r.rel from rels r) and a.attgenerated <> ''
    union all
    select dm.rel, 'pg_catalog.pg_constraint'::pg_catalog.regclass::oid, c.oid
      from domains dm
      join pg_catalog.pg_constraint c on c.contypid = dm.oid
  ),
  code as (
    select t.tgrelid as rel,
           pg_catalog.format('trigger %s runs %s', pg_catalog.quote_ident(t.tgname), t.tgfoid::pg_catalog.regprocedure) as what,
           t.tgfoid as fn, false as always
      from pg_catalog.pg_trigger t
     where t.tgrelid in (select r.rel from rels r) and not t.tgisinternal
       and (t.tgtype::integer & case p_event when 'delete' then 8 when 'update' then 16 else 0 end) <> 0
    union all
    select r.ev_class, pg_catalog.format('rule %s on %s', pg_catalog.quote_ident(r.rulename), pg_catalog.upper(p_event)), null, true
      from pg_catalog.pg_rewrite r
     where r.ev_class in (select x.rel from rels x) and r.rulename <> '_RETURN'
       and r.ev_type = case p_event when 'delete' then '4' when 'update' then '2' end
    union all
    select s.rel::pg_catalog.oid, s.problem, null, true
      from community_deletion._row_security_problem_of(p_rels) s
     where s.problem is not null
    union all
    select o.rel,
           pg_catalog.format('%s calls %s', pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid),
                             f.fn::pg_catalog.regprocedure), f.fn, false
      from (select distinct ob.rel, ob.classid, ob.objid from objects ob) o
      join pg_catalog.pg_depend d on d.classid = o.classid and d.objid = o.objid
      cross join lateral (select case when d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass::oid then d.refobjid
                                      else (select op.oprcode::oid from pg_catalog.pg_operator op where op.oid = d.refobjid) end as fn) f
     where d.refclassid in ('pg_catalog.pg_proc'::pg_catalog.regclass::oid, 'pg_catalog.pg_operator'::pg_catalog.regclass::oid)
  )
  select c.rel::pg_catalog.regclass, pg_catalog.array_agg(distinct c.what)
    from code c
    -- Each function's owner looked up by its oid, row by row (a join would
    -- hash all of pg_proc for a handful of lookups).
    cross join lateral (select (select pr.proowner from pg_catalog.pg_proc pr where pr.oid = c.fn) as owner) p
   where c.always
      or (p.owner is not null
          and p.owner <> (select r.oid from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner')
          and not (select r.rolsuper from pg_catalog.pg_roles r where r.oid = p.owner))
   group by c.rel;
end;
$$;
--! EndIncluded functions/_invoker_code_problems_of.sql
--! Included functions/schema_version.sql
-- The engine schema's version: the number of the last migration that changed
-- engine objects. A driver built for another version refuses to run against
-- this database (src/engine.ts, SCHEMA_VERSION); `deletions migrate` and
-- `deletions inspect` report it. Every migration that changes engine objects
-- replaces this function with its own number.
create or replace function community_deletion.schema_version()
  returns integer
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select 33
$$;
--! EndIncluded functions/schema_version.sql
--! Included engine/grants.sql
-- Ownership and privileges of the engine (least privilege). Data-driven and
-- re-runnable: every function in schema community_deletion is owned by
-- community_deletion_owner, loses EXECUTE for PUBLIC and the engine roles,
-- and regains it only per the mapping below. A function missing from the
-- mapping is executable by its owner only (fail closed);
-- db/tests/roles/every_engine_function_is_mapped.test.sql fails until it is
-- mapped. Included last by every migration that adds or replaces engine
-- functions.
--
-- Why the engine is unforgeable: the security-definer functions run as
-- community_deletion_owner (NOLOGIN, no members), and the write fence and the
-- communities lifecycle guard admit the engine by current_user alone. No client
-- can become that role (superusers excepted, as always).
--
-- "public" in the mapping: the write-fence trigger runs as whichever role
-- writes, so the few functions on its path (lock key, isolation check, the
-- write decision, the caller's own serving grant) are executable by everyone.
-- They only answer questions and take a shared lock any writer takes anyway.
-- For the same reason every role has USAGE on the schema (names only: tables
-- and functions carry their own privileges).
grant usage on schema community_deletion to public;

do $$
declare
  v_fn record;
  v_role text;
  v_map jsonb := pg_catalog.jsonb_build_object(
    'community_deletion_operator', pg_catalog.jsonb_build_array(
      'submit', 'freeze_inventory', 'approve', 'abort', 'unblock',
      'inspect', 'request_status', 'request_checkpoints', 'list_requests', 'queue_status',
      'storage_taxonomy_rules', 'key_chunk_progress', 'schema_version',
      'validate_catalog', 'validate_serving_catalog',
      'serving_lease_stats', 'reap_serving_leases',
      'record_taxonomy_sweep', 'write_fence_implementation', 'plan'),
    'community_deletion_executor', pg_catalog.jsonb_build_array(
      'claim', 'verify_token', 'verify_store_identity', 'lease_state', 'heartbeat', 'release',
      'executor_stopped',
      'record_failure', 'block', 'block_preclaim',
      'begin_quiescing', 'fence',
      'append_key_chunk', 'clear_key_chunks', 'freeze_destructive_manifest',
      'mark_drained', 'next_key_chunk', 'stamp_key_chunk', 'key_chunk_progress',
      'mark_bindings_removed', 'purge_postgres', 'purge_postgres_batch', 'finish_postgres_purge', 'mark_cache_purged',
      'verify_postgres_absence', 'mark_logically_verified', 'mark_retention_pending',
      'inspect', 'storage_taxonomy_rules', 'validate_catalog',
      'serving_lease_stats', 'reap_serving_leases', 'write_fence_implementation', 'schema_version'),
    'community_deletion_app', pg_catalog.jsonb_build_array(
      'acquire_serving_lease', 'renew_serving_lease', 'verify_serving_lease',
      'release_serving_lease', 'guard_serving_write', 'validate_serving_catalog',
      'write_fence_implementation', 'schema_version'),
    'public', pg_catalog.jsonb_build_array(
      'community_write_allowed', 'assert_community_write_allowed', '_require_read_committed',
      '_community_lock_key', '_serving_write_granted', '_schema_destruction_lock_key',
      -- the DDL guard: every role's DDL runs it (it only answers)
      '_guard_registered_tables', '_guard_registered_table_rewrite',
      -- the explicit DDL lock (no event trigger on a managed server): every
      -- migrating role calls it, as every role's DDL runs the event trigger
      'ddl_lock',
      -- what is installed: `deletions migrate` asks as the migrating role,
      -- which holds none of the engine roles (they only answer)
      'schema_version', 'write_fence_implementation', 'installation_report',
      -- constants: the stage list (the view community_deletion.stages calls them as its reader)
      '_stages', '_stage_order', '_next_stage', '_stage_is_runnable', '_stage_is_terminal',
      '_stage_is_abortable', '_stage_is_fenced',
      -- the host reservation of the communities guard, which runs as whichever
      -- role inserts or renames a community (pure functions of their argument)
      '_host_key', '_without_invisible', '_punycode_label'));
begin
  for v_fn in
    select p.oid::pg_catalog.regprocedure as sig, p.proname::text as name
      from pg_catalog.pg_proc p
     where p.pronamespace = 'community_deletion'::pg_catalog.regnamespace
     order by 1
  loop
    execute pg_catalog.format('alter function %s owner to community_deletion_owner', v_fn.sig);
    execute pg_catalog.format('revoke all on function %s from public, community_deletion_operator, '
                              'community_deletion_executor, community_deletion_app', v_fn.sig);
    for v_role in select k from pg_catalog.jsonb_object_keys(v_map) k where v_map -> k ? v_fn.name loop
      execute pg_catalog.format('grant execute on function %s to %s', v_fn.sig,
                                case when v_role = 'public' then 'public' else pg_catalog.quote_ident(v_role) end);
    end loop;
  end loop;

  -- The engine's own tables. The owner (the security-definer code) reads and
  -- writes every one, never TRUNCATE, never DDL; operators read them (psql
  -- inspection); every change goes through the functions; the executor and
  -- the application get no table privileges at all.
  revoke all on all tables in schema community_deletion from public, community_deletion_operator,
    community_deletion_executor, community_deletion_app, community_deletion_owner;
  revoke all on all sequences in schema community_deletion from public, community_deletion_operator,
    community_deletion_executor, community_deletion_app, community_deletion_owner;
  grant select, insert, update, delete on all tables in schema community_deletion to community_deletion_owner;
  grant usage, select on all sequences in schema community_deletion to community_deletion_owner;
  grant select on all tables in schema community_deletion to community_deletion_operator;

  -- The host's tables. Start from nothing for the engine roles, in public and
  -- in every schema holding a registered table.
  revoke all on all tables in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  revoke all on all sequences in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  -- The owner (the engine's security-definer code): communities (lifecycle
  -- columns, tombstone), every registered scoped table (counted, purged,
  -- proven absent) and provenance table (nulled, proven absent) — and nothing
  -- else of the host's.
  grant select, insert, update, delete on public.communities to community_deletion_owner;

  -- The application writer: communities except the engine-owned lifecycle
  -- columns (deletion_state, deletion_fence_generation, deleted_at) — column
  -- privileges refuse those outright (42501), and the lifecycle guard trigger
  -- refuses them for everyone else (DL8T1) — and its tenant data.
  grant select on public.communities to community_deletion_app;
  grant insert (id, host, name, signing_key, icon, settings, created_at, archived_at) on public.communities
    to community_deletion_app;
  grant update (host, name, signing_key, icon, settings, archived_at) on public.communities
    to community_deletion_app;
  for v_fn in
    select r.schema_name, r.kind, x.rel
      from community_deletion.registered_tables r
      cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
     where r.kind in ('scoped', 'provenance') and x.rel is not null
  loop
    execute pg_catalog.format('grant usage on schema %I to community_deletion_owner, community_deletion_app', v_fn.schema_name);
    execute pg_catalog.format('grant select, insert, update, delete on %s to community_deletion_app', v_fn.rel);
    execute pg_catalog.format('grant %s on %s to community_deletion_owner',
                              case v_fn.kind when 'scoped' then 'select, insert, update, delete' else 'select, update' end,
                              v_fn.rel);
  end loop;

  -- Operators read communities (psql inspection).
  grant select on public.communities to community_deletion_operator;
end;
$$;
--! EndIncluded engine/grants.sql
