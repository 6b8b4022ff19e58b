-- Purge order is child before parent: every foreign key between scoped tables
-- points from a table purged earlier to a table purged later.
begin;
select plan(4);

select isnt_empty($$
  select 1 from pg_constraint con
  join community_deletion.registered_tables child on ('public.' || child.table_name)::regclass = con.conrelid
  join community_deletion.registered_tables parent on ('public.' || parent.table_name)::regclass = con.confrelid
  where con.contype = 'f' and child.kind = 'scoped' and parent.kind = 'scoped'
$$, 'scoped tables reference each other (so purge order matters)');

select is_empty($$
  select child.table_name || ' -> ' || parent.table_name from pg_constraint con
  join community_deletion.registered_tables child on ('public.' || child.table_name)::regclass = con.conrelid
  join community_deletion.registered_tables parent on ('public.' || parent.table_name)::regclass = con.confrelid
  where con.contype = 'f' and child.kind = 'scoped' and parent.kind = 'scoped'
    and child.table_name <> parent.table_name and child.purge_order >= parent.purge_order
$$, 'every foreign key between scoped tables goes from an earlier-purged table to a later-purged one');

select tests.seed_community('purge-order.example', 2) as c \gset

-- Parent before child is refused by the foreign keys themselves.
select throws_ok(
  format($$ delete from public.channels where community_id = %L $$, :'c'),
  '23503', null, 'deleting a parent (channels) before its children fails');

-- The registry order deletes everything (read-state rows need the engine's
-- role and the opt-in, as in the purge).
select lives_ok(format($$
  do $do$
  declare t record;
  begin
    perform set_config('community_deletion.read_state_hard_delete', 'on', true);
    set local role community_deletion_owner;
    for t in select table_name from community_deletion.registered_tables where kind = 'scoped' order by purge_order loop
      execute format('delete from public.%%I where community_id = %%L', t.table_name, %L);
    end loop;
  end $do$ $$, :'c'), 'deleting in registry purge order succeeds');

select * from finish();
rollback;
