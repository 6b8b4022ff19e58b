--! Previous: -
--! Hash: sha1:8e38885c90b9211738ceb9fbd41f800237e03137
--! Message: reference tenant schema

-- The reference relay-platform schema the engine deletes from. A host platform
-- adopting the engine keeps its own tables; see README "Adopting it".

create extension if not exists pgcrypto;

create table public.communities (
  id uuid not null default gen_random_uuid(),
  host text not null,
  name text not null default '',
  signing_key bytea,
  icon text,
  settings jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  archived_at timestamptz,
  deleted_at timestamptz,
  deletion_state text not null default 'active',
  deletion_fence_generation bigint not null default 0,
  constraint communities_pkey primary key (id),
  constraint communities_host_is_valid check (host = btrim(host) and host <> '' and length(host) <= 253),
  constraint communities_deletion_state_is_valid
    check (deletion_state in ('active', 'quiescing', 'fenced', 'tombstone')),
  constraint communities_fence_generation_is_non_negative check (deletion_fence_generation >= 0),
  constraint communities_tombstone_has_deleted_at
    check ((deletion_state = 'tombstone') = (deleted_at is not null))
);
-- Host uniqueness is case-insensitive and survives tombstoning: a deleted
-- community's host stays reserved forever.
create unique index communities_host_lower_key on public.communities (lower(host));

-- users: one row per member identity (nostr pubkey) known to a community.
create table public.users (
  community_id uuid not null references public.communities (id),
  pubkey text not null,
  display_name text,
  about text,
  picture_url text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint users_pkey primary key (community_id, pubkey),
  constraint users_pubkey_is_hex check (pubkey ~ '^[0-9a-f]{64}$')
);

create table public.channels (
  community_id uuid not null references public.communities (id),
  id uuid not null default gen_random_uuid(),
  name text not null,
  topic text,
  visibility text not null default 'public',
  created_at timestamptz not null default now(),
  archived_at timestamptz,
  constraint channels_pkey primary key (community_id, id),
  constraint channels_visibility_is_valid check (visibility in ('public', 'private', 'dm')),
  constraint channels_name_key unique (community_id, name)
);

create table public.relay_members (
  community_id uuid not null references public.communities (id),
  pubkey text not null,
  role text not null default 'member',
  joined_at timestamptz not null default now(),
  constraint relay_members_pkey primary key (community_id, pubkey),
  constraint relay_members_user_fkey foreign key (community_id, pubkey) references public.users (community_id, pubkey),
  constraint relay_members_role_is_valid check (role in ('owner', 'admin', 'moderator', 'member'))
);

create table public.pubkey_allowlist (
  community_id uuid not null references public.communities (id),
  pubkey text not null,
  added_by text,
  added_at timestamptz not null default now(),
  constraint pubkey_allowlist_pkey primary key (community_id, pubkey)
);

create table public.community_bans (
  community_id uuid not null references public.communities (id),
  pubkey text not null,
  reason text,
  banned_by text,
  banned_at timestamptz not null default now(),
  expires_at timestamptz,
  constraint community_bans_pkey primary key (community_id, pubkey)
);

create table public.audit_log (
  community_id uuid not null references public.communities (id),
  id bigint generated always as identity,
  actor text,
  action text not null,
  detail jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  constraint audit_log_pkey primary key (community_id, id)
);

create table public.archived_identities (
  community_id uuid not null references public.communities (id),
  pubkey text not null,
  archived_profile jsonb not null default '{}'::jsonb,
  archived_at timestamptz not null default now(),
  constraint archived_identities_pkey primary key (community_id, pubkey)
);

