-- Truncates operator- or executor-supplied text (errors, reasons, notes) to at
-- most p_max characters before it is stored, so one huge error message cannot
-- bloat a control-plane row. Null stays null.
create or replace function community_deletion._bound_text(p text, p_max integer)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select case when p is null then null
              when pg_catalog.length(p) <= p_max then p
              else pg_catalog.left(p, greatest(p_max, 0)) end
$$;
