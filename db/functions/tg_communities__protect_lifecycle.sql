-- Tombstone and lifecycle protection on communities (docs/design.md#tombstone). The engine is
-- recognised by current_user = community_deletion_owner (only its
-- security-definer functions run as that role; no session setting counts).
--  * INSERT, or a host changed: a host that belongs to a tombstone is
--    reserved forever (host_reserved DL8T2, checked before the unique index so
--    the error is clear), compared in _host_key form — case, full-width
--    letters, invisible characters, ideographic dots and a trailing dot
--    aside — so a look-alike of a deleted community's host is refused too;
--    a new community starts active and not deleted (DL8T1).
--  * UPDATE of a tombstone: nobody may change its lifecycle columns or host; the
--    engine alone may rewrite its other columns (clearing secrets), others may
--    change nothing (DL8T1).
--  * UPDATE by anyone but the engine: deletion_state, deletion_fence_generation
--    and deleted_at never change, and a community that is not active (under
--    deletion) cannot be changed at all — its archived_at is restored by abort.
--  * UPDATE by the engine: only the lifecycle edges active→quiescing,
--    quiescing→fenced, fenced→tombstone and quiescing|fenced→active (abort); the
--    fence generation never decreases.
--  * DELETE: a tombstone can never be deleted; a community under deletion can be
--    deleted by nobody.
create or replace function community_deletion.tg_communities__protect_lifecycle()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_engine boolean := current_user = 'community_deletion_owner';
begin
  if tg_op = 'DELETE' then
    if old.deletion_state <> 'active' then
      raise exception 'community % is % and cannot be deleted', old.id, old.deletion_state
        using errcode = 'DL8T1',
              hint = case when old.deletion_state = 'tombstone'
                          then 'A tombstone is permanent evidence of a completed deletion.'
                          else 'Abort the deletion request (community_deletion.abort) first.' end;
    end if;
    return old;
  end if;

  if tg_op = 'UPDATE' and old.deletion_state = 'tombstone' then
    if not v_engine
       or new.deletion_state is distinct from old.deletion_state
       or new.deletion_fence_generation is distinct from old.deletion_fence_generation
       or new.deleted_at is distinct from old.deleted_at
       or new.host is distinct from old.host
       or new.id is distinct from old.id then
      raise exception 'community % is a tombstone and cannot be changed', old.id
        using errcode = 'DL8T1',
              hint = 'A tombstone is permanent: it cannot be revived, renamed or reused.';
    end if;
    return new;
  end if;

  if (tg_op = 'INSERT' or new.host is distinct from old.host)
     and exists (select 1 from public.communities c
                  where c.deletion_state = 'tombstone'
                    and community_deletion._host_key(c.host) = community_deletion._host_key(new.host)) then
    raise exception 'host % belongs to a deleted community and is reserved forever', new.host
      using errcode = 'DL8T2',
            hint = 'Choose another host; a tombstoned community''s host is never reused.';
  end if;

  if tg_op = 'INSERT' then
    if new.deletion_state <> 'active' or new.deleted_at is not null then
      raise exception 'a new community (host %) must start active and not deleted', new.host
        using errcode = 'DL8T1';
    end if;
    return new;
  end if;

  if not v_engine then
    if old.deletion_state <> 'active' then
      raise exception 'community % is % and cannot be changed outside the deletion engine', old.id, old.deletion_state
        using errcode = 'DL8T1',
              hint = 'Abort the deletion request (community_deletion.abort) to return the community to active.';
    end if;
    if new.deletion_state is distinct from old.deletion_state
       or new.deletion_fence_generation is distinct from old.deletion_fence_generation
       or new.deleted_at is distinct from old.deleted_at then
      raise exception 'lifecycle columns of community % change only through the deletion engine', old.id
        using errcode = 'DL8T1',
              hint = 'Use community_deletion.submit / community_deletion.abort; deletion_state, deletion_fence_generation and deleted_at are engine-owned.';
    end if;
    return new;
  end if;

  if new.deletion_fence_generation < old.deletion_fence_generation
     or not (new.deletion_state = old.deletion_state
             or (old.deletion_state, new.deletion_state) in (
                  ('active', 'quiescing'), ('quiescing', 'fenced'), ('fenced', 'tombstone'),
                  ('quiescing', 'active'), ('fenced', 'active'))) then
    raise exception 'illegal community lifecycle change % -> % (fence generation % -> %) for community %',
      old.deletion_state, new.deletion_state, old.deletion_fence_generation, new.deletion_fence_generation, old.id
      using errcode = 'DL8T1';
  end if;
  return new;
end;
$$;
