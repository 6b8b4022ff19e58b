-- An UPDATE that moves a row from one community to another is a write to both:
-- the fence checks the old and the new community_id.
begin;
\ir ../fixtures/fence.sql
select plan(3);

select tests.seed_community('fenced.example', 1) as f \gset
select tests.seed_community('active.example', 1) as a \gset
select tests.seed_community('other.example', 1) as o \gset
select tests.fx_force_state(:'f', 'fenced', 1);

select throws_ok(
  format($$ update public.pubkey_allowlist set community_id = %L where community_id = %L $$, :'f', :'a'),
  '55000', null, 'moving a row INTO a fenced community is refused');
select throws_ok(
  format($$ update public.pubkey_allowlist set community_id = %L where community_id = %L $$, :'a', :'f'),
  '55000', null, 'moving a row OUT OF a fenced community is refused');
select lives_ok(
  format($$ update public.pubkey_allowlist set community_id = %L where community_id = %L $$, :'o', :'a'),
  'moving a row between two active communities is allowed');

select * from finish();
rollback;
