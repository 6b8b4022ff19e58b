--! Previous: sha1:8e38885c90b9211738ceb9fbd41f800237e03137
--! Hash: sha1:e1fa9da6f8d008a87ddb7cc7e8d1e77e8de77c3a
--! Message: control plane tables and registries

-- Tables and constraints of the deletion control plane. Behaviour (functions,
-- triggers) arrives in later migrations; the constraints here are the rules
-- that hold whatever code runs.

-- Registry of every public table that carries a community_id column and what
-- the engine does with it. The live catalog must equal this registry exactly.
create table public.community_deletion_tables (
  table_name text not null,
  kind text not null,
  purge_order integer,
  registered_at timestamptz not null default now(),
  note text,
  constraint community_deletion_tables_pkey primary key (table_name),
  constraint community_deletion_tables_kind_is_valid check (kind in ('scoped', 'provenance', 'control_plane')),
  constraint community_deletion_tables_purge_order_only_for_scoped
    check ((kind = 'scoped') = (purge_order is not null)),
  constraint community_deletion_tables_purge_order_is_positive check (purge_order > 0),
  constraint community_deletion_tables_purge_order_key unique (purge_order),
  constraint community_deletion_tables_name_is_identifier check (table_name ~ '^[a-z_][a-z0-9_]{0,62}$')
);

-- Object-key shapes each writer produces. Owned shapes are deleted with their
-- community; shared shapes are content-addressed and never deleted per community.
-- key_pattern is an anchored regular expression valid in both PostgreSQL (ARE)
-- and JavaScript; "{community}" stands for the lowercase community UUID.
create table public.community_deletion_storage_taxonomy (
  name text not null,
  scope text not null,
  prefix_template text not null,
  key_pattern text not null,
  writer text not null,
  description text not null default '',
  constraint community_deletion_storage_taxonomy_pkey primary key (name),
  constraint community_deletion_storage_taxonomy_scope_is_valid check (scope in ('owned', 'shared')),
  constraint community_deletion_storage_taxonomy_owned_prefix_has_community
    check ((scope = 'owned') = (prefix_template like '%{community}/')),
  constraint community_deletion_storage_taxonomy_pattern_is_anchored
    check (key_pattern like '^%' and key_pattern like '%$'),
  constraint community_deletion_storage_taxonomy_prefix_key unique (prefix_template)
);

-- Engine-wide settings (single row).
create table public.community_deletion_settings (
  singleton boolean not null default true,
  approval_grace_period interval not null default interval '0 seconds',
  max_consecutive_failures integer not null default 8,
  retry_base_delay interval not null default interval '5 seconds',
  retry_max_delay interval not null default interval '15 minutes',
  constraint community_deletion_settings_pkey primary key (singleton),
  constraint community_deletion_settings_is_singleton check (singleton),
  constraint community_deletion_settings_grace_is_non_negative check (approval_grace_period >= interval '0 seconds'),
  constraint community_deletion_settings_failures_are_positive check (max_consecutive_failures > 0),
  constraint community_deletion_settings_delays_are_ordered
    check (retry_base_delay > interval '0 seconds' and retry_max_delay >= retry_base_delay)
);
insert into public.community_deletion_settings default values;

