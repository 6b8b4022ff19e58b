-- The request lifecycle's stages (docs/sql-api.md#stages): the one
-- definition of their order, the only legal forward move from each, which
-- stages an executor may claim, which are terminal, which an operator may
-- abort at, and from which on the community is fenced. Every other function,
-- constraint and index asks the helpers built on it (_stage_order,
-- _next_stage, _stage_is_runnable, _stage_is_terminal, _stage_is_abortable,
-- _stage_is_fenced); the view community_deletion.stages shows it in psql.
create or replace function community_deletion._stages()
  returns table (stage text, stage_order integer, next_stage text, runnable boolean, terminal boolean,
                 abortable boolean, fenced boolean)
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  values
    ('submitted',          1,  'inventoried',        false, false, true,  false),
    ('inventoried',        2,  'approved',           false, false, true,  false),
    ('approved',           3,  'fenced',             true,  false, true,  false),
    ('fenced',             4,  'drained',            true,  false, true,  true),
    ('drained',            5,  'bindings_removed',   true,  false, false, true),
    ('bindings_removed',   6,  'postgres_purged',    true,  false, false, true),
    ('postgres_purged',    7,  'cache_purged',       true,  false, false, true),
    ('cache_purged',       8,  'logically_verified', true,  false, false, true),
    ('logically_verified', 9,  'retention_pending',  true,  false, false, true),
    ('retention_pending',  10, null,                 false, true,  false, true),
    ('aborted',            99, null,                 false, true,  false, false)
$$;
