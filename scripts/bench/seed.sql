-- Benchmark-only helpers (schema "bench"), loaded into each benchmark database
-- by scripts/bench/index.ts; never by migrations or tests.

create schema if not exists bench;

-- A deterministic 64-hex string for row n of kind k (unique per (k, n)).
create or replace function bench.hex(k integer, n bigint)
  returns text language sql immutable
as $$ select lpad(to_hex(k), 4, '0') || lpad(to_hex(n), 60, '0') $$;

-- A deterministic uuid for row n of kind k within community c.
create or replace function bench.uid(c uuid, k text, n bigint)
  returns uuid language sql immutable
as $$ select md5(c::text || ':' || k || ':' || n)::uuid $$;

-- Creates a community and about p_rows rows spread over the 28 scoped tables
-- (set-based: one INSERT … SELECT generate_series per table, parents first,
-- every foreign key satisfied), plus provenance rows. Returns the community id.
-- About 1 % of the events are guarded read-state rows (kind 30078).
create or replace function bench.seed_community(p_host text, p_rows bigint)
  returns uuid language plpgsql volatile
as $$
declare
  c uuid;
  n bigint := greatest(p_rows, 100);
  w jsonb := '{
    "users": 0.05, "channels": 0.004, "relay_members": 0.04, "pubkey_allowlist": 0.02,
    "community_bans": 0.005, "audit_log": 0.05, "archived_identities": 0.01, "git_repo_names": 0.005,
    "parameterized_event_watermarks": 0.02, "events": 0.25, "delivery_log": 0.09, "relay_invites": 0.01,
    "push_leases": 0.02, "push_match_queue": 0.03, "reactions": 0.1, "event_mentions": 0.08,
    "workflows": 0.005, "moderation_actions": 0.01, "thread_metadata": 0.02, "channel_members": 0.03,
    "api_tokens": 0.01, "subscriptions": 0.02, "moderation_reports": 0.01, "join_policy_acceptances": 0.02,
    "push_wake_outbox": 0.02, "workflow_runs": 0.026, "scheduled_workflow_fires": 0.01, "workflow_approvals": 0.02
  }';
  k record;
  cnt jsonb := '{}';
  u bigint; ch bigint; ev bigint; wf bigint; wr bigint;
  x bigint;