create table public.community_deletion_requests (
  id uuid not null default gen_random_uuid(),
  community_id uuid not null,
  community_host text not null,
  stage text not null default 'submitted',
  requested_by text not null,
  reason text,
  schema_manifest jsonb,
  storage_manifest jsonb,
  inventory_manifest jsonb,
  inventory_digest text,
  inventory_frozen_at timestamptz,
  destructive_storage_manifest jsonb,
  destructive_storage_frozen_at timestamptz,
  fence_generation bigint,
  lease_owner text,
  lease_generation bigint not null default 0,
  lease_until timestamptz,
  attempts integer not null default 0,
  retry_stage text,
  retry_count integer not null default 0,
  last_error text,
  last_error_at timestamptz,
  next_attempt_at timestamptz not null default now(),
  blocked_at timestamptz,
  blocked_reason text,
  pre_quiesce_archived_at timestamptz,
  quiescing_started_at timestamptz,
  aborted_by text,
  abort_reason text,
  aborted_at timestamptz,
  completed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint community_deletion_requests_pkey primary key (id),
  constraint community_deletion_requests_community_fkey foreign key (community_id) references public.communities (id),
  -- Target of the approvals' composite foreign key.
  constraint community_deletion_requests_approval_binding_key unique (id, community_id, inventory_digest),
  constraint community_deletion_requests_stage_is_valid check (stage in (
    'submitted', 'inventoried', 'approved', 'fenced', 'drained', 'bindings_removed',
    'postgres_purged', 'cache_purged', 'logically_verified', 'retention_pending', 'aborted')),
  constraint community_deletion_requests_retry_stage_is_valid check (retry_stage in (
    'approved', 'fenced', 'drained', 'bindings_removed', 'postgres_purged', 'cache_purged',
    'logically_verified')),
  constraint community_deletion_requests_requested_by_is_present
    check (btrim(requested_by) <> '' and length(requested_by) <= 512),
  constraint community_deletion_requests_digest_is_hex check (inventory_digest ~ '^[0-9a-f]{64}$'),
  constraint community_deletion_requests_inventory_frozen_after_submitted
    check (stage in ('submitted', 'aborted')
           or (inventory_digest is not null and inventory_manifest is not null
               and schema_manifest is not null and storage_manifest is not null
               and inventory_frozen_at is not null)),
  constraint community_deletion_requests_fenced_stages_have_generation
    check (stage not in ('fenced', 'drained', 'bindings_removed', 'postgres_purged', 'cache_purged',
                         'logically_verified', 'retention_pending')
           or fence_generation is not null),
  constraint community_deletion_requests_lease_is_whole
    check ((lease_owner is null) = (lease_until is null)),
  constraint community_deletion_requests_lease_owner_is_present check (btrim(lease_owner) <> ''),
  constraint community_deletion_requests_counters_are_non_negative
    check (lease_generation >= 0 and attempts >= 0 and retry_count >= 0),
  constraint community_deletion_requests_block_is_whole
    check ((blocked_at is null) = (blocked_reason is null)),
  constraint community_deletion_requests_abort_is_whole
    check ((stage = 'aborted') = (aborted_at is not null and aborted_by is not null and abort_reason is not null)),
  constraint community_deletion_requests_terminal_is_completed
    check ((stage in ('aborted', 'retention_pending')) = (completed_at is not null)),
  constraint community_deletion_requests_terminal_holds_no_lease
    check (stage not in ('aborted', 'retention_pending') or lease_owner is null),
  constraint community_deletion_requests_destructive_manifest_is_whole
    check ((destructive_storage_manifest is null) = (destructive_storage_frozen_at is null))
);
-- At most one request per community that has not been aborted.
create unique index community_deletion_requests_one_open_per_community
  on public.community_deletion_requests (community_id) where stage <> 'aborted';
-- Claim scan: runnable requests in submission order.
create index community_deletion_requests_claim_idx
  on public.community_deletion_requests (created_at, id)
  where blocked_at is null and stage in ('approved', 'fenced', 'drained', 'bindings_removed',
    'postgres_purged', 'cache_purged', 'logically_verified');

create table public.community_deletion_approvals (
  request_id uuid not null,
  community_id uuid not null,
  inventory_digest text not null,
  approved_by text not null,
  note text,
  not_before timestamptz not null,
  approved_at timestamptz not null default now(),
  constraint community_deletion_approvals_pkey primary key (request_id),
  -- A mismatched approval (other community, other digest) is unrepresentable.
  constraint community_deletion_approvals_request_binding_fkey
    foreign key (request_id, community_id, inventory_digest)
    references public.community_deletion_requests (id, community_id, inventory_digest),
  constraint community_deletion_approvals_approved_by_is_present
    check (btrim(approved_by) <> '' and length(approved_by) <= 512),
  constraint community_deletion_approvals_not_before_after_approval check (not_before >= approved_at)
);

