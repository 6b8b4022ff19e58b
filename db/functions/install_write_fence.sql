-- Which implementation the write-fence triggers execute (docs/fence.md,
-- "Native fast path").
--
-- The triggers attached by community_deletion.register_scoped_table always execute
-- community_deletion.tg_scoped_table__enforce_write_fence() (AFTER … FOR EACH STATEMENT)
-- and community_deletion.tg_scoped_table__refuse_write_early() (BEFORE … FOR EACH ROW).
-- Those two functions are either
--   native:  LANGUAGE c from the library community_deletion_fence (db/native,
--            installed into the server's $libdir by `make -C db/native
--            install`). It decides only the common case itself — the
--            statement touched one community and it is active — and hands
--            every other case, with the same trigger context, to
--            community_deletion._write_fence_plpgsql / community_deletion._refuse_write_early_plpgsql;
--   plpgsql: copies of those two PL/pgSQL functions.
-- The rules are the PL/pgSQL ones either way; the native path only makes a
-- single-row write to an active community cheaper (docs/benchmarks.md).
--
-- community_deletion.install_write_fence(p_native, p_library) (re)defines the two
-- functions — natively when p_native and the library (default
-- $libdir/community_deletion_fence) can be loaded by a role allowed to
-- create C functions (a superuser), otherwise as PL/pgSQL with a WARNING
-- saying why — and returns what it installed. The migrations call it; run it
-- again as a superuser after installing the library on a server that lacked
-- it. The statement-level triggers reference the functions by oid, which
-- CREATE OR REPLACE keeps; the early row triggers of every registered scoped
-- table are re-attached in the implementation's form (community_deletion._attach_early_fence:
-- a WHEN clause for PL/pgSQL, none for native), in the caller's transaction.
create or replace function community_deletion.install_write_fence(
  native boolean default true,
  library text default '$libdir/community_deletion_fence')
  returns text
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_native alias for $1;
  p_library alias for $2;
  v_body text;
  v_why text;
begin
  if p_native then
    begin
      execute pg_catalog.format(
        'create or replace function community_deletion.tg_scoped_table__enforce_write_fence() returns trigger '
        'language c volatile as %L, %L', p_library, 'cd_fence_statement');
      execute pg_catalog.format(
        'create or replace function community_deletion.tg_scoped_table__refuse_write_early() returns trigger '
        'language c volatile as %L, %L', p_library, 'cd_fence_early');
      execute pg_catalog.format(
        'create or replace function community_deletion._native_community_lock_key(uuid) returns bigint '
        'language c immutable strict parallel safe as %L, %L', p_library, 'cd_community_lock_key');
      -- As grants.sql leaves every engine function: the owner's, no PUBLIC.
      alter function community_deletion._native_community_lock_key(uuid) owner to community_deletion_owner;
      revoke all on function community_deletion._native_community_lock_key(uuid) from public;
      perform community_deletion._reattach_early_fences();
      return 'native';
    exception when undefined_file or insufficient_privilege or undefined_function then
      v_why := sqlerrm;
    end;
    raise warning 'community write fence: the native library is not usable (%); installing the PL/pgSQL fence', v_why
      using hint = 'Build and install db/native (make -C db/native install, needs the server''s development headers), '
                   'then run select community_deletion.install_write_fence() as a superuser.';
  end if;

  select p.prosrc into strict v_body from pg_catalog.pg_proc p
   where p.oid = 'community_deletion._write_fence_plpgsql()'::pg_catalog.regprocedure;
  execute pg_catalog.format(
    'create or replace function community_deletion.tg_scoped_table__enforce_write_fence() returns trigger '
    'language plpgsql volatile set search_path = pg_catalog, pg_temp as %L', v_body);
  select p.prosrc into strict v_body from pg_catalog.pg_proc p
   where p.oid = 'community_deletion._refuse_write_early_plpgsql()'::pg_catalog.regprocedure;
  execute pg_catalog.format(
    'create or replace function community_deletion.tg_scoped_table__refuse_write_early() returns trigger '
    'language plpgsql volatile set search_path = pg_catalog, pg_temp as %L', v_body);
  drop function if exists community_deletion._native_community_lock_key(uuid);
  perform community_deletion._reattach_early_fences();
  return 'plpgsql';
end;
$$;