begin
  -- Normalise the weights so the counts add up to about n.
  for k in select key, value::numeric as v, sum(value::numeric) over () as total from jsonb_each_text(w) loop
    cnt := cnt || jsonb_build_object(k.key, greatest(1, round(n * k.v / k.total)));
  end loop;
  u := (cnt->>'users')::bigint; ch := (cnt->>'channels')::bigint; ev := (cnt->>'events')::bigint;
  wf := (cnt->>'workflows')::bigint; wr := (cnt->>'workflow_runs')::bigint;

  insert into public.communities (host, name, signing_key, icon)
    values (p_host, 'Bench ' || p_host, decode(md5(p_host), 'hex'), 'icon.png') returning id into c;

  insert into public.users (community_id, pubkey, display_name, about)
    select c, bench.hex(1, g), 'user ' || g, 'about user ' || g from generate_series(1, u) g;
  insert into public.channels (community_id, id, name, topic)
    select c, bench.uid(c, 'ch', g), 'channel-' || g, 'topic ' || g from generate_series(1, ch) g;
  x := least((cnt->>'relay_members')::bigint, u);
  insert into public.relay_members (community_id, pubkey, role)
    select c, bench.hex(1, g), case when g = 1 then 'owner' else 'member' end from generate_series(1, x) g;
  insert into public.pubkey_allowlist (community_id, pubkey, added_by)
    select c, bench.hex(2, g), 'seed' from generate_series(1, (cnt->>'pubkey_allowlist')::bigint) g;
  insert into public.community_bans (community_id, pubkey, reason, banned_by)
    select c, bench.hex(3, g), 'spam', 'mod' from generate_series(1, (cnt->>'community_bans')::bigint) g;
  insert into public.audit_log (community_id, actor, action, detail)
    select c, bench.hex(1, 1 + g % u), 'action', jsonb_build_object('n', g) from generate_series(1, (cnt->>'audit_log')::bigint) g;
  insert into public.archived_identities (community_id, pubkey, archived_profile)
    select c, bench.hex(4, g), '{"name":"old"}' from generate_series(1, (cnt->>'archived_identities')::bigint) g;
  insert into public.git_repo_names (community_id, name, owner_pubkey)
    select c, 'repo-' || g, bench.hex(1, 1 + g % u) from generate_series(1, (cnt->>'git_repo_names')::bigint) g;
  insert into public.parameterized_event_watermarks (community_id, pubkey, kind, d_tag, latest_created_at, latest_event_id)
    select c, bench.hex(1, 1 + g % u), 30023, 'article-' || g, now(), bench.hex(5, g)
      from generate_series(1, (cnt->>'parameterized_event_watermarks')::bigint) g;
  insert into public.events (community_id, id, pubkey, kind, d_tag, channel_id, content, tags, sig)
    select c, bench.hex(5, g), bench.hex(1, 1 + g % u),
           case when g % 100 = 0 then 30078 else 1 end,
           case when g % 100 = 0 then 'read-state:' || g else null end,
           bench.uid(c, 'ch', 1 + g % ch), 'message number ' || g || ' in a benchmark community', '[["t","bench"]]', repeat('f', 128)
      from generate_series(1, ev) g;
  insert into public.delivery_log (community_id, event_id, recipient_pubkey)
    select c, bench.hex(5, 1 + g % ev), bench.hex(1, 1 + g % u) from generate_series(1, (cnt->>'delivery_log')::bigint) g;
  insert into public.relay_invites (community_id, code, created_by)
    select c, 'invite-' || g, bench.hex(1, 1 + g % u) from generate_series(1, (cnt->>'relay_invites')::bigint) g;
  insert into public.push_leases (community_id, pubkey, device_token, lease_until)
    select c, bench.hex(1, 1 + g % u), 'device-' || g, now() + interval '1 day'
      from generate_series(1, (cnt->>'push_leases')::bigint) g;
  insert into public.push_match_queue (community_id, event_id)
    select c, bench.hex(5, 1 + g % ev) from generate_series(1, (cnt->>'push_match_queue')::bigint) g;
  -- (event, user) pairs are unique while the count stays below events × users.
  insert into public.reactions (community_id, event_id, pubkey, content)
    select c, bench.hex(5, 1 + (g - 1) % ev), bench.hex(1, 1 + ((g - 1) / ev) % u), '+'
      from generate_series(1, (cnt->>'reactions')::bigint) g;
  insert into public.event_mentions (community_id, event_id, mentioned_pubkey)
    select c, bench.hex(5, 1 + (g - 1) % ev), bench.hex(1, 1 + ((g - 1) / ev) % u)
      from generate_series(1, (cnt->>'event_mentions')::bigint) g;
  insert into public.workflows (community_id, id, name, channel_id, definition)
    select c, bench.uid(c, 'wf', g), 'wf-' || g, bench.uid(c, 'ch', 1 + g % ch), '{"steps":[]}' from generate_series(1, wf) g;
  insert into public.moderation_actions (community_id, moderator_pubkey, target_pubkey, action, reason)
    select c, bench.hex(1, 1), bench.hex(1, 1 + g % u), 'warn', 'bench'
      from generate_series(1, (cnt->>'moderation_actions')::bigint) g;
  x := least((cnt->>'thread_metadata')::bigint, ev);
  insert into public.thread_metadata (community_id, root_event_id, channel_id, reply_count, last_reply_at)
    select c, bench.hex(5, g), bench.uid(c, 'ch', 1 + g % ch), g % 50, now() from generate_series(1, x) g;
  x := least((cnt->>'channel_members')::bigint, ch * u);
  insert into public.channel_members (community_id, channel_id, pubkey)
    select c, bench.uid(c, 'ch', 1 + (g - 1) % ch), bench.hex(1, 1 + ((g - 1) / ch) % u) from generate_series(1, x) g;
  insert into public.api_tokens (community_id, pubkey, token_hash)
    select c, bench.hex(1, 1 + g % u), md5(c::text || ':token:' || g) from generate_series(1, (cnt->>'api_tokens')::bigint) g;
  insert into public.subscriptions (community_id, pubkey, filter)
    select c, bench.hex(1, 1 + g % u), '{"kinds":[1]}' from generate_series(1, (cnt->>'subscriptions')::bigint) g;
  insert into public.moderation_reports (community_id, reporter_pubkey, event_id, reason)
    select c, bench.hex(1, 1 + g % u), bench.hex(5, 1 + g % ev), 'rude' from generate_series(1, (cnt->>'moderation_reports')::bigint) g;
  insert into public.join_policy_acceptances (community_id, pubkey, policy_version)
    select c, bench.hex(1, 1 + (g - 1) % u), 1 + (g - 1) / u from generate_series(1, (cnt->>'join_policy_acceptances')::bigint) g;
  insert into public.push_wake_outbox (community_id, pubkey, payload)
    select c, bench.hex(1, 1 + g % u), '{"wake":true}' from generate_series(1, (cnt->>'push_wake_outbox')::bigint) g;
  insert into public.workflow_runs (community_id, id, workflow_id, status)
    select c, bench.uid(c, 'wr', g), bench.uid(c, 'wf', 1 + g % wf), 'succeeded' from generate_series(1, wr) g;
  insert into public.scheduled_workflow_fires (community_id, workflow_id, fire_at)
    select c, bench.uid(c, 'wf', 1 + g % wf), now() + interval '1 hour'
      from generate_series(1, (cnt->>'scheduled_workflow_fires')::bigint) g;
  x := least((cnt->>'workflow_approvals')::bigint, wr * u);
  insert into public.workflow_approvals (community_id, run_id, approver_pubkey, decision)
    select c, bench.uid(c, 'wr', 1 + (g - 1) % wr), bench.hex(1, 1 + ((g - 1) / wr) % u), 'approve'
      from generate_series(1, x) g;

  insert into public.product_feedback (community_id, submitted_by, body)
    select c, bench.hex(1, g), 'feedback ' || g from generate_series(1, 10) g;
  insert into public.rate_limit_violations (community_id, pubkey, limiter)
    select c, bench.hex(1, g), 'events_per_minute' from generate_series(1, 10) g;
  return c;