create table public.community_deletion_checkpoints (
  sequence bigint generated always as identity,
  request_id uuid not null,
  stage text not null,
  unit_key text not null,
  status text not null,
  attempts integer not null default 1,
  lease_generation bigint not null,
  detail jsonb not null default '{}'::jsonb,
  error text,
  started_at timestamptz not null default now(),
  completed_at timestamptz,
  constraint community_deletion_checkpoints_pkey primary key (sequence),
  constraint community_deletion_checkpoints_request_fkey foreign key (request_id)
    references public.community_deletion_requests (id),
  constraint community_deletion_checkpoints_unit_key unique (request_id, stage, unit_key),
  constraint community_deletion_checkpoints_stage_is_valid check (stage in (
    'submitted', 'inventoried', 'approved', 'fenced', 'drained', 'bindings_removed',
    'postgres_purged', 'cache_purged', 'logically_verified', 'retention_pending', 'aborted')),
  constraint community_deletion_checkpoints_status_is_valid check (status in ('started', 'completed', 'failed')),
  constraint community_deletion_checkpoints_unit_key_is_present check (btrim(unit_key) <> '' and length(unit_key) <= 256),
  constraint community_deletion_checkpoints_attempts_are_positive check (attempts > 0),
  constraint community_deletion_checkpoints_completed_has_time check ((status = 'completed') = (completed_at is not null)),
  constraint community_deletion_checkpoints_failed_has_error check (status <> 'failed' or error is not null),
  constraint community_deletion_checkpoints_detail_is_object check (jsonb_typeof(detail) = 'object')
);

create table public.community_deletion_executor_heartbeats (
  executor_id text not null,
  mode text not null,
  request_id uuid,
  draining boolean not null default false,
  started_at timestamptz not null default now(),
  heartbeat_at timestamptz not null default now(),
  stopped_at timestamptz,
  constraint community_deletion_executor_heartbeats_pkey primary key (executor_id),
  constraint community_deletion_executor_heartbeats_request_fkey foreign key (request_id)
    references public.community_deletion_requests (id),
  constraint community_deletion_executor_heartbeats_mode_is_valid check (mode in ('run', 'drain', 'worker')),
  constraint community_deletion_executor_heartbeats_executor_is_present
    check (btrim(executor_id) <> '' and length(executor_id) <= 256)
);

-- The frozen destructive key list, in chunks. Each element of entries is one
-- object version: {"key": …, "version_id": …, "kind": "object"|"delete_marker"}.
create table public.community_deletion_manifest_keys (
  request_id uuid not null,
  chunk_no integer not null,
  prefix text not null,
  entries jsonb not null,
  entry_count integer not null,
  created_at timestamptz not null default now(),
  deleted_at timestamptz,
  constraint community_deletion_manifest_keys_pkey primary key (request_id, chunk_no),
  constraint community_deletion_manifest_keys_request_fkey foreign key (request_id)
    references public.community_deletion_requests (id),
  constraint community_deletion_manifest_keys_chunk_no_is_non_negative check (chunk_no >= 0),
  constraint community_deletion_manifest_keys_entries_are_array
    check (jsonb_typeof(entries) = 'array' and jsonb_array_length(entries) = entry_count),
  constraint community_deletion_manifest_keys_chunk_is_not_empty check (entry_count > 0),
  constraint community_deletion_manifest_keys_prefix_is_present check (prefix <> '' and prefix like '%/')
);

-- Short leases for serving-path external side effects (media upload, git push…).
create table public.community_serving_write_leases (
  id uuid not null default gen_random_uuid(),
  community_id uuid not null,
  operation text not null,
  owner text not null,
  generation bigint not null default 1,
  fence_generation bigint not null,
  acquired_at timestamptz not null default now(),
  heartbeat_at timestamptz not null default now(),
  lease_until timestamptz not null,
  constraint community_serving_write_leases_pkey primary key (id),
  constraint community_serving_write_leases_community_fkey foreign key (community_id)
    references public.communities (id),
  constraint community_serving_write_leases_operation_is_present
    check (btrim(operation) <> '' and length(operation) <= 128),
  constraint community_serving_write_leases_owner_is_present
    check (btrim(owner) <> '' and length(owner) <= 256),
  constraint community_serving_write_leases_generation_is_positive check (generation > 0)
);
create index community_serving_write_leases_community_idx
  on public.community_serving_write_leases (community_id, lease_until);
create index community_serving_write_leases_expiry_idx
  on public.community_serving_write_leases (lease_until);

