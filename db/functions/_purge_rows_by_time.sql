-- How many rows the next statement of a bounded purge batch may take by time
-- (community_deletion._purge_batch; docs/design.md#purge), from the batch's
-- time target and time left (microseconds), whether the batch has spent
-- anything yet, and the unit's pace as last measured (p_rate: microseconds
-- per row, p_last: rows of the statement that measured it; null: never
-- measured). NULL when there is no target (the cost budget alone sizes the
-- batch); 0 means the statement is not started and the batch ends.
--   * A batch's first statement (nothing spent): 1 row once the time is
--     spent (every batch makes progress); a probe of 100 rows for a unit
--     never measured; else what fits, at most 4 × p_last and at least 1 —
--     and at least 100 when the pace was measured on fewer than 100 rows
--     (a statement's fixed cost, such as a lookup walking many dead index
--     entries, measured on a few rows must not shrink the next statement
--     towards a single row).
--   * A later statement: nothing once the time is spent; for a unit never
--     measured, a probe of 10 rows while at least half the target is left,
--     else nothing; for a measured unit, what fits, at most 4 × p_last, and
--     nothing when that is under 100 rows (raised to 100, a batch of rows
--     costing milliseconds each overran its target by a probe's worth).
-- What fits is half the time left at p_rate when that is 100 rows or more
-- (a statement whose rows cost twice the measured pace then ends the batch
-- near its target rather than at twice it), else all of it.
create or replace function community_deletion._purge_rows_by_time(
  p_target_us numeric, p_left_us numeric, p_spent boolean, p_rate numeric, p_last bigint)
  returns bigint
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select case
           when p_target_us is null then null
           when not p_spent then
             case when p_left_us <= 0 then 1
                  when p_rate is null or p_last is null then f.probe
                  else greatest(1, least(case when p_last < f.probe then greatest(f.fits, f.probe) else f.fits end,
                                         f.growth * p_last)) end
           when p_left_us <= 0 then 0
           when p_rate is null or p_last is null then
             case when p_left_us * 2 >= p_target_us then f.probe / 10 else 0 end
           when f.fits < f.probe then 0
           else least(f.fits, f.growth * p_last)
         end::bigint
    from (select c.probe, c.growth,
                 case when p_left_us <= 0 or p_rate is null then null
                      when floor(p_left_us / 2 / greatest(p_rate, 0.001)) >= c.probe
                        then floor(p_left_us / 2 / greatest(p_rate, 0.001))
                      else floor(p_left_us / greatest(p_rate, 0.001)) end as fits
            from (select 100::bigint as probe, 4::bigint as growth) c) f
$$;