end;
$$;

-- Rows a community holds across the registered scoped tables.
create or replace function bench.scoped_rows(p_community uuid)
  returns bigint language plpgsql stable
as $$
declare t record; v bigint; total bigint := 0;
begin
  for t in select r.table_name from community_deletion.registered_tables r where r.kind = 'scoped' loop
    execute format('select count(*) from public.%I where community_id = $1', t.table_name) into v using p_community;
    total := total + v;
  end loop;
  return total;
end;
$$;

-- The vacuum probe's bystander table (the purge group): p_rows rows, no
-- community column (so no registration), autovacuum off so that only the
-- probe's VACUUM reclaims what the probe's UPDATE leaves dead.
create or replace function bench.create_churn_table(p_rows integer)
  returns void language plpgsql volatile
as $$
begin
  drop table if exists bench.churn;
  create table bench.churn (id integer primary key, v integer not null) with (autovacuum_enabled = false);
  insert into bench.churn select g, 0 from generate_series(1, p_rows) g;
end;
$$;

-- Baseline (b) of the fence benchmark: a write fence written the way the seed
-- system did it — BEFORE … FOR EACH ROW, the community advisory lock SHARED and
-- a state lookup for every row. Benchmark only; never part of the product.
create or replace function bench.seed_style_write_fence()
  returns trigger language plpgsql volatile
  set search_path = ''
as $$
declare
  v_community uuid;
  v_state text;
begin
  if tg_op = 'DELETE' then v_community := old.community_id; else v_community := new.community_id; end if;
  perform pg_catalog.pg_advisory_xact_lock_shared(
    ('x' || pg_catalog.left(pg_catalog.replace(v_community::text, '-', ''), 16))::bit(64)::bigint # 7165065848772979813::bigint);
  select c.deletion_state into v_state from public.communities c where c.id = v_community;
  if v_state is distinct from 'active' and not community_deletion.community_write_allowed(v_community) then
    raise exception 'community write refused: % on %.% for community % (%)',
      tg_op, tg_table_schema, tg_table_name, v_community, coalesce(v_state, 'missing') using errcode = '55000';
  end if;
  if tg_op = 'DELETE' then return old; end if;
  return new;
end;
$$;

-- Puts one of the three fence variants of the fence benchmark on p_table:
-- 'none' (a), 'seed' (b, the function above) or 'ours' (c, what
-- community_deletion.register_scoped_table attaches — already there after migrating).
create or replace function bench.use_fence(p_table regclass, p_variant text)
  returns void language plpgsql volatile
as $$
declare t record;
begin
  if p_variant = 'ours' then
    return;
  end if;
  if p_variant = 'plpgsql' then
    perform community_deletion.install_write_fence(false);
    return;
  end if;
  -- The DDL guard (event trigger _110_guard_registered_tables, migration
  -- 000009) refuses dropping a registered table's fence (and any DDL on the
  -- table while it is missing): off until the variant is in place, in this
  -- benchmark database only.
  alter event trigger _110_guard_registered_tables disable;
  for t in select tgname from pg_trigger where tgrelid = p_table and not tgisinternal and tgname like '\_010\_community\_write\_fence%' loop
    execute format('drop trigger %I on %s', t.tgname, p_table);
  end loop;
  if p_variant = 'seed' then
    execute format('create trigger _010_seed_style_write_fence before insert or update or delete on %s '
                   'for each row execute function bench.seed_style_write_fence()', p_table);
  elsif p_variant <> 'none' then
    raise exception 'unknown fence variant %', p_variant;
  end if;
  alter event trigger _110_guard_registered_tables enable;
end;
$$;
