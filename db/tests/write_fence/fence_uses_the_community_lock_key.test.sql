-- The write-fence trigger computes the community advisory-lock key inline (hot
-- path); it must be exactly community_deletion._community_lock_key, or writers and
-- lifecycle transitions would lock different keys and stop excluding each other.
begin;
select plan(2);

select is_empty($$
  select u from (select gen_random_uuid() u from generate_series(1, 2000)
                 union all values ('00000000-0000-0000-0000-000000000000'::uuid), ('ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid),
                                  ('80000000-0000-4000-8000-000000000000'::uuid)) x
  where community_deletion._community_lock_key(u) <>
        (('x' || left(replace(u::text, '-', ''), 16))::bit(64)::bigint # 7165065848772979813::bigint)
$$, 'the inlined key equals community_deletion._community_lock_key for 2000 random and edge uuids');

select tests.seed_community('lockkey.example', 1) as c \gset
insert into public.pubkey_allowlist (community_id, pubkey) values (:'c', 'locks');
select ok(exists (
  select 1 from pg_locks l
   where l.locktype = 'advisory' and l.pid = pg_backend_pid() and l.mode = 'ShareLock' and l.granted
     and ((l.classid::bigint << 32) | l.objid::bigint) = (community_deletion._community_lock_key(:'c') & x'ffffffffffffffff'::bigint)),
  'a write holds the community''s lock key SHARED until commit');

select * from finish();
rollback;
