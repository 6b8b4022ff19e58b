--
-- PostgreSQL database dump
--

\restrict communitydeletion

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: pgcrypto; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA public;


--
-- Name: EXTENSION pgcrypto; Type: COMMENT; Schema: -; Owner: 
--

COMMENT ON EXTENSION pgcrypto IS 'cryptographic functions';


--
-- Name: tg_events__guard_read_state_delete(); Type: FUNCTION; Schema: public; Owner: postgres
--

CREATE FUNCTION public.tg_events__guard_read_state_delete() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO ''
    AS $$
begin
  if coalesce(current_setting('community_deletion.read_state_hard_delete', true), '') <> 'on' then
    raise exception 'read-state event % of community % cannot be hard-deleted', old.id, old.community_id
      using errcode = 'DL8G1',
            hint = 'Read-state rows are removed only by the community deletion purge.';
  end if;
  return old;
end;
$$;


ALTER FUNCTION public.tg_events__guard_read_state_delete() OWNER TO postgres;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: api_tokens; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.api_tokens (
    community_id uuid NOT NULL,
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    pubkey text NOT NULL,
    token_hash text NOT NULL,
    scopes text[] DEFAULT '{}'::text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone
);


ALTER TABLE public.api_tokens OWNER TO postgres;

--
-- Name: archived_identities; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.archived_identities (
    community_id uuid NOT NULL,
    pubkey text NOT NULL,
    archived_profile jsonb DEFAULT '{}'::jsonb NOT NULL,
    archived_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.archived_identities OWNER TO postgres;

--
-- Name: audit_log; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.audit_log (
    community_id uuid NOT NULL,
    id bigint NOT NULL,
    actor text,
    action text NOT NULL,
    detail jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.audit_log OWNER TO postgres;

--
-- Name: audit_log_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.audit_log ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.audit_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: channel_members; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.channel_members (
    community_id uuid NOT NULL,
    channel_id uuid NOT NULL,
    pubkey text NOT NULL,
    role text DEFAULT 'member'::text NOT NULL,
    joined_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.channel_members OWNER TO postgres;

--
-- Name: channels; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.channels (
    community_id uuid NOT NULL,
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name text NOT NULL,
    topic text,
    visibility text DEFAULT 'public'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    archived_at timestamp with time zone,
    CONSTRAINT channels_visibility_is_valid CHECK ((visibility = ANY (ARRAY['public'::text, 'private'::text, 'dm'::text])))
);


ALTER TABLE public.channels OWNER TO postgres;

--
-- Name: communities; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.communities (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    host text NOT NULL,
    name text DEFAULT ''::text NOT NULL,
    signing_key bytea,
    icon text,
    settings jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    archived_at timestamp with time zone,
    deleted_at timestamp with time zone,
    deletion_state text DEFAULT 'active'::text NOT NULL,
    deletion_fence_generation bigint DEFAULT 0 NOT NULL,
    CONSTRAINT communities_deletion_state_is_valid CHECK ((deletion_state = ANY (ARRAY['active'::text, 'quiescing'::text, 'fenced'::text, 'tombstone'::text]))),
    CONSTRAINT communities_fence_generation_is_non_negative CHECK ((deletion_fence_generation >= 0)),
    CONSTRAINT communities_host_is_valid CHECK (((host = btrim(host)) AND (host <> ''::text) AND (length(host) <= 253))),
    CONSTRAINT communities_tombstone_has_deleted_at CHECK (((deletion_state = 'tombstone'::text) = (deleted_at IS NOT NULL)))
);


ALTER TABLE public.communities OWNER TO postgres;

--
-- Name: community_bans; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.community_bans (
    community_id uuid NOT NULL,
    pubkey text NOT NULL,
    reason text,
    banned_by text,
    banned_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone
);


ALTER TABLE public.community_bans OWNER TO postgres;

--
-- Name: community_deletion_approvals; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.community_deletion_approvals (
    request_id uuid NOT NULL,
    community_id uuid NOT NULL,
    inventory_digest text NOT NULL,
    approved_by text NOT NULL,
    note text,
    not_before timestamp with time zone NOT NULL,
    approved_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT community_deletion_approvals_approved_by_is_present CHECK (((btrim(approved_by) <> ''::text) AND (length(approved_by) <= 512))),
    CONSTRAINT community_deletion_approvals_not_before_after_approval CHECK ((not_before >= approved_at))
);


ALTER TABLE public.community_deletion_approvals OWNER TO postgres;

--
-- Name: community_deletion_checkpoints; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.community_deletion_checkpoints (
    sequence bigint NOT NULL,
    request_id uuid NOT NULL,
    stage text NOT NULL,
    unit_key text NOT NULL,
    status text NOT NULL,
    attempts integer DEFAULT 1 NOT NULL,
    lease_generation bigint NOT NULL,
    detail jsonb DEFAULT '{}'::jsonb NOT NULL,
    error text,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    completed_at timestamp with time zone,
    CONSTRAINT community_deletion_checkpoints_attempts_are_positive CHECK ((attempts > 0)),
    CONSTRAINT community_deletion_checkpoints_completed_has_time CHECK (((status = 'completed'::text) = (completed_at IS NOT NULL))),
    CONSTRAINT community_deletion_checkpoints_detail_is_object CHECK ((jsonb_typeof(detail) = 'object'::text)),
    CONSTRAINT community_deletion_checkpoints_failed_has_error CHECK (((status <> 'failed'::text) OR (error IS NOT NULL))),
    CONSTRAINT community_deletion_checkpoints_stage_is_valid CHECK ((stage = ANY (ARRAY['submitted'::text, 'inventoried'::text, 'approved'::text, 'fenced'::text, 'drained'::text, 'bindings_removed'::text, 'postgres_purged'::text, 'cache_purged'::text, 'logically_verified'::text, 'retention_pending'::text, 'aborted'::text]))),
    CONSTRAINT community_deletion_checkpoints_status_is_valid CHECK ((status = ANY (ARRAY['started'::text, 'completed'::text, 'failed'::text]))),
    CONSTRAINT community_deletion_checkpoints_unit_key_is_present CHECK (((btrim(unit_key) <> ''::text) AND (length(unit_key) <= 256)))
);


ALTER TABLE public.community_deletion_checkpoints OWNER TO postgres;

--
-- Name: community_deletion_checkpoints_sequence_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.community_deletion_checkpoints ALTER COLUMN sequence ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.community_deletion_checkpoints_sequence_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: community_deletion_executor_heartbeats; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.community_deletion_executor_heartbeats (
    executor_id text NOT NULL,
    mode text NOT NULL,
    request_id uuid,
    draining boolean DEFAULT false NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL,
    stopped_at timestamp with time zone,
    CONSTRAINT community_deletion_executor_heartbeats_executor_is_present CHECK (((btrim(executor_id) <> ''::text) AND (length(executor_id) <= 256))),
    CONSTRAINT community_deletion_executor_heartbeats_mode_is_valid CHECK ((mode = ANY (ARRAY['run'::text, 'drain'::text, 'worker'::text])))
);


ALTER TABLE public.community_deletion_executor_heartbeats OWNER TO postgres;

--
-- Name: community_deletion_manifest_keys; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.community_deletion_manifest_keys (
    request_id uuid NOT NULL,
    chunk_no integer NOT NULL,
    prefix text NOT NULL,
    entries jsonb NOT NULL,
    entry_count integer NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT community_deletion_manifest_keys_chunk_is_not_empty CHECK ((entry_count > 0)),
    CONSTRAINT community_deletion_manifest_keys_chunk_no_is_non_negative CHECK ((chunk_no >= 0)),
    CONSTRAINT community_deletion_manifest_keys_entries_are_array CHECK (((jsonb_typeof(entries) = 'array'::text) AND (jsonb_array_length(entries) = entry_count))),
    CONSTRAINT community_deletion_manifest_keys_prefix_is_present CHECK (((prefix <> ''::text) AND (prefix ~~ '%/'::text)))
);


ALTER TABLE public.community_deletion_manifest_keys OWNER TO postgres;

--
-- Name: community_deletion_requests; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.community_deletion_requests (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    community_id uuid NOT NULL,
    community_host text NOT NULL,
    stage text DEFAULT 'submitted'::text NOT NULL,
    requested_by text NOT NULL,
    reason text,
    schema_manifest jsonb,
    storage_manifest jsonb,
    inventory_manifest jsonb,
    inventory_digest text,
    inventory_frozen_at timestamp with time zone,
    destructive_storage_manifest jsonb,
    destructive_storage_frozen_at timestamp with time zone,
    fence_generation bigint,
    lease_owner text,
    lease_generation bigint DEFAULT 0 NOT NULL,
    lease_until timestamp with time zone,
    attempts integer DEFAULT 0 NOT NULL,
    retry_stage text,
    retry_count integer DEFAULT 0 NOT NULL,
    last_error text,
    last_error_at timestamp with time zone,
    next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
    blocked_at timestamp with time zone,
    blocked_reason text,
    pre_quiesce_archived_at timestamp with time zone,
    quiescing_started_at timestamp with time zone,
    aborted_by text,
    abort_reason text,
    aborted_at timestamp with time zone,
    completed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT community_deletion_requests_abort_is_whole CHECK (((stage = 'aborted'::text) = ((aborted_at IS NOT NULL) AND (aborted_by IS NOT NULL) AND (abort_reason IS NOT NULL)))),
    CONSTRAINT community_deletion_requests_block_is_whole CHECK (((blocked_at IS NULL) = (blocked_reason IS NULL))),
    CONSTRAINT community_deletion_requests_counters_are_non_negative CHECK (((lease_generation >= 0) AND (attempts >= 0) AND (retry_count >= 0))),
    CONSTRAINT community_deletion_requests_destructive_manifest_is_whole CHECK (((destructive_storage_manifest IS NULL) = (destructive_storage_frozen_at IS NULL))),
    CONSTRAINT community_deletion_requests_digest_is_hex CHECK ((inventory_digest ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT community_deletion_requests_fenced_stages_have_generation CHECK (((stage <> ALL (ARRAY['fenced'::text, 'drained'::text, 'bindings_removed'::text, 'postgres_purged'::text, 'cache_purged'::text, 'logically_verified'::text, 'retention_pending'::text])) OR (fence_generation IS NOT NULL))),
    CONSTRAINT community_deletion_requests_inventory_frozen_after_submitted CHECK (((stage = ANY (ARRAY['submitted'::text, 'aborted'::text])) OR ((inventory_digest IS NOT NULL) AND (inventory_manifest IS NOT NULL) AND (schema_manifest IS NOT NULL) AND (storage_manifest IS NOT NULL) AND (inventory_frozen_at IS NOT NULL)))),
    CONSTRAINT community_deletion_requests_lease_is_whole CHECK (((lease_owner IS NULL) = (lease_until IS NULL))),
    CONSTRAINT community_deletion_requests_lease_owner_is_present CHECK ((btrim(lease_owner) <> ''::text)),
    CONSTRAINT community_deletion_requests_requested_by_is_present CHECK (((btrim(requested_by) <> ''::text) AND (length(requested_by) <= 512))),
    CONSTRAINT community_deletion_requests_retry_stage_is_valid CHECK ((retry_stage = ANY (ARRAY['approved'::text, 'fenced'::text, 'drained'::text, 'bindings_removed'::text, 'postgres_purged'::text, 'cache_purged'::text, 'logically_verified'::text]))),
    CONSTRAINT community_deletion_requests_stage_is_valid CHECK ((stage = ANY (ARRAY['submitted'::text, 'inventoried'::text, 'approved'::text, 'fenced'::text, 'drained'::text, 'bindings_removed'::text, 'postgres_purged'::text, 'cache_purged'::text, 'logically_verified'::text, 'retention_pending'::text, 'aborted'::text]))),
    CONSTRAINT community_deletion_requests_terminal_holds_no_lease CHECK (((stage <> ALL (ARRAY['aborted'::text, 'retention_pending'::text])) OR (lease_owner IS NULL))),
    CONSTRAINT community_deletion_requests_terminal_is_completed CHECK (((stage = ANY (ARRAY['aborted'::text, 'retention_pending'::text])) = (completed_at IS NOT NULL)))
);


ALTER TABLE public.community_deletion_requests OWNER TO postgres;

--
-- Name: community_deletion_settings; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.community_deletion_settings (
    singleton boolean DEFAULT true NOT NULL,
    approval_grace_period interval DEFAULT '00:00:00'::interval NOT NULL,
    max_consecutive_failures integer DEFAULT 8 NOT NULL,
    retry_base_delay interval DEFAULT '00:00:05'::interval NOT NULL,
    retry_max_delay interval DEFAULT '00:15:00'::interval NOT NULL,
    CONSTRAINT community_deletion_settings_delays_are_ordered CHECK (((retry_base_delay > '00:00:00'::interval) AND (retry_max_delay >= retry_base_delay))),
    CONSTRAINT community_deletion_settings_failures_are_positive CHECK ((max_consecutive_failures > 0)),
    CONSTRAINT community_deletion_settings_grace_is_non_negative CHECK ((approval_grace_period >= '00:00:00'::interval)),
    CONSTRAINT community_deletion_settings_is_singleton CHECK (singleton)
);


ALTER TABLE public.community_deletion_settings OWNER TO postgres;

--
-- Name: community_deletion_storage_taxonomy; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.community_deletion_storage_taxonomy (
    name text NOT NULL,
    scope text NOT NULL,
    prefix_template text NOT NULL,
    key_pattern text NOT NULL,
    writer text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    CONSTRAINT community_deletion_storage_taxonomy_owned_prefix_has_community CHECK (((scope = 'owned'::text) = (prefix_template ~~ '%{community}/'::text))),
    CONSTRAINT community_deletion_storage_taxonomy_pattern_is_anchored CHECK (((key_pattern ~~ '^%'::text) AND (key_pattern ~~ '%$'::text))),
    CONSTRAINT community_deletion_storage_taxonomy_scope_is_valid CHECK ((scope = ANY (ARRAY['owned'::text, 'shared'::text])))
);


ALTER TABLE public.community_deletion_storage_taxonomy OWNER TO postgres;

--
-- Name: community_deletion_tables; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.community_deletion_tables (
    table_name text NOT NULL,
    kind text NOT NULL,
    purge_order integer,
    registered_at timestamp with time zone DEFAULT now() NOT NULL,
    note text,
    CONSTRAINT community_deletion_tables_kind_is_valid CHECK ((kind = ANY (ARRAY['scoped'::text, 'provenance'::text, 'control_plane'::text]))),
    CONSTRAINT community_deletion_tables_name_is_identifier CHECK ((table_name ~ '^[a-z_][a-z0-9_]{0,62}$'::text)),
    CONSTRAINT community_deletion_tables_purge_order_is_positive CHECK ((purge_order > 0)),
    CONSTRAINT community_deletion_tables_purge_order_only_for_scoped CHECK (((kind = 'scoped'::text) = (purge_order IS NOT NULL)))
);


ALTER TABLE public.community_deletion_tables OWNER TO postgres;

--
-- Name: community_serving_write_leases; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.community_serving_write_leases (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    community_id uuid NOT NULL,
    operation text NOT NULL,
    owner text NOT NULL,
    generation bigint DEFAULT 1 NOT NULL,
    fence_generation bigint NOT NULL,
    acquired_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_until timestamp with time zone NOT NULL,
    CONSTRAINT community_serving_write_leases_generation_is_positive CHECK ((generation > 0)),
    CONSTRAINT community_serving_write_leases_operation_is_present CHECK (((btrim(operation) <> ''::text) AND (length(operation) <= 128))),
    CONSTRAINT community_serving_write_leases_owner_is_present CHECK (((btrim(owner) <> ''::text) AND (length(owner) <= 256)))
);


ALTER TABLE public.community_serving_write_leases OWNER TO postgres;

--
-- Name: delivery_log; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.delivery_log (
    community_id uuid NOT NULL,
    id bigint NOT NULL,
    event_id text NOT NULL,
    recipient_pubkey text NOT NULL,
    delivered_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.delivery_log OWNER TO postgres;

--
-- Name: delivery_log_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.delivery_log ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.delivery_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: event_mentions; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.event_mentions (
    community_id uuid NOT NULL,
    event_id text NOT NULL,
    mentioned_pubkey text NOT NULL
);


ALTER TABLE public.event_mentions OWNER TO postgres;

--
-- Name: events; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.events (
    community_id uuid NOT NULL,
    id text NOT NULL,
    pubkey text NOT NULL,
    kind integer NOT NULL,
    d_tag text,
    channel_id uuid,
    content text DEFAULT ''::text NOT NULL,
    tags jsonb DEFAULT '[]'::jsonb NOT NULL,
    sig text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT events_id_is_hex CHECK ((id ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT events_kind_is_valid CHECK ((kind >= 0))
);


ALTER TABLE public.events OWNER TO postgres;

--
-- Name: git_repo_names; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.git_repo_names (
    community_id uuid NOT NULL,
    name text NOT NULL,
    owner_pubkey text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT git_repo_names_name_is_valid CHECK ((name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$'::text))
);


ALTER TABLE public.git_repo_names OWNER TO postgres;

--
-- Name: join_policy_acceptances; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.join_policy_acceptances (
    community_id uuid NOT NULL,
    pubkey text NOT NULL,
    policy_version integer NOT NULL,
    accepted_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.join_policy_acceptances OWNER TO postgres;

--
-- Name: moderation_actions; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.moderation_actions (
    community_id uuid NOT NULL,
    id bigint NOT NULL,
    moderator_pubkey text NOT NULL,
    target_pubkey text NOT NULL,
    action text NOT NULL,
    reason text,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.moderation_actions OWNER TO postgres;

--
-- Name: moderation_actions_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.moderation_actions ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.moderation_actions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: moderation_reports; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.moderation_reports (
    community_id uuid NOT NULL,
    id bigint NOT NULL,
    reporter_pubkey text NOT NULL,
    event_id text NOT NULL,
    reason text,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.moderation_reports OWNER TO postgres;

--
-- Name: moderation_reports_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.moderation_reports ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.moderation_reports_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: parameterized_event_watermarks; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.parameterized_event_watermarks (
    community_id uuid NOT NULL,
    pubkey text NOT NULL,
    kind integer NOT NULL,
    d_tag text NOT NULL,
    latest_created_at timestamp with time zone NOT NULL,
    latest_event_id text NOT NULL
);


ALTER TABLE public.parameterized_event_watermarks OWNER TO postgres;

--
-- Name: product_feedback; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.product_feedback (
    id bigint NOT NULL,
    community_id uuid,
    submitted_by text,
    body text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.product_feedback OWNER TO postgres;

--
-- Name: product_feedback_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.product_feedback ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.product_feedback_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: pubkey_allowlist; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.pubkey_allowlist (
    community_id uuid NOT NULL,
    pubkey text NOT NULL,
    added_by text,
    added_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.pubkey_allowlist OWNER TO postgres;

--
-- Name: push_leases; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.push_leases (
    community_id uuid NOT NULL,
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    pubkey text NOT NULL,
    device_token text NOT NULL,
    lease_until timestamp with time zone NOT NULL
);


ALTER TABLE public.push_leases OWNER TO postgres;

--
-- Name: push_match_queue; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.push_match_queue (
    community_id uuid NOT NULL,
    id bigint NOT NULL,
    event_id text NOT NULL,
    enqueued_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.push_match_queue OWNER TO postgres;

--
-- Name: push_match_queue_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.push_match_queue ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.push_match_queue_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: push_wake_outbox; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.push_wake_outbox (
    community_id uuid NOT NULL,
    id bigint NOT NULL,
    pubkey text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    enqueued_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.push_wake_outbox OWNER TO postgres;

--
-- Name: push_wake_outbox_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.push_wake_outbox ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.push_wake_outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: rate_limit_violations; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.rate_limit_violations (
    id bigint NOT NULL,
    community_id uuid,
    pubkey text,
    limiter text NOT NULL,
    observed_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.rate_limit_violations OWNER TO postgres;

--
-- Name: rate_limit_violations_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.rate_limit_violations ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.rate_limit_violations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: reactions; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.reactions (
    community_id uuid NOT NULL,
    event_id text NOT NULL,
    pubkey text NOT NULL,
    content text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.reactions OWNER TO postgres;

--
-- Name: relay_invites; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.relay_invites (
    community_id uuid NOT NULL,
    code text NOT NULL,
    created_by text NOT NULL,
    max_uses integer DEFAULT 1 NOT NULL,
    uses integer DEFAULT 0 NOT NULL,
    expires_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT relay_invites_uses_are_bounded CHECK (((uses >= 0) AND (uses <= max_uses)))
);


ALTER TABLE public.relay_invites OWNER TO postgres;

--
-- Name: relay_members; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.relay_members (
    community_id uuid NOT NULL,
    pubkey text NOT NULL,
    role text DEFAULT 'member'::text NOT NULL,
    joined_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT relay_members_role_is_valid CHECK ((role = ANY (ARRAY['owner'::text, 'admin'::text, 'moderator'::text, 'member'::text])))
);


ALTER TABLE public.relay_members OWNER TO postgres;

--
-- Name: scheduled_workflow_fires; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.scheduled_workflow_fires (
    community_id uuid NOT NULL,
    id bigint NOT NULL,
    workflow_id uuid NOT NULL,
    fire_at timestamp with time zone NOT NULL,
    fired_at timestamp with time zone
);


ALTER TABLE public.scheduled_workflow_fires OWNER TO postgres;

--
-- Name: scheduled_workflow_fires_id_seq; Type: SEQUENCE; Schema: public; Owner: postgres
--

ALTER TABLE public.scheduled_workflow_fires ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.scheduled_workflow_fires_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: storage_taxonomy_sweeps; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.storage_taxonomy_sweeps (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    started_at timestamp with time zone NOT NULL,
    completed_at timestamp with time zone NOT NULL,
    listed_objects bigint NOT NULL,
    unknown_object_count bigint NOT NULL,
    unknown_key_sample jsonb DEFAULT '[]'::jsonb NOT NULL,
    object_cap bigint NOT NULL,
    truncated boolean DEFAULT false NOT NULL,
    CONSTRAINT storage_taxonomy_sweeps_cap_is_positive CHECK ((object_cap > 0)),
    CONSTRAINT storage_taxonomy_sweeps_counts_are_consistent CHECK (((listed_objects >= 0) AND (unknown_object_count >= 0) AND (unknown_object_count <= listed_objects))),
    CONSTRAINT storage_taxonomy_sweeps_sample_is_array CHECK ((jsonb_typeof(unknown_key_sample) = 'array'::text)),
    CONSTRAINT storage_taxonomy_sweeps_times_are_ordered CHECK ((started_at <= completed_at))
);


ALTER TABLE public.storage_taxonomy_sweeps OWNER TO postgres;

--
-- Name: subscriptions; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.subscriptions (
    community_id uuid NOT NULL,
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    pubkey text NOT NULL,
    filter jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.subscriptions OWNER TO postgres;

--
-- Name: thread_metadata; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.thread_metadata (
    community_id uuid NOT NULL,
    root_event_id text NOT NULL,
    channel_id uuid,
    reply_count integer DEFAULT 0 NOT NULL,
    last_reply_at timestamp with time zone
);


ALTER TABLE public.thread_metadata OWNER TO postgres;

--
-- Name: users; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.users (
    community_id uuid NOT NULL,
    pubkey text NOT NULL,
    display_name text,
    about text,
    picture_url text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT users_pubkey_is_hex CHECK ((pubkey ~ '^[0-9a-f]{64}$'::text))
);


ALTER TABLE public.users OWNER TO postgres;

--
-- Name: workflow_approvals; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.workflow_approvals (
    community_id uuid NOT NULL,
    run_id uuid NOT NULL,
    approver_pubkey text NOT NULL,
    decision text NOT NULL,
    decided_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT workflow_approvals_decision_is_valid CHECK ((decision = ANY (ARRAY['approve'::text, 'reject'::text])))
);


ALTER TABLE public.workflow_approvals OWNER TO postgres;

--
-- Name: workflow_runs; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.workflow_runs (
    community_id uuid NOT NULL,
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    workflow_id uuid NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    CONSTRAINT workflow_runs_status_is_valid CHECK ((status = ANY (ARRAY['pending'::text, 'running'::text, 'waiting_approval'::text, 'succeeded'::text, 'failed'::text])))
);


ALTER TABLE public.workflow_runs OWNER TO postgres;

--
-- Name: workflows; Type: TABLE; Schema: public; Owner: postgres
--

CREATE TABLE public.workflows (
    community_id uuid NOT NULL,
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name text NOT NULL,
    channel_id uuid,
    definition jsonb DEFAULT '{}'::jsonb NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE public.workflows OWNER TO postgres;

--
-- Name: api_tokens api_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.api_tokens
    ADD CONSTRAINT api_tokens_pkey PRIMARY KEY (community_id, id);


--
-- Name: api_tokens api_tokens_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.api_tokens
    ADD CONSTRAINT api_tokens_token_hash_key UNIQUE (token_hash);


--
-- Name: archived_identities archived_identities_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.archived_identities
    ADD CONSTRAINT archived_identities_pkey PRIMARY KEY (community_id, pubkey);


--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (community_id, id);


--
-- Name: channel_members channel_members_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.channel_members
    ADD CONSTRAINT channel_members_pkey PRIMARY KEY (community_id, channel_id, pubkey);


--
-- Name: channels channels_name_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.channels
    ADD CONSTRAINT channels_name_key UNIQUE (community_id, name);


--
-- Name: channels channels_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.channels
    ADD CONSTRAINT channels_pkey PRIMARY KEY (community_id, id);


--
-- Name: communities communities_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.communities
    ADD CONSTRAINT communities_pkey PRIMARY KEY (id);


--
-- Name: community_bans community_bans_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_bans
    ADD CONSTRAINT community_bans_pkey PRIMARY KEY (community_id, pubkey);


--
-- Name: community_deletion_approvals community_deletion_approvals_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_approvals
    ADD CONSTRAINT community_deletion_approvals_pkey PRIMARY KEY (request_id);


--
-- Name: community_deletion_checkpoints community_deletion_checkpoints_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_checkpoints
    ADD CONSTRAINT community_deletion_checkpoints_pkey PRIMARY KEY (sequence);


--
-- Name: community_deletion_checkpoints community_deletion_checkpoints_unit_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_checkpoints
    ADD CONSTRAINT community_deletion_checkpoints_unit_key UNIQUE (request_id, stage, unit_key);


--
-- Name: community_deletion_executor_heartbeats community_deletion_executor_heartbeats_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_executor_heartbeats
    ADD CONSTRAINT community_deletion_executor_heartbeats_pkey PRIMARY KEY (executor_id);


--
-- Name: community_deletion_manifest_keys community_deletion_manifest_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_manifest_keys
    ADD CONSTRAINT community_deletion_manifest_keys_pkey PRIMARY KEY (request_id, chunk_no);


--
-- Name: community_deletion_requests community_deletion_requests_approval_binding_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_requests
    ADD CONSTRAINT community_deletion_requests_approval_binding_key UNIQUE (id, community_id, inventory_digest);


--
-- Name: community_deletion_requests community_deletion_requests_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_requests
    ADD CONSTRAINT community_deletion_requests_pkey PRIMARY KEY (id);


--
-- Name: community_deletion_settings community_deletion_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_settings
    ADD CONSTRAINT community_deletion_settings_pkey PRIMARY KEY (singleton);


--
-- Name: community_deletion_storage_taxonomy community_deletion_storage_taxonomy_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_storage_taxonomy
    ADD CONSTRAINT community_deletion_storage_taxonomy_pkey PRIMARY KEY (name);


--
-- Name: community_deletion_storage_taxonomy community_deletion_storage_taxonomy_prefix_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_storage_taxonomy
    ADD CONSTRAINT community_deletion_storage_taxonomy_prefix_key UNIQUE (prefix_template);


--
-- Name: community_deletion_tables community_deletion_tables_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_tables
    ADD CONSTRAINT community_deletion_tables_pkey PRIMARY KEY (table_name);


--
-- Name: community_deletion_tables community_deletion_tables_purge_order_key; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_tables
    ADD CONSTRAINT community_deletion_tables_purge_order_key UNIQUE (purge_order);


--
-- Name: community_serving_write_leases community_serving_write_leases_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_serving_write_leases
    ADD CONSTRAINT community_serving_write_leases_pkey PRIMARY KEY (id);


--
-- Name: delivery_log delivery_log_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.delivery_log
    ADD CONSTRAINT delivery_log_pkey PRIMARY KEY (community_id, id);


--
-- Name: event_mentions event_mentions_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.event_mentions
    ADD CONSTRAINT event_mentions_pkey PRIMARY KEY (community_id, event_id, mentioned_pubkey);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (community_id, id);


--
-- Name: git_repo_names git_repo_names_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.git_repo_names
    ADD CONSTRAINT git_repo_names_pkey PRIMARY KEY (community_id, name);


--
-- Name: join_policy_acceptances join_policy_acceptances_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.join_policy_acceptances
    ADD CONSTRAINT join_policy_acceptances_pkey PRIMARY KEY (community_id, pubkey, policy_version);


--
-- Name: moderation_actions moderation_actions_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.moderation_actions
    ADD CONSTRAINT moderation_actions_pkey PRIMARY KEY (community_id, id);


--
-- Name: moderation_reports moderation_reports_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.moderation_reports
    ADD CONSTRAINT moderation_reports_pkey PRIMARY KEY (community_id, id);


--
-- Name: parameterized_event_watermarks parameterized_event_watermarks_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.parameterized_event_watermarks
    ADD CONSTRAINT parameterized_event_watermarks_pkey PRIMARY KEY (community_id, pubkey, kind, d_tag);


--
-- Name: product_feedback product_feedback_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.product_feedback
    ADD CONSTRAINT product_feedback_pkey PRIMARY KEY (id);


--
-- Name: pubkey_allowlist pubkey_allowlist_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.pubkey_allowlist
    ADD CONSTRAINT pubkey_allowlist_pkey PRIMARY KEY (community_id, pubkey);


--
-- Name: push_leases push_leases_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.push_leases
    ADD CONSTRAINT push_leases_pkey PRIMARY KEY (community_id, id);


--
-- Name: push_match_queue push_match_queue_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.push_match_queue
    ADD CONSTRAINT push_match_queue_pkey PRIMARY KEY (community_id, id);


--
-- Name: push_wake_outbox push_wake_outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.push_wake_outbox
    ADD CONSTRAINT push_wake_outbox_pkey PRIMARY KEY (community_id, id);


--
-- Name: rate_limit_violations rate_limit_violations_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.rate_limit_violations
    ADD CONSTRAINT rate_limit_violations_pkey PRIMARY KEY (id);


--
-- Name: reactions reactions_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.reactions
    ADD CONSTRAINT reactions_pkey PRIMARY KEY (community_id, event_id, pubkey, content);


--
-- Name: relay_invites relay_invites_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.relay_invites
    ADD CONSTRAINT relay_invites_pkey PRIMARY KEY (community_id, code);


--
-- Name: relay_members relay_members_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.relay_members
    ADD CONSTRAINT relay_members_pkey PRIMARY KEY (community_id, pubkey);


--
-- Name: scheduled_workflow_fires scheduled_workflow_fires_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.scheduled_workflow_fires
    ADD CONSTRAINT scheduled_workflow_fires_pkey PRIMARY KEY (community_id, id);


--
-- Name: storage_taxonomy_sweeps storage_taxonomy_sweeps_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.storage_taxonomy_sweeps
    ADD CONSTRAINT storage_taxonomy_sweeps_pkey PRIMARY KEY (id);


--
-- Name: subscriptions subscriptions_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.subscriptions
    ADD CONSTRAINT subscriptions_pkey PRIMARY KEY (community_id, id);


--
-- Name: thread_metadata thread_metadata_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.thread_metadata
    ADD CONSTRAINT thread_metadata_pkey PRIMARY KEY (community_id, root_event_id);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (community_id, pubkey);


--
-- Name: workflow_approvals workflow_approvals_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.workflow_approvals
    ADD CONSTRAINT workflow_approvals_pkey PRIMARY KEY (community_id, run_id, approver_pubkey);


--
-- Name: workflow_runs workflow_runs_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.workflow_runs
    ADD CONSTRAINT workflow_runs_pkey PRIMARY KEY (community_id, id);


--
-- Name: workflows workflows_pkey; Type: CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.workflows
    ADD CONSTRAINT workflows_pkey PRIMARY KEY (community_id, id);


--
-- Name: communities_host_lower_key; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX communities_host_lower_key ON public.communities USING btree (lower(host));


--
-- Name: community_deletion_requests_claim_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX community_deletion_requests_claim_idx ON public.community_deletion_requests USING btree (created_at, id) WHERE ((blocked_at IS NULL) AND (stage = ANY (ARRAY['approved'::text, 'fenced'::text, 'drained'::text, 'bindings_removed'::text, 'postgres_purged'::text, 'cache_purged'::text, 'logically_verified'::text])));


--
-- Name: community_deletion_requests_one_open_per_community; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX community_deletion_requests_one_open_per_community ON public.community_deletion_requests USING btree (community_id) WHERE (stage <> 'aborted'::text);


--
-- Name: community_serving_write_leases_community_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX community_serving_write_leases_community_idx ON public.community_serving_write_leases USING btree (community_id, lease_until);


--
-- Name: community_serving_write_leases_expiry_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX community_serving_write_leases_expiry_idx ON public.community_serving_write_leases USING btree (lease_until);


--
-- Name: events_community_kind_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX events_community_kind_idx ON public.events USING btree (community_id, kind, created_at);


--
-- Name: product_feedback_community_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX product_feedback_community_idx ON public.product_feedback USING btree (community_id);


--
-- Name: rate_limit_violations_community_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX rate_limit_violations_community_idx ON public.rate_limit_violations USING btree (community_id);


--
-- Name: storage_taxonomy_sweeps_completed_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX storage_taxonomy_sweeps_completed_idx ON public.storage_taxonomy_sweeps USING btree (completed_at);


--
-- Name: events _200_guard_read_state_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _200_guard_read_state_delete BEFORE DELETE ON public.events FOR EACH ROW WHEN (((old.kind = 30078) AND (old.d_tag ~~ 'read-state:%'::text))) EXECUTE FUNCTION public.tg_events__guard_read_state_delete();


--
-- Name: api_tokens api_tokens_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.api_tokens
    ADD CONSTRAINT api_tokens_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: api_tokens api_tokens_user_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.api_tokens
    ADD CONSTRAINT api_tokens_user_fkey FOREIGN KEY (community_id, pubkey) REFERENCES public.users(community_id, pubkey);


--
-- Name: archived_identities archived_identities_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.archived_identities
    ADD CONSTRAINT archived_identities_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: audit_log audit_log_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: channel_members channel_members_channel_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.channel_members
    ADD CONSTRAINT channel_members_channel_fkey FOREIGN KEY (community_id, channel_id) REFERENCES public.channels(community_id, id);


--
-- Name: channel_members channel_members_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.channel_members
    ADD CONSTRAINT channel_members_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: channel_members channel_members_user_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.channel_members
    ADD CONSTRAINT channel_members_user_fkey FOREIGN KEY (community_id, pubkey) REFERENCES public.users(community_id, pubkey);


--
-- Name: channels channels_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.channels
    ADD CONSTRAINT channels_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: community_bans community_bans_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_bans
    ADD CONSTRAINT community_bans_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: community_deletion_approvals community_deletion_approvals_request_binding_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_approvals
    ADD CONSTRAINT community_deletion_approvals_request_binding_fkey FOREIGN KEY (request_id, community_id, inventory_digest) REFERENCES public.community_deletion_requests(id, community_id, inventory_digest);


--
-- Name: community_deletion_checkpoints community_deletion_checkpoints_request_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_checkpoints
    ADD CONSTRAINT community_deletion_checkpoints_request_fkey FOREIGN KEY (request_id) REFERENCES public.community_deletion_requests(id);


--
-- Name: community_deletion_executor_heartbeats community_deletion_executor_heartbeats_request_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_executor_heartbeats
    ADD CONSTRAINT community_deletion_executor_heartbeats_request_fkey FOREIGN KEY (request_id) REFERENCES public.community_deletion_requests(id);


--
-- Name: community_deletion_manifest_keys community_deletion_manifest_keys_request_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_manifest_keys
    ADD CONSTRAINT community_deletion_manifest_keys_request_fkey FOREIGN KEY (request_id) REFERENCES public.community_deletion_requests(id);


--
-- Name: community_deletion_requests community_deletion_requests_community_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_deletion_requests
    ADD CONSTRAINT community_deletion_requests_community_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: community_serving_write_leases community_serving_write_leases_community_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.community_serving_write_leases
    ADD CONSTRAINT community_serving_write_leases_community_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: delivery_log delivery_log_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.delivery_log
    ADD CONSTRAINT delivery_log_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: delivery_log delivery_log_event_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.delivery_log
    ADD CONSTRAINT delivery_log_event_fkey FOREIGN KEY (community_id, event_id) REFERENCES public.events(community_id, id);


--
-- Name: event_mentions event_mentions_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.event_mentions
    ADD CONSTRAINT event_mentions_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: event_mentions event_mentions_event_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.event_mentions
    ADD CONSTRAINT event_mentions_event_fkey FOREIGN KEY (community_id, event_id) REFERENCES public.events(community_id, id);


--
-- Name: events events_channel_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_channel_fkey FOREIGN KEY (community_id, channel_id) REFERENCES public.channels(community_id, id);


--
-- Name: events events_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: git_repo_names git_repo_names_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.git_repo_names
    ADD CONSTRAINT git_repo_names_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: git_repo_names git_repo_names_owner_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.git_repo_names
    ADD CONSTRAINT git_repo_names_owner_fkey FOREIGN KEY (community_id, owner_pubkey) REFERENCES public.users(community_id, pubkey);


--
-- Name: join_policy_acceptances join_policy_acceptances_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.join_policy_acceptances
    ADD CONSTRAINT join_policy_acceptances_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: join_policy_acceptances join_policy_acceptances_user_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.join_policy_acceptances
    ADD CONSTRAINT join_policy_acceptances_user_fkey FOREIGN KEY (community_id, pubkey) REFERENCES public.users(community_id, pubkey);


--
-- Name: moderation_actions moderation_actions_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.moderation_actions
    ADD CONSTRAINT moderation_actions_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: moderation_actions moderation_actions_target_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.moderation_actions
    ADD CONSTRAINT moderation_actions_target_fkey FOREIGN KEY (community_id, target_pubkey) REFERENCES public.users(community_id, pubkey);


--
-- Name: moderation_reports moderation_reports_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.moderation_reports
    ADD CONSTRAINT moderation_reports_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: moderation_reports moderation_reports_event_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.moderation_reports
    ADD CONSTRAINT moderation_reports_event_fkey FOREIGN KEY (community_id, event_id) REFERENCES public.events(community_id, id);


--
-- Name: parameterized_event_watermarks parameterized_event_watermarks_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.parameterized_event_watermarks
    ADD CONSTRAINT parameterized_event_watermarks_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: product_feedback product_feedback_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.product_feedback
    ADD CONSTRAINT product_feedback_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: pubkey_allowlist pubkey_allowlist_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.pubkey_allowlist
    ADD CONSTRAINT pubkey_allowlist_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: push_leases push_leases_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.push_leases
    ADD CONSTRAINT push_leases_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: push_leases push_leases_user_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.push_leases
    ADD CONSTRAINT push_leases_user_fkey FOREIGN KEY (community_id, pubkey) REFERENCES public.users(community_id, pubkey);


--
-- Name: push_match_queue push_match_queue_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.push_match_queue
    ADD CONSTRAINT push_match_queue_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: push_match_queue push_match_queue_event_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.push_match_queue
    ADD CONSTRAINT push_match_queue_event_fkey FOREIGN KEY (community_id, event_id) REFERENCES public.events(community_id, id);


--
-- Name: push_wake_outbox push_wake_outbox_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.push_wake_outbox
    ADD CONSTRAINT push_wake_outbox_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: push_wake_outbox push_wake_outbox_user_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.push_wake_outbox
    ADD CONSTRAINT push_wake_outbox_user_fkey FOREIGN KEY (community_id, pubkey) REFERENCES public.users(community_id, pubkey);


--
-- Name: rate_limit_violations rate_limit_violations_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.rate_limit_violations
    ADD CONSTRAINT rate_limit_violations_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: reactions reactions_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.reactions
    ADD CONSTRAINT reactions_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: reactions reactions_event_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.reactions
    ADD CONSTRAINT reactions_event_fkey FOREIGN KEY (community_id, event_id) REFERENCES public.events(community_id, id);


--
-- Name: relay_invites relay_invites_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.relay_invites
    ADD CONSTRAINT relay_invites_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: relay_invites relay_invites_creator_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.relay_invites
    ADD CONSTRAINT relay_invites_creator_fkey FOREIGN KEY (community_id, created_by) REFERENCES public.users(community_id, pubkey);


--
-- Name: relay_members relay_members_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.relay_members
    ADD CONSTRAINT relay_members_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: relay_members relay_members_user_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.relay_members
    ADD CONSTRAINT relay_members_user_fkey FOREIGN KEY (community_id, pubkey) REFERENCES public.users(community_id, pubkey);


--
-- Name: scheduled_workflow_fires scheduled_workflow_fires_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.scheduled_workflow_fires
    ADD CONSTRAINT scheduled_workflow_fires_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: scheduled_workflow_fires scheduled_workflow_fires_workflow_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.scheduled_workflow_fires
    ADD CONSTRAINT scheduled_workflow_fires_workflow_fkey FOREIGN KEY (community_id, workflow_id) REFERENCES public.workflows(community_id, id);


--
-- Name: subscriptions subscriptions_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.subscriptions
    ADD CONSTRAINT subscriptions_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: subscriptions subscriptions_user_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.subscriptions
    ADD CONSTRAINT subscriptions_user_fkey FOREIGN KEY (community_id, pubkey) REFERENCES public.users(community_id, pubkey);


--
-- Name: thread_metadata thread_metadata_channel_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.thread_metadata
    ADD CONSTRAINT thread_metadata_channel_fkey FOREIGN KEY (community_id, channel_id) REFERENCES public.channels(community_id, id);


--
-- Name: thread_metadata thread_metadata_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.thread_metadata
    ADD CONSTRAINT thread_metadata_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: thread_metadata thread_metadata_root_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.thread_metadata
    ADD CONSTRAINT thread_metadata_root_fkey FOREIGN KEY (community_id, root_event_id) REFERENCES public.events(community_id, id);


--
-- Name: users users_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: workflow_approvals workflow_approvals_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.workflow_approvals
    ADD CONSTRAINT workflow_approvals_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: workflow_approvals workflow_approvals_run_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.workflow_approvals
    ADD CONSTRAINT workflow_approvals_run_fkey FOREIGN KEY (community_id, run_id) REFERENCES public.workflow_runs(community_id, id);


--
-- Name: workflow_runs workflow_runs_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.workflow_runs
    ADD CONSTRAINT workflow_runs_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: workflow_runs workflow_runs_workflow_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.workflow_runs
    ADD CONSTRAINT workflow_runs_workflow_fkey FOREIGN KEY (community_id, workflow_id) REFERENCES public.workflows(community_id, id);


--
-- Name: workflows workflows_channel_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.workflows
    ADD CONSTRAINT workflows_channel_fkey FOREIGN KEY (community_id, channel_id) REFERENCES public.channels(community_id, id);


--
-- Name: workflows workflows_community_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: postgres
--

ALTER TABLE ONLY public.workflows
    ADD CONSTRAINT workflows_community_id_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- PostgreSQL database dump complete
--

\unrestrict communitydeletion

