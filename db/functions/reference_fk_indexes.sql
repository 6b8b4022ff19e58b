-- Indexes on the reference schema's foreign keys between community-scoped
-- tables (SPEC §3.1). PostgreSQL does not index the referencing side of a
-- foreign key; without these, deleting a parent row makes its ON DELETE NO
-- ACTION check scan every row of the community in the child table through the
-- community_id index. The purge deletes the children first, but in the same
-- transaction, so those child rows are only dead to itself: their index entries
-- cannot be marked dead and every check walks all of them again. The purge was
-- therefore quadratic in the tenant (measured: 100,000 rows → 8.5 s, of which
-- 6.6 s deleting 25,000 events against 13,000 dead delivery_log /
-- push_match_queue / moderation_reports rows; docs/benchmarks.md). With an
-- index on each foreign key's columns every check is a point lookup.
-- A host schema adopting the engine should index its foreign keys the same way.
create index if not exists git_repo_names_owner_idx on public.git_repo_names (community_id, owner_pubkey);
create index if not exists events_channel_idx on public.events (community_id, channel_id);
create index if not exists delivery_log_event_idx on public.delivery_log (community_id, event_id);
create index if not exists relay_invites_creator_idx on public.relay_invites (community_id, created_by);
create index if not exists push_leases_user_idx on public.push_leases (community_id, pubkey);
create index if not exists push_match_queue_event_idx on public.push_match_queue (community_id, event_id);
create index if not exists workflows_channel_idx on public.workflows (community_id, channel_id);
create index if not exists moderation_actions_target_idx on public.moderation_actions (community_id, target_pubkey);
create index if not exists thread_metadata_channel_idx on public.thread_metadata (community_id, channel_id);
create index if not exists channel_members_user_idx on public.channel_members (community_id, pubkey);
create index if not exists api_tokens_user_idx on public.api_tokens (community_id, pubkey);
create index if not exists subscriptions_user_idx on public.subscriptions (community_id, pubkey);
create index if not exists moderation_reports_event_idx on public.moderation_reports (community_id, event_id);
create index if not exists push_wake_outbox_user_idx on public.push_wake_outbox (community_id, pubkey);
create index if not exists workflow_runs_workflow_idx on public.workflow_runs (community_id, workflow_id);
create index if not exists scheduled_workflow_fires_workflow_idx on public.scheduled_workflow_fires (community_id, workflow_id);
