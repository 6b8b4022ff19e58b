-- Writers must run READ COMMITTED (docs/design.md#write-fence): under REPEATABLE READ or
-- SERIALIZABLE a transaction keeps a snapshot that may predate a fence, so
-- every write and every fence-deciding function refuses it with 25000 — before
-- any authorisation (forged settings, fenced or active state) is considered.
-- Needs a second session (the isolation level is fixed at transaction start),
-- so the setup is committed; this file runs in its own database.
\ir ../fixtures/fence.sql
select tests.seed_community('iso-active.example', 1) as a \gset
select tests.seed_community('iso-fenced.example', 1) as f \gset
select tests.fx_force_state(:'f', 'fenced', 1);

set statement_timeout = '120s';
begin;
select plan(13);
select tests.fx_connect('s2');

create function pg_temp.in_s2(p_isolation text, p_sql text) returns text language plpgsql as $$
declare v text;
begin
  perform dblink_exec('s2', 'begin isolation level ' || p_isolation);
  perform dblink_exec('s2', $q$ set local community_deletion.executor_community = 'forged';
                               set local buzz.deletion_executor_community = 'forged' $q$);
  select t.s into v from dblink('s2', format('select tests.fx_sqlstate(%L)', p_sql)) as t(s text);
  perform dblink_exec('s2', 'rollback');
  return v;
end $$;

select is(pg_temp.in_s2('read committed',
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'rc') $$, :'a')),
  '00000', 'READ COMMITTED writes an active community');

select is(pg_temp.in_s2(lvl,
  format($$ insert into public.pubkey_allowlist (community_id, pubkey) values (%L, 'x') $$, :'a')),
  '25000', lvl || ': a write to an ACTIVE community is refused (25000)')
  from unnest(array['repeatable read', 'serializable']) lvl;
select is(pg_temp.in_s2(lvl,
  format($$ delete from public.pubkey_allowlist where community_id = %L $$, :'f')),
  '25000', lvl || ': a write to a fenced community with forged settings gets 25000, not an authorisation answer')
  from unnest(array['repeatable read', 'serializable']) lvl;
select is(pg_temp.in_s2(lvl, format($$ select community_deletion.assert_community_write_allowed(%L) $$, :'a')),
  '25000', lvl || ': assert_community_write_allowed refuses (25000)')
  from unnest(array['repeatable read', 'serializable']) lvl;
select is(pg_temp.in_s2(lvl, format($$ select community_deletion.acquire_serving_lease(%L, 'upload', 'srv') $$, :'a')),
  '25000', lvl || ': serving-lease acquisition refuses (25000)')
  from unnest(array['repeatable read', 'serializable']) lvl;
select is(pg_temp.in_s2(lvl, $$ select community_deletion.begin_quiescing(gen_random_uuid(), 'x', 1) $$),
  '25000', lvl || ': community_deletion.begin_quiescing refuses (25000) before looking at the lease')
  from unnest(array['repeatable read', 'serializable']) lvl;
select is(pg_temp.in_s2(lvl, $$ select community_deletion.fence(gen_random_uuid(), 'x', 1) $$),
  '25000', lvl || ': community_deletion.fence refuses (25000) before looking at the lease')
  from unnest(array['repeatable read', 'serializable']) lvl;

select dblink_disconnect('s2');
select * from finish();
rollback;
