-- Stage vocabulary of the request lifecycle (SPEC §4). These three helpers are
-- the single definition of the order, the only legal forward move, and which
-- stages an executor may claim; functions and triggers all ask them.

-- Position of a stage in the lifecycle (submitted=1 … retention_pending=10,
-- aborted=99); null for a value that is not a stage.
create or replace function public._deletion_stage_order(stage text)
  returns integer
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select case stage
    when 'submitted' then 1
    when 'inventoried' then 2
    when 'approved' then 3
    when 'fenced' then 4
    when 'drained' then 5
    when 'bindings_removed' then 6
    when 'postgres_purged' then 7
    when 'cache_purged' then 8
    when 'logically_verified' then 9
    when 'retention_pending' then 10
    when 'aborted' then 99
  end
$$;

-- The only stage a request may move to from `stage` (null for the terminal
-- stages): transitions never skip and never go backwards.
create or replace function public._deletion_next_stage(stage text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select case stage
    when 'submitted' then 'inventoried'
    when 'inventoried' then 'approved'
    when 'approved' then 'fenced'
    when 'fenced' then 'drained'
    when 'drained' then 'bindings_removed'
    when 'bindings_removed' then 'postgres_purged'
    when 'postgres_purged' then 'cache_purged'
    when 'cache_purged' then 'logically_verified'
    when 'logically_verified' then 'retention_pending'
  end
$$;

-- Whether an executor may claim a request at `stage` (approved … logically_verified).
create or replace function public._deletion_stage_is_runnable(stage text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select coalesce(stage in ('approved', 'fenced', 'drained', 'bindings_removed', 'postgres_purged',
                            'cache_purged', 'logically_verified'), false)
$$;

-- Whether `stage` is terminal (aborted, retention_pending): nothing moves it again.
create or replace function public._deletion_stage_is_terminal(stage text)
  returns boolean
  language sql
  immutable
  parallel safe
  set search_path = ''
as $$
  select coalesce(stage in ('aborted', 'retention_pending'), false)
$$;