create table public.git_repo_names (
  community_id uuid not null references public.communities (id),
  name text not null,
  owner_pubkey text not null,
  created_at timestamptz not null default now(),
  constraint git_repo_names_pkey primary key (community_id, name),
  constraint git_repo_names_owner_fkey foreign key (community_id, owner_pubkey) references public.users (community_id, pubkey),
  constraint git_repo_names_name_is_valid check (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$')
);

create table public.parameterized_event_watermarks (
  community_id uuid not null references public.communities (id),
  pubkey text not null,
  kind integer not null,
  d_tag text not null,
  latest_created_at timestamptz not null,
  latest_event_id text not null,
  constraint parameterized_event_watermarks_pkey primary key (community_id, pubkey, kind, d_tag)
);

create table public.events (
  community_id uuid not null references public.communities (id),
  id text not null,
  pubkey text not null,
  kind integer not null,
  d_tag text,
  channel_id uuid,
  content text not null default '',
  tags jsonb not null default '[]'::jsonb,
  sig text not null default '',
  created_at timestamptz not null default now(),
  deleted_at timestamptz,
  constraint events_pkey primary key (community_id, id),
  constraint events_channel_fkey foreign key (community_id, channel_id) references public.channels (community_id, id),
  constraint events_id_is_hex check (id ~ '^[0-9a-f]{64}$'),
  constraint events_kind_is_valid check (kind >= 0)
);
create index events_community_kind_idx on public.events (community_id, kind, created_at);

create table public.delivery_log (
  community_id uuid not null references public.communities (id),
  id bigint generated always as identity,
  event_id text not null,
  recipient_pubkey text not null,
  delivered_at timestamptz not null default now(),
  constraint delivery_log_pkey primary key (community_id, id),
  constraint delivery_log_event_fkey foreign key (community_id, event_id) references public.events (community_id, id)
);

create table public.relay_invites (
  community_id uuid not null references public.communities (id),
  code text not null,
  created_by text not null,
  max_uses integer not null default 1,
  uses integer not null default 0,
  expires_at timestamptz,
  created_at timestamptz not null default now(),
  constraint relay_invites_pkey primary key (community_id, code),
  constraint relay_invites_creator_fkey foreign key (community_id, created_by) references public.users (community_id, pubkey),
  constraint relay_invites_uses_are_bounded check (uses >= 0 and uses <= max_uses)
);

create table public.push_leases (
  community_id uuid not null references public.communities (id),
  id uuid not null default gen_random_uuid(),
  pubkey text not null,
  device_token text not null,
  lease_until timestamptz not null,
  constraint push_leases_pkey primary key (community_id, id),
  constraint push_leases_user_fkey foreign key (community_id, pubkey) references public.users (community_id, pubkey)
);

create table public.push_match_queue (
  community_id uuid not null references public.communities (id),
  id bigint generated always as identity,
  event_id text not null,
  enqueued_at timestamptz not null default now(),
  constraint push_match_queue_pkey primary key (community_id, id),
  constraint push_match_queue_event_fkey foreign key (community_id, event_id) references public.events (community_id, id)
);

create table public.reactions (
  community_id uuid not null references public.communities (id),
  event_id text not null,
  pubkey text not null,
  content text not null,
  created_at timestamptz not null default now(),
  constraint reactions_pkey primary key (community_id, event_id, pubkey, content),
  constraint reactions_event_fkey foreign key (community_id, event_id) references public.events (community_id, id)
);

create table public.event_mentions (
  community_id uuid not null references public.communities (id),
  event_id text not null,
  mentioned_pubkey text not null,
  constraint event_mentions_pkey primary key (community_id, event_id, mentioned_pubkey),
  constraint event_mentions_event_fkey foreign key (community_id, event_id) references public.events (community_id, id)
);

create table public.workflows (
  community_id uuid not null references public.communities (id),
  id uuid not null default gen_random_uuid(),
  name text not null,
  channel_id uuid,
  definition jsonb not null default '{}'::jsonb,
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  constraint workflows_pkey primary key (community_id, id),
  constraint workflows_channel_fkey foreign key (community_id, channel_id) references public.channels (community_id, id)
);

create table public.moderation_actions (
  community_id uuid not null references public.communities (id),
  id bigint generated always as identity,
  moderator_pubkey text not null,
  target_pubkey text not null,
  action text not null,
  reason text,
  created_at timestamptz not null default now(),
  constraint moderation_actions_pkey primary key (community_id, id),
  constraint moderation_actions_target_fkey foreign key (community_id, target_pubkey) references public.users (community_id, pubkey)
);

create table public.thread_metadata (
  community_id uuid not null references public.communities (id),
  root_event_id text not null,
  channel_id uuid,
  reply_count integer not null default 0,
  last_reply_at timestamptz,
  constraint thread_metadata_pkey primary key (community_id, root_event_id),
  constraint thread_metadata_root_fkey foreign key (community_id, root_event_id) references public.events (community_id, id),
  constraint thread_metadata_channel_fkey foreign key (community_id, channel_id) references public.channels (community_id, id)
);

create table public.channel_members (
  community_id uuid not null references public.communities (id),
  channel_id uuid not null,
  pubkey text not null,
  role text not null default 'member',
  joined_at timestamptz not null default now(),
  constraint channel_members_pkey primary key (community_id, channel_id, pubkey),
  constraint channel_members_channel_fkey foreign key (community_id, channel_id) references public.channels (community_id, id),
  constraint channel_members_user_fkey foreign key (community_id, pubkey) references public.users (community_id, pubkey)
);

create table public.api_tokens (
  community_id uuid not null references public.communities (id),
  id uuid not null default gen_random_uuid(),
  pubkey text not null,
  token_hash text not null,
  scopes text[] not null default '{}',
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  constraint api_tokens_pkey primary key (community_id, id),
  constraint api_tokens_token_hash_key unique (token_hash),
  constraint api_tokens_user_fkey foreign key (community_id, pubkey) references public.users (community_id, pubkey)
);

create table public.subscriptions (
  community_id uuid not null references public.communities (id),
  id uuid not null default gen_random_uuid(),
  pubkey text not null,
  filter jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  constraint subscriptions_pkey primary key (community_id, id),
  constraint subscriptions_user_fkey foreign key (community_id, pubkey) references public.users (community_id, pubkey)
);

create table public.moderation_reports (
  community_id uuid not null references public.communities (id),
  id bigint generated always as identity,
  reporter_pubkey text not null,
  event_id text not null,
  reason text,
  created_at timestamptz not null default now(),
  constraint moderation_reports_pkey primary key (community_id, id),
  constraint moderation_reports_event_fkey foreign key (community_id, event_id) references public.events (community_id, id)
);

create table public.join_policy_acceptances (
  community_id uuid not null references public.communities (id),
  pubkey text not null,
  policy_version integer not null,
  accepted_at timestamptz not null default now(),
  constraint join_policy_acceptances_pkey primary key (community_id, pubkey, policy_version),
  constraint join_policy_acceptances_user_fkey foreign key (community_id, pubkey) references public.users (community_id, pubkey)
);

create table public.push_wake_outbox (
  community_id uuid not null references public.communities (id),
  id bigint generated always as identity,
  pubkey text not null,
  payload jsonb not null default '{}'::jsonb,
  enqueued_at timestamptz not null default now(),
  constraint push_wake_outbox_pkey primary key (community_id, id),
  constraint push_wake_outbox_user_fkey foreign key (community_id, pubkey) references public.users (community_id, pubkey)
);

create table public.workflow_runs (
  community_id uuid not null references public.communities (id),
  id uuid not null default gen_random_uuid(),
  workflow_id uuid not null,
  status text not null default 'pending',
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  constraint workflow_runs_pkey primary key (community_id, id),
  constraint workflow_runs_workflow_fkey foreign key (community_id, workflow_id) references public.workflows (community_id, id),
  constraint workflow_runs_status_is_valid check (status in ('pending', 'running', 'waiting_approval', 'succeeded', 'failed'))
);

create table public.scheduled_workflow_fires (
  community_id uuid not null references public.communities (id),
  id bigint generated always as identity,
  workflow_id uuid not null,
  fire_at timestamptz not null,
  fired_at timestamptz,
  constraint scheduled_workflow_fires_pkey primary key (community_id, id),
  constraint scheduled_workflow_fires_workflow_fkey foreign key (community_id, workflow_id) references public.workflows (community_id, id)
);

create table public.workflow_approvals (
  community_id uuid not null references public.communities (id),
  run_id uuid not null,
  approver_pubkey text not null,
  decision text not null,
  decided_at timestamptz not null default now(),
  constraint workflow_approvals_pkey primary key (community_id, run_id, approver_pubkey),
  constraint workflow_approvals_run_fkey foreign key (community_id, run_id) references public.workflow_runs (community_id, id),
  constraint workflow_approvals_decision_is_valid check (decision in ('approve', 'reject'))
);

-- Operator-global tables that only remember which community a row came from.
-- Deleting a community severs that provenance (community_id := NULL); the rows stay.
create table public.product_feedback (
  id bigint generated always as identity,
  community_id uuid references public.communities (id),
  submitted_by text,
  body text not null,
  created_at timestamptz not null default now(),
  constraint product_feedback_pkey primary key (id)
);
create index product_feedback_community_idx on public.product_feedback (community_id);

create table public.rate_limit_violations (
  id bigint generated always as identity,
  community_id uuid references public.communities (id),
  pubkey text,
  limiter text not null,
  observed_at timestamptz not null default now(),
  constraint rate_limit_violations_pkey primary key (id)
);
create index rate_limit_violations_community_idx on public.rate_limit_violations (community_id);

-- Read-state rows (NIP-78 kind 30078, d_tag "read-state:…") are hard-delete
-- guarded: only a transaction that opted in may remove them.
--! Included tg_events__guard_read_state_delete.sql
-- Refuses hard deletion of read-state rows (kind 30078, d_tag "read-state:…")
-- unless the transaction opted in with
--   set_config('community_deletion.read_state_hard_delete', 'on', true).
-- The trigger's WHEN clause restricts it to exactly those rows.
create or replace function public.tg_events__guard_read_state_delete()
  returns trigger
  language plpgsql
  volatile
  set search_path = ''
as $$
begin
  if coalesce(current_setting('community_deletion.read_state_hard_delete', true), '') <> 'on' then
    raise exception 'read-state event % of community % cannot be hard-deleted', old.id, old.community_id
      using errcode = 'DL8G1',
            hint = 'Read-state rows are removed only by the community deletion purge.';
  end if;
  return old;
end;
$$;
--! EndIncluded tg_events__guard_read_state_delete.sql
create trigger _200_guard_read_state_delete
  before delete on public.events
  for each row
  when (old.kind = 30078 and old.d_tag like 'read-state:%')
  execute function public.tg_events__guard_read_state_delete();
