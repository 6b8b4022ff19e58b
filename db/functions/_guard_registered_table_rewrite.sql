-- Refuses (protected_table_ddl, DL7C2) a command that is about to rewrite
-- a table (pg_event_trigger_table_rewrite_oid: callable only inside the
-- table_rewrite event trigger, so no role can use this function to learn
-- which communities are being deleted) — ALTER TABLE … ALTER COLUMN …
-- TYPE (with or without USING), ADD COLUMN with a volatile default, and
-- the other forms PostgreSQL carries
-- out by copying every row (event trigger _111_guard_table_rewrite,
-- table_rewrite) — when it is a registered scoped or provenance table,
-- or public.communities, and the command would change rows no trigger sees:
--   * a registered table, while a deletion is in flight (a request that is
--     not terminal whose community is not active: quiescing, fenced, or a
--     tombstone not yet proven): a rewrite's USING expression can change a
--     fenced community's rows, or move them to another community, and the
--     write fence never sees it;
--   * public.communities, while any community is not active (under
--     deletion, or a tombstone — for ever): a rewrite could revive a
--     tombstone or change a fence generation past the lifecycle guard.
-- Security definer, executable by every role: the DDL may come from any
-- table owner, who cannot read the registry or the requests; it only
-- answers.
create or replace function community_deletion._guard_registered_table_rewrite()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
declare
  p_table oid := pg_catalog.pg_event_trigger_table_rewrite_oid();
  v_label text;
  v_in_flight text;
begin
  if p_table = pg_catalog.to_regclass('public.communities')::oid then
    select pg_catalog.string_agg(pg_catalog.format('%s (%s)', c.host, c.deletion_state), ', ' order by c.host)
      into v_in_flight
      from (select c.host, c.deletion_state from public.communities c
             where c.deletion_state <> 'active' order by c.host limit 5) c;
    if v_in_flight is not null then
      raise exception 'community deletion: refused DDL: rewriting communities would change the rows of communities under deletion or tombstoned, past their lifecycle guard (%)',
        v_in_flight
        using errcode = 'DL7C2',
              hint = 'Change communities without a rewrite (ADD COLUMN with a constant default, a new table); a tombstone is permanent.';
    end if;
    return;
  end if;
  select community_deletion._table_label(r.schema_name, r.table_name) into v_label
    from community_deletion.registered_tables r
   where r.kind in ('scoped', 'provenance')
     and community_deletion._registered_relation(r.schema_name, r.table_name)::oid = p_table
   limit 1;
  if v_label is null then
    return;
  end if;
  select pg_catalog.string_agg(pg_catalog.format('request %s at %s for %s', f.id, f.stage, f.host), ', ' order by f.id)
    into v_in_flight
    from (select r.id, r.stage, c.host
            from community_deletion.requests r
            join public.communities c on c.id = r.community_id
           where not community_deletion._stage_is_terminal(r.stage) and c.deletion_state <> 'active'
           order by r.id limit 5) f;
  if v_in_flight is not null then
    raise exception 'community deletion: refused DDL on registered tables: %: the command rewrites every row of the table while a deletion is in flight (%)',
      v_label, v_in_flight
      using errcode = 'DL7C2',
            hint = 'A rewrite changes a fenced community''s rows without a write the fence sees. Run it once the deletion has finished (deletions list), or abort the deletion first.';
  end if;
end;
$$;