create table public.storage_taxonomy_sweeps (
  id uuid not null default gen_random_uuid(),
  started_at timestamptz not null,
  completed_at timestamptz not null,
  listed_objects bigint not null,
  unknown_object_count bigint not null,
  unknown_key_sample jsonb not null default '[]'::jsonb,
  object_cap bigint not null,
  truncated boolean not null default false,
  constraint storage_taxonomy_sweeps_pkey primary key (id),
  constraint storage_taxonomy_sweeps_counts_are_consistent
    check (listed_objects >= 0 and unknown_object_count >= 0 and unknown_object_count <= listed_objects),
  constraint storage_taxonomy_sweeps_cap_is_positive check (object_cap > 0),
  constraint storage_taxonomy_sweeps_sample_is_array check (jsonb_typeof(unknown_key_sample) = 'array'),
  constraint storage_taxonomy_sweeps_times_are_ordered check (started_at <= completed_at)
);
create index storage_taxonomy_sweeps_completed_idx on public.storage_taxonomy_sweeps (completed_at);

-- Registry contents for the reference schema. Purge order is child before parent.
insert into public.community_deletion_tables (table_name, kind, purge_order) values
  ('workflow_approvals', 'scoped', 10),
  ('scheduled_workflow_fires', 'scoped', 20),
  ('workflow_runs', 'scoped', 30),
  ('push_wake_outbox', 'scoped', 40),
  ('join_policy_acceptances', 'scoped', 50),
  ('moderation_reports', 'scoped', 60),
  ('subscriptions', 'scoped', 70),
  ('api_tokens', 'scoped', 80),
  ('channel_members', 'scoped', 90),
  ('thread_metadata', 'scoped', 100),
  ('moderation_actions', 'scoped', 110),
  ('workflows', 'scoped', 120),
  ('event_mentions', 'scoped', 130),
  ('reactions', 'scoped', 140),
  ('push_match_queue', 'scoped', 150),
  ('push_leases', 'scoped', 160),
  ('relay_invites', 'scoped', 170),
  ('delivery_log', 'scoped', 180),
  ('events', 'scoped', 190),
  ('parameterized_event_watermarks', 'scoped', 200),
  ('git_repo_names', 'scoped', 210),
  ('archived_identities', 'scoped', 220),
  ('audit_log', 'scoped', 230),
  ('community_bans', 'scoped', 240),
  ('pubkey_allowlist', 'scoped', 250),
  ('relay_members', 'scoped', 260),
  ('users', 'scoped', 270),
  ('channels', 'scoped', 280);
insert into public.community_deletion_tables (table_name, kind, purge_order, note) values
  ('product_feedback', 'provenance', null, 'operator-global; purge nulls community_id'),
  ('rate_limit_violations', 'provenance', null, 'operator-global; purge nulls community_id'),
  ('community_deletion_requests', 'control_plane', null, 'deletion evidence, kept'),
  ('community_deletion_approvals', 'control_plane', null, 'deletion evidence, kept'),
  ('community_serving_write_leases', 'control_plane', null, 'serving-path lease rows, expire on their own');

insert into public.community_deletion_storage_taxonomy
  (name, scope, prefix_template, key_pattern, writer, description) values
  ('media_sidecar', 'owned', '_meta/{community}/', '^_meta/{community}/[0-9a-f]{64}\.json$', 'media',
   'media sidecar metadata for a blob'),
  ('upload_attribution', 'owned', '_uploads/{community}/', '^_uploads/{community}/[0-9a-f]{64}\.json$', 'media',
   'upload attribution record'),
  ('git_repo_pointer', 'owned', 'repos/{community}/', '^repos/{community}/[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.json$', 'git',
   'git repository pointer'),
  ('blob', 'shared', 'blobs/', '^blobs/[0-9a-f]{64}$', 'media', 'content-addressed media blob'),
  ('thumbnail', 'shared', 'thumbs/', '^thumbs/[0-9a-f]{64}$', 'media', 'content-addressed thumbnail'),
  ('git_manifest', 'shared', 'manifests/', '^manifests/[0-9a-f]{64}$', 'git', 'content-addressed git manifest'),
  ('git_pack', 'shared', 'packs/', '^packs/[0-9a-f]{64}\.pack$', 'git', 'content-addressed git pack'),
  ('git_pack_index', 'shared', 'idx/', '^idx/[0-9a-f]{64}\.idx$', 'git', 'content-addressed git pack index');
