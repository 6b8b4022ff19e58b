-- Tables of the fence workstream.

-- Per-transaction authorisations of a final serving-path mutation while the
-- community is quiescing, written only by deletion_serving_lease_guard (security
-- definer, engine owner) and read by the write-fence trigger for the current
-- transaction (pg_current_xact_id()). Client sessions cannot insert here, so the
-- authorisation cannot be forged the way a session setting could. xid8 values
-- never repeat, so a row outliving its transaction authorises nothing; the
-- serving-lease reaper prunes rows of finished transactions.
create table if not exists public.community_deletion_serving_write_grants (
  xact_id xid8 not null,
  community_id uuid not null,
  lease_id uuid not null,
  fence_generation bigint not null,
  granted_at timestamptz not null default now(),
  constraint community_deletion_serving_write_grants_pkey primary key (xact_id, community_id)
);

insert into public.community_deletion_tables (table_name, kind, purge_order, note)
values ('community_deletion_serving_write_grants', 'control_plane', null,
        'per-transaction serving-write authorisations while quiescing')
on conflict (table_name) do nothing;
