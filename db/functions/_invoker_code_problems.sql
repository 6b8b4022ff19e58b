-- Code another role could have attached to relation p_rel that would run as
-- the engine owner (community_deletion_owner) when one of the engine's own
-- statements changes the table: p_event 'delete' (the purge of a scoped
-- table) or 'update' (a provenance table's community column nulled; the
-- lifecycle columns of public.communities) — or only plans a read of it:
-- p_event 'select' (the counts, the absence proof; only what every event
-- reports, below). The engine's statements run
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
--   * the same for every table a foreign key with an action reaches from
--     p_rel, at any depth (ON DELETE CASCADE: its DELETE triggers and
--     rules; SET NULL / SET DEFAULT, and ON UPDATE actions for 'update':
--     its UPDATE ones, CHECK constraints and generated columns): PostgreSQL
--     runs the action as that table's owner, but the AFTER triggers it
--     queues fire as the engine owner when the engine's statement ends;
--   * for every event: every index expression or predicate, and every
--     expression of an extended statistics object, that calls an untrusted
--     function, directly or through an operator — the planner evaluates
--     them (an immutable function with constant arguments is folded) when
--     it plans any statement on the table, a DELETE or a SELECT of the
--     engine's as much as an UPDATE — and every constraint of a column's
--     domain (or of a domain that domain is based on, at any depth) that
--     calls one: a value cast to the column's type runs it — every domain
--     a column's type is built from: through arrays, domains, composite
--     types' attributes, ranges and multiranges, at any depth;
--   * for 'update' also: every CHECK constraint or generated column that
--     calls an untrusted function;
--   * row-level security that applies to the engine owner
--     (_row_security_problem, same words): a policy's expressions run as the
--     role whose statement reads the table. The engine's security-definer
--     functions set row_security off, so such a statement fails (42501)
--     before any policy code runs; this names the cause first.
-- Foreign-key checks and the actions' own statements are not code of this
-- kind: PostgreSQL runs them as the owner of the table they read or change. Returns the problems
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
