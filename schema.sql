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
-- Name: community_deletion; Type: SCHEMA; Schema: -; Owner: postgres
--

CREATE SCHEMA community_deletion;


ALTER SCHEMA community_deletion OWNER TO postgres;

--
-- Name: SCHEMA community_deletion; Type: COMMENT; Schema: -; Owner: postgres
--

COMMENT ON SCHEMA community_deletion IS 'community-deletion engine: control plane, registries and the SQL API (docs/sql-api.md)';


--
-- Name: pgcrypto; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA public;


--
-- Name: EXTENSION pgcrypto; Type: COMMENT; Schema: -; Owner: 
--

COMMENT ON EXTENSION pgcrypto IS 'cryptographic functions';


--
-- Name: lease_token; Type: TYPE; Schema: community_deletion; Owner: postgres
--

CREATE TYPE community_deletion.lease_token AS (
	request_id uuid,
	community_id uuid,
	stage text,
	lease_owner text,
	lease_generation bigint,
	fence_generation bigint,
	lease_until timestamp with time zone
);


ALTER TYPE community_deletion.lease_token OWNER TO postgres;

--
-- Name: TYPE lease_token; Type: COMMENT; Schema: community_deletion; Owner: postgres
--

COMMENT ON TYPE community_deletion.lease_token IS 'What claim() returns: the lease token (request_id, lease_owner, lease_generation) every executor call presents.';


--
-- Name: _advance(uuid, text, bigint, text, text, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._advance(p_request_id uuid, p_owner text, p_generation bigint, p_from text, p_to text, p_fence_generation bigint DEFAULT NULL::bigint) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_terminal boolean := p_to = 'retention_pending';
begin
  if p_to is null or p_to is distinct from community_deletion._next_stage(p_from) then
    raise exception 'illegal deletion transition % -> % for request %', p_from, p_to, p_request_id
      using errcode = 'DL2S1';
  end if;
  update community_deletion.requests r
     set stage = p_to,
         fence_generation = coalesce(p_fence_generation, r.fence_generation),
         retry_count = 0,
         retry_stage = null,
         last_error = null,
         last_error_at = null,
         completed_at = case when v_terminal then now() else r.completed_at end,
         lease_owner = case when v_terminal then null else r.lease_owner end,
         lease_until = case when v_terminal then null else r.lease_until end,
         updated_at = now()
   where r.id = p_request_id
     and r.stage = p_from
     and r.lease_owner = p_owner
     and r.lease_generation = p_generation
     and r.lease_until >= now()
     and r.blocked_at is null
     and exists (select 1 from community_deletion.approvals a
                  where a.request_id = r.id and a.community_id = r.community_id
                    and a.inventory_digest = r.inventory_digest);
  if not found then
    raise exception 'stale deletion lease for request % (owner %, generation %): cannot advance % -> %',
      p_request_id, p_owner, p_generation, p_from, p_to
      using errcode = 'DL4L1',
            hint = 'Ownership was lost: stop work on this request.';
  end if;
end;
$$;


ALTER FUNCTION community_deletion._advance(p_request_id uuid, p_owner text, p_generation bigint, p_from text, p_to text, p_fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: _advisory_lock_holders(bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._advisory_lock_holders(p_key bigint) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select coalesce(pg_catalog.string_agg(
           pg_catalog.format('pid %s (role %s, application %s)', l.pid, coalesce(a.usename::text, '?'),
                             coalesce(nullif(a.application_name, ''), '?')), ', ' order by l.pid), 'nobody')
    from pg_catalog.pg_locks l
    left join pg_catalog.pg_stat_activity a on a.pid = l.pid
   where l.locktype = 'advisory' and l.granted and l.objsubid = 1
     and l.classid::bigint = ((p_key >> 32) & 4294967295)
     and l.objid::bigint = (p_key & 4294967295)
     and l.pid <> pg_catalog.pg_backend_pid()
$$;


ALTER FUNCTION community_deletion._advisory_lock_holders(p_key bigint) OWNER TO community_deletion_owner;

--
-- Name: _apply_lock_timeout(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._apply_lock_timeout() RETURNS void
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select pg_catalog.set_config('lock_timeout',
           (pg_catalog.ceil(extract(epoch from s.lock_timeout) * 1000))::bigint::text || 'ms', true)
    from community_deletion.settings s
$$;


ALTER FUNCTION community_deletion._apply_lock_timeout() OWNER TO community_deletion_owner;

--
-- Name: _attach_early_fence(regclass); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._attach_early_fence(p_table regclass) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_native boolean := community_deletion.write_fence_implementation() = 'native';
begin
  execute pg_catalog.format(
    'create or replace trigger _010_community_write_fence_early before insert or update on %s '
    'for each row %s execute function community_deletion.tg_scoped_table__refuse_write_early()', p_table,
    case when v_native then ''
         else 'when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
              'is distinct from new.community_id::pg_catalog.text)' end);
  execute pg_catalog.format(
    'create or replace trigger _010_community_write_fence_early_delete before delete on %s '
    'for each row %s execute function community_deletion.tg_scoped_table__refuse_write_early()', p_table,
    case when v_native then ''
         else 'when (pg_catalog.current_setting(''community_deletion.fence_checked'', true) '
              'is distinct from old.community_id::pg_catalog.text)' end);
end;
$$;


ALTER FUNCTION community_deletion._attach_early_fence(p_table regclass) OWNER TO community_deletion_owner;

--
-- Name: _bound_text(text, integer); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._bound_text(p text, p_max integer) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select case when p is null then null
              when pg_catalog.length(p) <= p_max then p
              else pg_catalog.left(p, greatest(p_max, 0)) end
$$;


ALTER FUNCTION community_deletion._bound_text(p text, p_max integer) OWNER TO community_deletion_owner;

--
-- Name: _canonical_storage_summary(uuid, jsonb, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._canonical_storage_summary(p_community uuid, p_summary jsonb, p_what text DEFAULT 'storage summary'::text) RETURNS jsonb
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
declare
  c_empty_digest constant text := 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
  c_max_bigint constant numeric := 9223372036854775807;
  v_owned text[] := community_deletion._owned_prefixes(p_community);
  v_key text;
  v_entry jsonb;
  v_prefix text;
  v_previous text;
  v_seen text[] := '{}';
  v_number numeric;
  v_object_count bigint;
  v_total_bytes bigint;
  v_digest text;
  v_field text;
  v_prefixes jsonb := '[]'::jsonb;
  v_problem text;
begin
  <<checks>>
  begin
    if p_summary is null or jsonb_typeof(p_summary) <> 'object' then
      v_problem := 'it is not a JSON object';
      exit checks;
    end if;
    select k into v_key from jsonb_object_keys(p_summary) k
     where k not in ('version', 'chunk_size', 'prefixes') order by k limit 1;
    if v_key is not null then
      v_problem := format('unknown key "%s"', v_key);
      exit checks;
    end if;
    if p_summary->'version' is null or p_summary->'version' <> '1'::jsonb then
      v_problem := format('unsupported version %s (supported: 1)', coalesce(p_summary->>'version', 'missing'));
      exit checks;
    end if;
    if jsonb_typeof(p_summary->'chunk_size') is distinct from 'number' then
      v_problem := format('chunk_size %s is not a number', coalesce(p_summary->>'chunk_size', 'missing'));
      exit checks;
    end if;
    v_number := (p_summary->>'chunk_size')::numeric;
    if v_number <> trunc(v_number) or v_number not between 1 and 1000000 then
      v_problem := format('chunk_size %s is not an integer in 1..1000000', v_number);
      exit checks;
    end if;
    if jsonb_typeof(p_summary->'prefixes') is distinct from 'array' or jsonb_array_length(p_summary->'prefixes') = 0 then
      v_problem := 'it lists no prefixes';
      exit checks;
    end if;
    for v_entry in select e from jsonb_array_elements(p_summary->'prefixes') e loop
      if jsonb_typeof(v_entry) <> 'object' then
        v_problem := 'a prefix entry is not an object';
        exit checks;
      end if;
      select k into v_key from jsonb_object_keys(v_entry) k
       where k not in ('prefix', 'object_count', 'total_bytes', 'keys_digest') order by k limit 1;
      if v_key is not null then
        v_problem := format('unknown prefix key "%s"', v_key);
        exit checks;
      end if;
      if jsonb_typeof(v_entry->'prefix') is distinct from 'string' or v_entry->>'prefix' = '' then
        v_problem := 'it contains an empty or missing prefix';
        exit checks;
      end if;
      v_prefix := v_entry->>'prefix';
      if v_previous is not null and not (v_previous < v_prefix collate "C") then
        v_problem := format('prefixes are not strictly sorted (%s then %s)', v_previous, v_prefix);
        exit checks;
      end if;
      v_previous := v_prefix;
      if v_prefix <> all (v_owned) then
        v_problem := format('prefix %s is not owned by community %s', v_prefix, p_community);
        exit checks;
      end if;
      foreach v_field in array array['object_count', 'total_bytes'] loop
        if jsonb_typeof(v_entry->v_field) is distinct from 'number' then
          v_problem := format('%s of %s is not a number', v_field, v_prefix);
          exit checks;
        end if;
        v_number := (v_entry->>v_field)::numeric;
        if v_number <> trunc(v_number) or v_number < 0 or v_number > c_max_bigint then
          v_problem := format('%s of %s is not a non-negative integer', v_field, v_prefix);
          exit checks;
        end if;
      end loop;
      v_object_count := (v_entry->>'object_count')::numeric::bigint;
      v_total_bytes := (v_entry->>'total_bytes')::numeric::bigint;
      v_digest := v_entry->>'keys_digest';
      if jsonb_typeof(v_entry->'keys_digest') is distinct from 'string' or v_digest !~ '^[0-9a-f]{64}$' then
        v_problem := format('keys_digest of %s is not lowercase hex SHA-256', v_prefix);
        exit checks;
      end if;
      if v_object_count = 0 and (v_total_bytes <> 0 or v_digest <> c_empty_digest) then
        v_problem := format('prefix %s has no objects but non-zero bytes or a non-empty digest', v_prefix);
        exit checks;
      end if;
      v_seen := v_seen || v_prefix;
      v_prefixes := v_prefixes || jsonb_build_array(jsonb_build_object(
        'prefix', v_prefix, 'object_count', v_object_count, 'total_bytes', v_total_bytes, 'keys_digest', v_digest));
    end loop;
    if v_seen <> v_owned then
      v_problem := format('prefixes [%s] are not exactly the owned prefixes [%s]',
                          array_to_string(v_seen, ', '), array_to_string(v_owned, ', '));
      exit checks;
    end if;
  end checks;
  if v_problem is not null then
    raise exception 'community deletion: % for community % is invalid: %', p_what, p_community, v_problem
      using errcode = 'DL1M1',
            hint = 'See docs/manifest-format.md: version 1, chunk_size, the three owned prefixes strictly sorted, integer counts, lowercase hex digests.';
  end if;
  return jsonb_build_object(
    'version', 1,
    'chunk_size', (p_summary->>'chunk_size')::numeric::integer,
    'prefixes', v_prefixes);
end;
$_$;


ALTER FUNCTION community_deletion._canonical_storage_summary(p_community uuid, p_summary jsonb, p_what text) OWNER TO community_deletion_owner;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: manifest_keys; Type: TABLE; Schema: community_deletion; Owner: postgres
--

CREATE TABLE community_deletion.manifest_keys (
    request_id uuid NOT NULL,
    chunk_no integer NOT NULL,
    prefix text NOT NULL,
    entries jsonb NOT NULL,
    entry_count integer NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT manifest_keys_chunk_is_not_empty CHECK ((entry_count > 0)),
    CONSTRAINT manifest_keys_chunk_no_is_non_negative CHECK ((chunk_no >= 0)),
    CONSTRAINT manifest_keys_entries_are_array CHECK (((jsonb_typeof(entries) = 'array'::text) AND (jsonb_array_length(entries) = entry_count))),
    CONSTRAINT manifest_keys_prefix_is_present CHECK (((prefix <> ''::text) AND (prefix ~~ '%/'::text)))
);


ALTER TABLE community_deletion.manifest_keys OWNER TO postgres;

--
-- Name: _check_key_chunk(community_deletion.manifest_keys, uuid); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._check_key_chunk(p_chunk community_deletion.manifest_keys, p_community uuid) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_last community_deletion.manifest_keys;
  v_pattern text;
  v_facts record;
  v_where text := format('request %s (community %s): key chunk %s', p_chunk.request_id, p_community, p_chunk.chunk_no);
begin
  select k.* into v_last
  from community_deletion.manifest_keys k
  where k.request_id = p_chunk.request_id
  order by k.chunk_no desc
  limit 1;
  if p_chunk.chunk_no is distinct from coalesce(v_last.chunk_no + 1, 0) then
    raise exception '% refused: the next chunk number is %', v_where, coalesce(v_last.chunk_no + 1, 0)
      using errcode = 'DL6K1',
            hint = 'Chunk numbers are contiguous from 0; after an interrupted enumeration call community_deletion.clear_key_chunks and start again.';
  end if;

  v_pattern := community_deletion._owned_key_pattern(p_community, p_chunk.prefix);
  if v_pattern is null then
    raise exception '% has prefix %, which is not an owned prefix of the target', v_where, p_chunk.prefix
      using errcode = 'DL6K1';
  end if;
  if v_last.prefix is not null and v_last.prefix collate "C" > p_chunk.prefix collate "C" then
    raise exception '% has prefix % after prefix % (prefixes go in byte order)', v_where, p_chunk.prefix, v_last.prefix
      using errcode = 'DL6K1';
  end if;

  if jsonb_typeof(p_chunk.entries) is distinct from 'array' then
    raise exception '%: entries must be a JSON array', v_where using errcode = 'DL1M1';
  end if;
  v_facts := community_deletion._key_chunk_facts(p_chunk.entries, p_chunk.prefix, v_pattern);
  if v_facts.entry_count = 0 then
    raise exception '% is empty', v_where
      using errcode = 'DL6K1',
            hint = 'A prefix with no entries has no chunks.';
  end if;
  if v_facts.bad_shape_at is not null then
    raise exception '%: entry % is not {"key", "version_id", "kind"} with non-empty TAB/LF-free strings: %',
      v_where, v_facts.bad_shape_at,
      community_deletion._bound_text((p_chunk.entries -> (v_facts.bad_shape_at - 1))::text, 512)
      using errcode = 'DL1M1';
  end if;
  if v_facts.outside_prefix_at is not null then
    raise exception '%: key % is outside the chunk prefix %', v_where,
      community_deletion._bound_text(p_chunk.entries -> (v_facts.outside_prefix_at - 1) ->> 'key', 512), p_chunk.prefix
      using errcode = 'DL6K1';
  end if;
  if v_facts.outside_taxonomy_at is not null then
    raise exception '%: key % under owned prefix % matches no known writer shape', v_where,
      community_deletion._bound_text(p_chunk.entries -> (v_facts.outside_taxonomy_at - 1) ->> 'key', 512), p_chunk.prefix
      using errcode = 'DL6K1',
            hint = 'A malformed key inside an owned prefix fails the deletion closed: register the writer''s key shape in community_deletion.storage_taxonomy or remove the object, then unblock.';
  end if;
  if v_facts.out_of_order_at is not null then
    raise exception '%: entry % is not strictly after its predecessor by (key, version_id)', v_where, v_facts.out_of_order_at
      using errcode = 'DL6K1';
  end if;
  if v_last.prefix = p_chunk.prefix
     and not community_deletion._manifest_entry_follows(v_last.entries -> -1, v_facts.first_entry) then
    raise exception '% does not continue strictly after chunk %', v_where, v_last.chunk_no
      using errcode = 'DL6K1';
  end if;
  if p_chunk.entry_count is distinct from v_facts.entry_count then
    raise exception '%: entry_count % does not match its % entries', v_where, p_chunk.entry_count, v_facts.entry_count
      using errcode = 'DL6K1';
  end if;
end;
$$;


ALTER FUNCTION community_deletion._check_key_chunk(p_chunk community_deletion.manifest_keys, p_community uuid) OWNER TO community_deletion_owner;

--
-- Name: _check_prefix_digest(uuid, uuid, jsonb, bigint, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._check_prefix_digest(p_request_id uuid, p_community uuid, p_summary jsonb, p_count bigint, p_chain text) RETURNS void
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_digest text := case when p_count = 0 then encode(sha256(''::bytea), 'hex') else p_chain end;
begin
  if p_count <> (p_summary ->> 'object_count')::bigint or v_digest <> (p_summary ->> 'keys_digest') then
    raise exception 'request % (community %): the key chunks of prefix % hash to % entries / % but the manifest says % / %',
      p_request_id, p_community, p_summary ->> 'prefix', p_count, v_digest,
      p_summary ->> 'object_count', p_summary ->> 'keys_digest'
      using errcode = 'DL6K1',
            hint = 'The chunks must be exactly the enumeration the manifest summarises; clear them and enumerate again.';
  end if;
end;
$$;


ALTER FUNCTION community_deletion._check_prefix_digest(p_request_id uuid, p_community uuid, p_summary jsonb, p_count bigint, p_chain text) OWNER TO community_deletion_owner;

--
-- Name: _checkpoint(uuid, text, text, text, bigint, jsonb, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._checkpoint(p_request_id uuid, p_stage text, p_unit_key text, p_status text, p_lease_generation bigint, p_detail jsonb DEFAULT '{}'::jsonb, p_error text DEFAULT NULL::text) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  insert into community_deletion.checkpoints as cp
    (request_id, stage, unit_key, status, lease_generation, detail, error, completed_at)
  values
    (p_request_id, p_stage, p_unit_key, p_status, p_lease_generation, coalesce(p_detail, '{}'::jsonb),
     community_deletion._bound_text(p_error, 4096),
     case when p_status = 'completed' then now() end)
  on conflict (request_id, stage, unit_key) do update
     set attempts = cp.attempts + 1,
         status = excluded.status,
         lease_generation = excluded.lease_generation,
         detail = excluded.detail,
         error = excluded.error,
         completed_at = excluded.completed_at;
end;
$$;


ALTER FUNCTION community_deletion._checkpoint(p_request_id uuid, p_stage text, p_unit_key text, p_status text, p_lease_generation bigint, p_detail jsonb, p_error text) OWNER TO community_deletion_owner;

--
-- Name: _community_columns(regclass); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._community_columns(p_table regclass) RETURNS text[]
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select coalesce(pg_catalog.array_agg(a.attname::text order by a.attname::text collate "C"), '{}')
    from pg_catalog.pg_attribute a
   where a.attrelid = p_table and a.attnum > 0 and not a.attisdropped
     and (a.attname = 'community_id'
          or exists (select 1 from pg_catalog.pg_constraint k
                      where k.conrelid = p_table and k.contype = 'f'
                        and k.confrelid = pg_catalog.to_regclass('public.communities')
                        and a.attnum = any (k.conkey)))
$$;


ALTER FUNCTION community_deletion._community_columns(p_table regclass) OWNER TO community_deletion_owner;

--
-- Name: _community_lock_key(uuid); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._community_lock_key(p_community uuid) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select ('x' || pg_catalog.left(pg_catalog.replace(p_community::text, '-', ''), 16))::bit(64)::bigint
         # 7165065848772979813::bigint
$$;


ALTER FUNCTION community_deletion._community_lock_key(p_community uuid) OWNER TO community_deletion_owner;

--
-- Name: _fence_trigger_problems(regclass); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._fence_trigger_problems(p_table regclass) RETURNS text[]
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select coalesce(pg_catalog.array_agg(p.problem order by p.name), '{}')
    from (select e.name,
                 case when t.oid is null then e.name || ' missing'
                      when t.tgfoid <> pg_catalog.to_regprocedure(e.fn) then e.name || ' executes another function'
                      when t.tgenabled <> 'O' then e.name || case t.tgenabled when 'D' then ' disabled'
                                                                        when 'R' then ' set to fire on replicas only'
                                                                        else ' set to fire always' end
                 end as problem
            from (values ('_010_community_write_fence', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                         ('_010_community_write_fence_update', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                         ('_010_community_write_fence_delete', 'community_deletion.tg_scoped_table__enforce_write_fence()'),
                         ('_010_community_write_fence_early', 'community_deletion.tg_scoped_table__refuse_write_early()'),
                         ('_010_community_write_fence_early_delete', 'community_deletion.tg_scoped_table__refuse_write_early()'),
                         ('_010_community_write_fence_truncate', 'community_deletion.tg_scoped_table__refuse_truncate()'))
                   as e(name, fn)
            left join pg_catalog.pg_trigger t on t.tgrelid = p_table and t.tgname = e.name and not t.tgisinternal) p
   where p.problem is not null
$$;


ALTER FUNCTION community_deletion._fence_trigger_problems(p_table regclass) OWNER TO community_deletion_owner;

--
-- Name: _guard_registered_tables(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._guard_registered_tables() RETURNS void
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_problems text[];
begin
  select coalesce(pg_catalog.array_agg(pg_catalog.format('%s: %s', p.label, pg_catalog.array_to_string(p.problems, ', '))
                                        order by p.label collate "C"), '{}')
    into v_problems
    from (select community_deletion._table_label(r.schema_name, r.table_name) as label,
                 case r.kind when 'scoped' then community_deletion._fence_trigger_problems(x.rel)
                             else community_deletion._provenance_guard_problems(x.rel, r.community_column) end
                 || pg_catalog.array_remove(array['it became ' || community_deletion._inheritance_role(x.rel)], null) as problems
            from community_deletion.registered_tables r
            cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
           where r.kind in ('scoped', 'provenance') and x.rel is not null) p
   where pg_catalog.cardinality(p.problems) > 0;
  if pg_catalog.cardinality(v_problems) > 0 then
    raise exception 'community deletion: refused DDL on registered tables: %', pg_catalog.array_to_string(v_problems, '; ')
      using errcode = 'DL7C2',
            hint = 'The write fence and provenance guards of registered tables cannot be dropped, disabled or bypassed '
                   '(docs/security.md). To retire a table, drop it in a migration and update the registry.';
  end if;
end;
$$;


ALTER FUNCTION community_deletion._guard_registered_tables() OWNER TO community_deletion_owner;

--
-- Name: _has_leading_index(regclass, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._has_leading_index(p_table regclass, p_column text) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select exists (
    select 1 from pg_catalog.pg_index i
      join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
     where i.indrelid = p_table and a.attname = p_column and not a.attisdropped
       and i.indisvalid and i.indpred is null)
$$;


ALTER FUNCTION community_deletion._has_leading_index(p_table regclass, p_column text) OWNER TO community_deletion_owner;

--
-- Name: _identity_key(text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._identity_key(p_identity text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select pg_catalog.regexp_replace(
           pg_catalog.lower(pg_catalog.normalize(p_identity, 'NFKC')),
           '[[:space:]\u0085\u00a0\u00ad\u034f\u061c\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb]',
           '', 'g')
$$;


ALTER FUNCTION community_deletion._identity_key(p_identity text) OWNER TO community_deletion_owner;

--
-- Name: _inheritance_role(regclass); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._inheritance_role(p_table regclass) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select case
           when c.relkind = 'p' then 'a partitioned table'
           when c.relispartition then 'a partition'
           when exists (select 1 from pg_catalog.pg_inherits i where i.inhparent = p_table) then 'an inheritance parent'
           when exists (select 1 from pg_catalog.pg_inherits i where i.inhrelid = p_table) then 'an inheritance child'
         end
    from pg_catalog.pg_class c
   where c.oid = p_table
$$;


ALTER FUNCTION community_deletion._inheritance_role(p_table regclass) OWNER TO community_deletion_owner;

--
-- Name: _inventory_digest(jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._inventory_digest(p_inventory jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select encode(sha256(convert_to(p_inventory::text, 'UTF8')), 'hex')
$$;


ALTER FUNCTION community_deletion._inventory_digest(p_inventory jsonb) OWNER TO community_deletion_owner;

--
-- Name: _key_chunk_facts(jsonb, text, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._key_chunk_facts(p_entries jsonb, p_prefix text, p_key_pattern text, OUT entry_count integer, OUT bad_shape_at integer, OUT outside_prefix_at integer, OUT outside_taxonomy_at integer, OUT out_of_order_at integer, OUT first_entry jsonb, OUT last_entry jsonb, OUT chunk_text text) RETURNS record
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  with e as (
    select t.ord::integer as ord,
           t.x,
           community_deletion._manifest_entry_is_valid(t.x) as shape_ok,
           t.x ->> 'key' as k,
           t.x ->> 'version_id' as v
    from pg_catalog.jsonb_array_elements(p_entries) with ordinality as t (x, ord)
  ), o as (
    select e.*,
           lag(e.k) over w as prev_k,
           lag(e.v) over w as prev_v
    from e
    window w as (order by e.ord)
  )
  select count(*)::integer,
         min(o.ord) filter (where not o.shape_ok),
         min(o.ord) filter (where o.shape_ok and not starts_with(o.k, p_prefix)),
         min(o.ord) filter (where o.shape_ok and o.k !~ p_key_pattern),
         min(o.ord) filter (where o.prev_k is not null
                              and not (o.k collate "C" > o.prev_k collate "C"
                                       or (o.k = o.prev_k and o.v collate "C" > o.prev_v collate "C"))),
         p_entries -> 0,
         p_entries -> -1,
         string_agg(community_deletion._manifest_entry_line(o.x), '' order by o.ord)
  from o
$$;


ALTER FUNCTION community_deletion._key_chunk_facts(p_entries jsonb, p_prefix text, p_key_pattern text, OUT entry_count integer, OUT bad_shape_at integer, OUT outside_prefix_at integer, OUT outside_taxonomy_at integer, OUT out_of_order_at integer, OUT first_entry jsonb, OUT last_entry jsonb, OUT chunk_text text) OWNER TO community_deletion_owner;

--
-- Name: _live_community_tables(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._live_community_tables() RETURNS text[]
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select coalesce(pg_catalog.array_agg(l.label order by l.label collate "C"), '{}')
    from (select community_deletion._table_label(n.nspname::text, c.relname::text) as label
            from pg_catalog.pg_class c
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where c.relkind in ('r', 'p', 'f', 'm')
             and n.nspname not in ('pg_catalog', 'information_schema', 'community_deletion')
             and n.nspname !~ '^pg_(toast|temp_|toast_temp_)'
             and (exists (select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = c.oid and a.attname = 'community_id' and not a.attisdropped)
                  or exists (select 1 from pg_catalog.pg_constraint k
                              where k.conrelid = c.oid and k.contype = 'f'
                                and k.confrelid = pg_catalog.to_regclass('public.communities')))) l
$$;


ALTER FUNCTION community_deletion._live_community_tables() OWNER TO community_deletion_owner;

--
-- Name: _live_fenced_tables(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._live_fenced_tables() RETURNS text[]
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select coalesce(pg_catalog.array_agg(f.label order by f.label collate "C"), '{}')
    from (select community_deletion._table_label(n.nspname::text, c.relname::text) as label
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where not c.relispartition and not t.tgisinternal
             and t.tgenabled = 'O'
             and t.tgfoid = pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()')
             and (t.tgtype & 1) = 0      -- statement level
             and (t.tgtype & 66) = 0     -- AFTER: neither BEFORE (2) nor INSTEAD OF (64)
             and t.tgqual is null        -- no WHEN condition
             and pg_catalog.cardinality(t.tgattr::int2[]) = 0   -- no column list
           group by n.nspname, c.relname
          having pg_catalog.bool_or((t.tgtype & 4) = 4 and t.tgnewtable = 'fence_new_rows')    -- insert
             and pg_catalog.bool_or((t.tgtype & 16) = 16 and t.tgoldtable = 'fence_old_rows'   -- update
                                    and t.tgnewtable = 'fence_new_rows')
             and pg_catalog.bool_or((t.tgtype & 8) = 8 and t.tgoldtable = 'fence_old_rows')    -- delete
         ) f
$$;


ALTER FUNCTION community_deletion._live_fenced_tables() OWNER TO community_deletion_owner;

--
-- Name: _lock_community(uuid, boolean); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._lock_community(p_community uuid, p_exclusive boolean) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  if p_exclusive then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._community_lock_key(p_community));
  else
    perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(p_community));
  end if;
end;
$$;


ALTER FUNCTION community_deletion._lock_community(p_community uuid, p_exclusive boolean) OWNER TO community_deletion_owner;

--
-- Name: _lock_community_for_transition(uuid); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._lock_community_for_transition(p_community uuid) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_key bigint := community_deletion._community_lock_key(p_community);
begin
  perform community_deletion._apply_lock_timeout();
  perform pg_catalog.pg_advisory_xact_lock(v_key);
exception when lock_not_available then
  raise exception 'community deletion: the lock of community % was not granted within lock_timeout %; held by %',
    p_community, pg_catalog.current_setting('lock_timeout'), community_deletion._advisory_lock_holders(v_key)
    using errcode = '55P03',
          hint = 'Retried with backoff. If a session keeps holding the lock, end it (pg_terminate_backend) or raise settings.lock_timeout.';
end;
$$;


ALTER FUNCTION community_deletion._lock_community_for_transition(p_community uuid) OWNER TO community_deletion_owner;

--
-- Name: _lock_schema_destruction_shared(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._lock_schema_destruction_shared() RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_key bigint := community_deletion._schema_destruction_lock_key();
begin
  perform community_deletion._apply_lock_timeout();
  perform pg_catalog.pg_advisory_xact_lock_shared(v_key);
exception when lock_not_available then
  raise exception 'community deletion: the schema/destruction lock was not granted within lock_timeout %; held by %',
    pg_catalog.current_setting('lock_timeout'), community_deletion._advisory_lock_holders(v_key)
    using errcode = '55P03',
          hint = 'A migration (or another session holding the key) runs; retried with backoff.';
end;
$$;


ALTER FUNCTION community_deletion._lock_schema_destruction_shared() OWNER TO community_deletion_owner;

--
-- Name: _lock_scoped_tables_shared(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._lock_scoped_tables_shared() RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_table regclass;
begin
  for v_table in
    select x.rel from community_deletion.registered_tables r
     cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
     where r.kind = 'scoped' and x.rel is not null
     order by r.purge_order
  loop
    execute pg_catalog.format('lock table %s in access share mode', v_table);
  end loop;
end;
$$;


ALTER FUNCTION community_deletion._lock_scoped_tables_shared() OWNER TO community_deletion_owner;

--
-- Name: _manifest_entry_follows(jsonb, jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._manifest_entry_follows(p_prev jsonb, p_next jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  select coalesce(
    (p_next ->> 'key') collate pg_catalog."C" > (p_prev ->> 'key') collate pg_catalog."C"
    or ((p_next ->> 'key') = (p_prev ->> 'key')
        and (p_next ->> 'version_id') collate pg_catalog."C" > (p_prev ->> 'version_id') collate pg_catalog."C"),
    false)
$$;


ALTER FUNCTION community_deletion._manifest_entry_follows(p_prev jsonb, p_next jsonb) OWNER TO community_deletion_owner;

--
-- Name: _manifest_entry_is_valid(jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._manifest_entry_is_valid(p_entry jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  select case when jsonb_typeof(p_entry) = 'object' then coalesce(
    (p_entry - 'key' - 'version_id' - 'kind') = '{}'::pg_catalog.jsonb
    and jsonb_typeof(p_entry -> 'key') = 'string'
    and jsonb_typeof(p_entry -> 'version_id') = 'string'
    and (p_entry ->> 'kind') in ('object', 'delete_marker')
    and (p_entry ->> 'key') <> ''
    and (p_entry ->> 'version_id') <> ''
    and strpos(p_entry ->> 'key', E'\t') = 0 and strpos(p_entry ->> 'key', E'\n') = 0
    and strpos(p_entry ->> 'version_id', E'\t') = 0 and strpos(p_entry ->> 'version_id', E'\n') = 0,
    false) else false end
$$;


ALTER FUNCTION community_deletion._manifest_entry_is_valid(p_entry jsonb) OWNER TO community_deletion_owner;

--
-- Name: _manifest_entry_line(jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._manifest_entry_line(p_entry jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  select (p_entry ->> 'key') || E'\t' || (p_entry ->> 'version_id') || E'\t' || (p_entry ->> 'kind') || E'\n'
$$;


ALTER FUNCTION community_deletion._manifest_entry_line(p_entry jsonb) OWNER TO community_deletion_owner;

--
-- Name: _native_community_lock_key(uuid); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._native_community_lock_key(uuid) RETURNS bigint
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE
    AS '$libdir/community_deletion_fence', 'cd_community_lock_key';


ALTER FUNCTION community_deletion._native_community_lock_key(uuid) OWNER TO community_deletion_owner;

--
-- Name: _next_stage(text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._next_stage(stage text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select s.next_stage from community_deletion._stages() s where s.stage = _next_stage.stage
$$;


ALTER FUNCTION community_deletion._next_stage(stage text) OWNER TO community_deletion_owner;

--
-- Name: _owned_key_pattern(uuid, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._owned_key_pattern(p_community uuid, p_prefix text) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select replace(t.key_pattern, '{community}', p_community::text)
  from community_deletion.storage_taxonomy t
  where t.scope = 'owned'
    and replace(t.prefix_template, '{community}', p_community::text) = p_prefix
$$;


ALTER FUNCTION community_deletion._owned_key_pattern(p_community uuid, p_prefix text) OWNER TO community_deletion_owner;

--
-- Name: _owned_prefixes(uuid); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._owned_prefixes(p_community uuid) RETURNS text[]
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select coalesce(array_agg(p order by p collate "C"), '{}')
    from (select replace(t.prefix_template, '{community}', lower(p_community::text)) as p
            from community_deletion.storage_taxonomy t
           where t.scope = 'owned') owned
$$;


ALTER FUNCTION community_deletion._owned_prefixes(p_community uuid) OWNER TO community_deletion_owner;

--
-- Name: _prove_postgres_absence(uuid, uuid, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._prove_postgres_absence(p_request_id uuid, p_community uuid, p_fence_generation bigint) RETURNS integer
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
declare
  v_table record;
  v_remains boolean;
  v_checked integer := 0;
begin
  if not exists (select 1 from public.communities c
                 where c.id = p_community and c.deletion_state = 'tombstone'
                   and c.deleted_at is not null and c.deletion_fence_generation = p_fence_generation) then
    raise exception 'request %: community % is not a tombstone at fence generation %',
      p_request_id, p_community, p_fence_generation
      using errcode = 'DL8T1',
            hint = 'The community row changed outside the engine after the purge; investigate before unblocking.';
  end if;
  for v_table in
    select community_deletion._table_label(t.schema_name, t.table_name) as label, t.schema_name, t.table_name, t.community_column
      from community_deletion.registered_tables t
     where t.kind in ('scoped', 'provenance')
     order by 1
  loop
    execute format('select exists (select 1 from %I.%I where %I = $1)', v_table.schema_name, v_table.table_name,
                   v_table.community_column)
      into v_remains using p_community;
    if v_remains then
      raise exception 'request %: table % still holds rows of purged community %', p_request_id, v_table.label, p_community
        using errcode = 'DL9A1',
              hint = 'Rows of a tombstoned community reappeared or escaped the purge; investigate the writer before unblocking.';
    end if;
    v_checked := v_checked + 1;
  end loop;
  return v_checked;
end;
$_$;


ALTER FUNCTION community_deletion._prove_postgres_absence(p_request_id uuid, p_community uuid, p_fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: _provenance_guard_problems(regclass, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._provenance_guard_problems(p_table regclass, p_column text) RETURNS text[]
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select case
           when t.oid is null then array['_020_provenance_guard missing']
           when t.tgfoid <> pg_catalog.to_regprocedure('community_deletion.tg_provenance_table__refuse_inactive_community()')
             then array['_020_provenance_guard executes another function']
           when t.tgnargs <> 1 or pg_catalog.convert_from(pg_catalog.substr(t.tgargs, 1, pg_catalog.length(t.tgargs) - 1), 'UTF8') <> p_column
             then array['_020_provenance_guard guards another column']
           when t.tgenabled <> 'O' then array['_020_provenance_guard does not fire for ordinary sessions']
           else '{}'::text[]
         end
    from (select 1) one
    left join pg_catalog.pg_trigger t on t.tgrelid = p_table and t.tgname = '_020_provenance_guard' and not t.tgisinternal
$$;


ALTER FUNCTION community_deletion._provenance_guard_problems(p_table regclass, p_column text) OWNER TO community_deletion_owner;

--
-- Name: _reattach_early_fences(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._reattach_early_fences() RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_table regclass;
begin
  for v_table in
    select x.rel from community_deletion.registered_tables r
     cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
     where r.kind = 'scoped' and x.rel is not null
     order by r.purge_order
  loop
    perform community_deletion._attach_early_fence(v_table);
  end loop;
end;
$$;


ALTER FUNCTION community_deletion._reattach_early_fences() OWNER TO community_deletion_owner;

--
-- Name: _refuse_write_early_plpgsql(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._refuse_write_early_plpgsql() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
-- Kept to few statements and expressions on the common path (active
-- community): each costs microseconds on its first use in every transaction.
declare
  v_community uuid;
  v_ok boolean;
  v_state text;
  v_hint text;
  v_pass integer := 1;
begin
  -- The common case in one statement: the row's community is active, the
  -- transaction is READ COMMITTED, the row does not move between communities;
  -- the hint is set in the same statement (a refusal below aborts the
  -- statement, which takes the hint back with it).
  select c.deletion_state = 'active'
         and pg_catalog.current_setting('transaction_isolation') = 'read committed'
         and (tg_op <> 'UPDATE' or old.community_id is not distinct from new.community_id),
         pg_catalog.set_config('community_deletion.fence_checked', c.id::text, true)
    into v_ok, v_hint
    from public.communities c
   where c.id = case when tg_op = 'DELETE' then old.community_id else new.community_id end;
  if v_ok then
    if tg_op = 'DELETE' then
      return old;
    end if;
    return new;
  end if;

  -- Everything else, in the order the row-level fence used.
  if pg_catalog.current_setting('transaction_isolation') <> 'read committed' then
    perform community_deletion._require_read_committed(tg_table_name);
  end if;
  if tg_op = 'DELETE' then
    v_community := old.community_id;
  else
    v_community := new.community_id;
  end if;
  if tg_level <> 'ROW' or tg_when <> 'BEFORE' then
    raise exception 'the early community write check on %.% must be attached by community_deletion.register_scoped_table (BEFORE … FOR EACH ROW), not % %',
      tg_table_schema, tg_table_name, tg_when, tg_level
      using errcode = 'DL7C1';
  end if;
  loop
    if v_community is not null then
      select c.deletion_state into v_state from public.communities c where c.id = v_community;
      if v_state is distinct from 'active' and not community_deletion.community_write_allowed(v_community) then
        select c.deletion_state into v_state from public.communities c where c.id = v_community;
        raise exception 'community write refused: % on %.% for community % (%)',
          tg_op, tg_table_schema, tg_table_name, v_community, coalesce(v_state, 'missing')
          using errcode = '55000',
                hint = 'The community is being deleted (or does not exist); its rows accept no writes.';
      end if;
    end if;
    exit when tg_op <> 'UPDATE' or v_pass = 2 or old.community_id is not distinct from new.community_id;
    v_pass := 2;
    v_community := old.community_id;
  end loop;
  if tg_op = 'DELETE' then
    return old;
  end if;
  return new;
end;
$$;


ALTER FUNCTION community_deletion._refuse_write_early_plpgsql() OWNER TO community_deletion_owner;

--
-- Name: _registered_relation(text, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._registered_relation(p_schema text, p_table text) RETURNS regclass
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select pg_catalog.to_regclass(pg_catalog.format('%I.%I', p_schema, p_table))
$$;


ALTER FUNCTION community_deletion._registered_relation(p_schema text, p_table text) OWNER TO community_deletion_owner;

--
-- Name: _stage_is_fenced(text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._stage_is_fenced(stage text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select coalesce((select s.fenced from community_deletion._stages() s where s.stage = _stage_is_fenced.stage), false)
$$;


ALTER FUNCTION community_deletion._stage_is_fenced(stage text) OWNER TO community_deletion_owner;

--
-- Name: _stage_is_runnable(text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._stage_is_runnable(stage text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select coalesce((select s.runnable from community_deletion._stages() s where s.stage = _stage_is_runnable.stage), false)
$$;


ALTER FUNCTION community_deletion._stage_is_runnable(stage text) OWNER TO community_deletion_owner;

--
-- Name: _stage_is_terminal(text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._stage_is_terminal(stage text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select coalesce((select s.terminal from community_deletion._stages() s where s.stage = _stage_is_terminal.stage), false)
$$;


ALTER FUNCTION community_deletion._stage_is_terminal(stage text) OWNER TO community_deletion_owner;

--
-- Name: _stage_order(text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._stage_order(stage text) RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select s.stage_order from community_deletion._stages() s where s.stage = _stage_order.stage
$$;


ALTER FUNCTION community_deletion._stage_order(stage text) OWNER TO community_deletion_owner;

--
-- Name: approvals; Type: TABLE; Schema: community_deletion; Owner: postgres
--

CREATE TABLE community_deletion.approvals (
    request_id uuid NOT NULL,
    community_id uuid NOT NULL,
    inventory_digest text NOT NULL,
    approved_by text NOT NULL,
    note text,
    not_before timestamp with time zone NOT NULL,
    approved_at timestamp with time zone DEFAULT now() NOT NULL,
    approved_login text,
    CONSTRAINT approvals_approved_by_is_present CHECK (((btrim(approved_by) <> ''::text) AND (length(approved_by) <= 512))),
    CONSTRAINT approvals_not_before_after_approval CHECK ((not_before >= approved_at))
);


ALTER TABLE community_deletion.approvals OWNER TO postgres;

--
-- Name: requests; Type: TABLE; Schema: community_deletion; Owner: postgres
--

CREATE TABLE community_deletion.requests (
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
    requested_login text,
    CONSTRAINT requests_abort_is_whole CHECK (((stage = 'aborted'::text) = ((aborted_at IS NOT NULL) AND (aborted_by IS NOT NULL) AND (abort_reason IS NOT NULL)))),
    CONSTRAINT requests_block_is_whole CHECK (((blocked_at IS NULL) = (blocked_reason IS NULL))),
    CONSTRAINT requests_counters_are_non_negative CHECK (((lease_generation >= 0) AND (attempts >= 0) AND (retry_count >= 0))),
    CONSTRAINT requests_destructive_manifest_is_whole CHECK (((destructive_storage_manifest IS NULL) = (destructive_storage_frozen_at IS NULL))),
    CONSTRAINT requests_digest_is_hex CHECK ((inventory_digest ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT requests_fenced_stages_have_generation CHECK (((NOT community_deletion._stage_is_fenced(stage)) OR (fence_generation IS NOT NULL))),
    CONSTRAINT requests_inventory_frozen_after_submitted CHECK (((stage = ANY (ARRAY['submitted'::text, 'aborted'::text])) OR ((inventory_digest IS NOT NULL) AND (inventory_manifest IS NOT NULL) AND (schema_manifest IS NOT NULL) AND (storage_manifest IS NOT NULL) AND (inventory_frozen_at IS NOT NULL)))),
    CONSTRAINT requests_lease_is_whole CHECK (((lease_owner IS NULL) = (lease_until IS NULL))),
    CONSTRAINT requests_lease_owner_is_present CHECK ((btrim(lease_owner) <> ''::text)),
    CONSTRAINT requests_requested_by_is_present CHECK (((btrim(requested_by) <> ''::text) AND (length(requested_by) <= 512))),
    CONSTRAINT requests_retry_stage_is_valid CHECK (((retry_stage IS NULL) OR community_deletion._stage_is_runnable(retry_stage))),
    CONSTRAINT requests_stage_is_valid CHECK ((community_deletion._stage_order(stage) IS NOT NULL)),
    CONSTRAINT requests_terminal_holds_no_lease CHECK (((NOT community_deletion._stage_is_terminal(stage)) OR (lease_owner IS NULL))),
    CONSTRAINT requests_terminal_is_completed CHECK ((community_deletion._stage_is_terminal(stage) = (completed_at IS NOT NULL)))
);


ALTER TABLE community_deletion.requests OWNER TO postgres;

--
-- Name: _request_state(community_deletion.requests, community_deletion.approvals); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._request_state(p_request community_deletion.requests, p_approval community_deletion.approvals, OUT state text, OUT explanation text) RETURNS record
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_bound boolean := coalesce(p_approval.request_id is not null
                              and p_approval.community_id = p_request.community_id
                              and p_approval.inventory_digest = p_request.inventory_digest, false);
begin
  if p_request.stage = 'aborted' then
    state := 'aborted';
    explanation := format('Aborted by %s at %s: %s. A fresh request may be submitted for the community.',
                          p_request.aborted_by, p_request.aborted_at, p_request.abort_reason);
  elsif p_request.stage = 'retention_pending' then
    state := 'completed';
    explanation := format('Completed at %s: logical deletion verified in PostgreSQL, storage and cache; the community is a tombstone.',
                          p_request.completed_at);
  elsif p_request.blocked_at is not null then
    state := 'blocked';
    explanation := format('Blocked at stage %s since %s: %s. Remediate, then run community_deletion.unblock.',
                          p_request.stage, p_request.blocked_at, p_request.blocked_reason);
  elsif p_request.stage = 'submitted' then
    state := 'waiting_for_inventory';
    explanation := format('Submitted by %s; waiting for community_deletion.freeze_inventory with the storage summary.',
                          p_request.requested_by);
  elsif p_request.stage = 'inventoried' then
    state := 'waiting_for_approval';
    explanation := format('Inventory frozen (digest %s); waiting for approval by an operator other than %s.',
                          p_request.inventory_digest, p_request.requested_by);
  elsif not v_bound then
    state := 'waiting_for_approval';
    explanation := format('At stage %s but no approval matches its community and inventory digest, so no executor will claim it.',
                          p_request.stage);
  elsif p_request.lease_owner is not null and p_request.lease_until >= now() then
    state := 'leased';
    explanation := format('Leased by %s (generation %s) until %s, working on stage %s.',
                          p_request.lease_owner, p_request.lease_generation, p_request.lease_until, p_request.stage);
  elsif p_approval.not_before > now() then
    state := 'grace_period';
    explanation := format('Approved by %s; waiting for the grace period until %s (nothing runs before then; abort stays possible).',
                          p_approval.approved_by, p_approval.not_before);
  elsif p_request.next_attempt_at > now() then
    state := 'retry_wait';
    explanation := format('Waiting for retry until %s at stage %s after %s consecutive failure(s): %s.',
                          p_request.next_attempt_at, p_request.stage, p_request.retry_count,
                          coalesce(p_request.last_error, 'no error recorded'));
  else
    state := 'runnable';
    explanation := format('Runnable at stage %s; waiting for an executor to claim it%s.', p_request.stage,
                          case when p_request.lease_owner is not null
                               then format(' (the lease of %s expired at %s)', p_request.lease_owner, p_request.lease_until)
                               else '' end);
  end if;
end;
$$;


ALTER FUNCTION community_deletion._request_state(p_request community_deletion.requests, p_approval community_deletion.approvals, OUT state text, OUT explanation text) OWNER TO community_deletion_owner;

--
-- Name: _require_detail_object(uuid, jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._require_detail_object(p_request_id uuid, p_detail jsonb) RETURNS void
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  if p_detail is not null and pg_catalog.jsonb_typeof(p_detail) <> 'object' then
    raise exception 'request %: detail must be a JSON object, not %', p_request_id, pg_catalog.jsonb_typeof(p_detail)
      using errcode = 'DL1I1';
  end if;
end;
$$;


ALTER FUNCTION community_deletion._require_detail_object(p_request_id uuid, p_detail jsonb) OWNER TO community_deletion_owner;

--
-- Name: _require_identity(text, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._require_identity(p_value text, p_name text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_value text := community_deletion._require_text(p_value, p_name, 512);
begin
  if v_value ~ '[\u0001-\u001f\u007f-\u009f]' then
    raise exception 'community deletion: % contains control characters', p_name
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass %s as plain text (no escape sequences, tabs or line breaks).', p_name);
  end if;
  if community_deletion._identity_key(v_value) = '' then
    raise exception 'community deletion: % is only whitespace or invisible characters', p_name
      using errcode = 'DL1I1';
  end if;
  return v_value;
end;
$$;


ALTER FUNCTION community_deletion._require_identity(p_value text, p_name text) OWNER TO community_deletion_owner;

--
-- Name: _require_read_committed(text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._require_read_committed(p_what text) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  if pg_catalog.current_setting('transaction_isolation') <> 'read committed' then
    raise exception 'community write (%) requires READ COMMITTED isolation, not %',
      p_what, pg_catalog.current_setting('transaction_isolation')
      using errcode = '25000',
            hint = 'Run writers to community data with transaction isolation READ COMMITTED.';
  end if;
end;
$$;


ALTER FUNCTION community_deletion._require_read_committed(p_what text) OWNER TO community_deletion_owner;

--
-- Name: _require_text(text, text, integer); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._require_text(p_value text, p_name text, p_max integer) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_value text := pg_catalog.btrim(p_value);
begin
  if v_value is null or v_value = '' then
    raise exception 'community deletion: % is required and must not be blank', p_name
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass a non-empty %s.', p_name);
  end if;
  if pg_catalog.length(v_value) > p_max then
    raise exception 'community deletion: % is longer than % characters', p_name, p_max
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Shorten %s to at most %s characters.', p_name, p_max);
  end if;
  return v_value;
end;
$$;


ALTER FUNCTION community_deletion._require_text(p_value text, p_name text, p_max integer) OWNER TO community_deletion_owner;

--
-- Name: _restore_community(uuid, timestamp with time zone, boolean); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._restore_community(p_community uuid, p_archived_at timestamp with time zone, p_restore_archived boolean) RETURNS bigint
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_generation bigint;
begin
  update public.communities c
     set deletion_state = 'active',
         deletion_fence_generation = c.deletion_fence_generation + 1,
         archived_at = case when p_restore_archived then p_archived_at else c.archived_at end
   where c.id = p_community
     and c.deletion_state in ('active', 'quiescing', 'fenced')
     and c.deleted_at is null
  returning c.deletion_fence_generation into v_generation;
  if not found then
    raise exception 'community % cannot be restored: it is missing, deleted or tombstoned', p_community
      using errcode = 'DL2C1';
  end if;
  return v_generation;
end;
$$;


ALTER FUNCTION community_deletion._restore_community(p_community uuid, p_archived_at timestamp with time zone, p_restore_archived boolean) OWNER TO community_deletion_owner;

--
-- Name: _same_operator(text, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._same_operator(p_a text, p_b text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select community_deletion._identity_key(p_a) = community_deletion._identity_key(p_b)
$$;


ALTER FUNCTION community_deletion._same_operator(p_a text, p_b text) OWNER TO community_deletion_owner;

--
-- Name: _schema_destruction_lock_key(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._schema_destruction_lock_key() RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select 7161899216630721841::bigint
$$;


ALTER FUNCTION community_deletion._schema_destruction_lock_key() OWNER TO community_deletion_owner;

--
-- Name: _schema_manifest(uuid); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._schema_manifest(p_community uuid) RETURNS jsonb
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
declare
  v_table record;
  v_tables text[] := '{}';
  v_count bigint;
  v_counts jsonb := '{}'::jsonb;
begin
  for v_table in
    select l.label, r.schema_name, r.table_name
      from community_deletion.registered_tables r
      cross join lateral (select community_deletion._table_label(r.schema_name, r.table_name) as label) l
     where r.kind = 'scoped'
     order by l.label collate "C"
  loop
    execute format('select count(*) from %I.%I where community_id = $1', v_table.schema_name, v_table.table_name)
      into v_count using p_community;
    v_tables := v_tables || v_table.label;
    v_counts := v_counts || jsonb_build_object(v_table.label, v_count);
  end loop;
  return jsonb_build_object(
    'scoped_tables', to_jsonb(v_tables),
    'row_counts', v_counts,
    'fenced_tables', to_jsonb(community_deletion._live_fenced_tables()));
end;
$_$;


ALTER FUNCTION community_deletion._schema_manifest(p_community uuid) OWNER TO community_deletion_owner;

--
-- Name: _serving_lease_check(uuid, text, bigint, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._serving_lease_check(p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint) RETURNS uuid
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_community uuid;
  v_valid boolean := false;
begin
  select l.community_id into v_community from community_deletion.serving_write_leases l where l.id = p_lease_id;
  if v_community is not null then
    perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(v_community));
    select exists (
      select 1 from community_deletion.serving_write_leases l
        join public.communities c on c.id = l.community_id
       where l.id = p_lease_id and l.community_id = v_community and l.owner = p_owner
         and l.generation = p_generation and l.fence_generation = p_fence_generation
         and l.lease_until >= now()
         and c.deletion_state in ('active', 'quiescing')
         and c.deletion_fence_generation = l.fence_generation) into v_valid;
  end if;
  if not v_valid then
    raise exception 'stale serving-write lease % (owner %, generation %, fence generation %)',
      p_lease_id, p_owner, p_generation, p_fence_generation
      using errcode = 'DL5S1',
            hint = 'The lease expired, was released, or the community was fenced: do not perform the effect.';
  end if;
  return v_community;
end;
$$;


ALTER FUNCTION community_deletion._serving_lease_check(p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: _serving_write_granted(uuid, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._serving_write_granted(p_community uuid, p_fence_generation bigint) RETURNS boolean
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select exists (
    select 1 from community_deletion.serving_write_grants g
     where g.xact_id = pg_catalog.pg_current_xact_id_if_assigned()
       and g.community_id = p_community
       and g.fence_generation = p_fence_generation)
$$;


ALTER FUNCTION community_deletion._serving_write_granted(p_community uuid, p_fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: _stage_is_abortable(text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._stage_is_abortable(stage text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select coalesce((select s.abortable from community_deletion._stages() s where s.stage = _stage_is_abortable.stage), false)
$$;


ALTER FUNCTION community_deletion._stage_is_abortable(stage text) OWNER TO community_deletion_owner;

--
-- Name: _stages(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._stages() RETURNS TABLE(stage text, stage_order integer, next_stage text, runnable boolean, terminal boolean, abortable boolean, fenced boolean)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  values
    ('submitted',          1,  'inventoried',        false, false, false, false),
    ('inventoried',        2,  'approved',           false, false, false, false),
    ('approved',           3,  'fenced',             true,  false, true,  false),
    ('fenced',             4,  'drained',            true,  false, true,  true),
    ('drained',            5,  'bindings_removed',   true,  false, false, true),
    ('bindings_removed',   6,  'postgres_purged',    true,  false, false, true),
    ('postgres_purged',    7,  'cache_purged',       true,  false, false, true),
    ('cache_purged',       8,  'logically_verified', true,  false, false, true),
    ('logically_verified', 9,  'retention_pending',  true,  false, false, true),
    ('retention_pending',  10, null,                 false, true,  false, true),
    ('aborted',            99, null,                 false, true,  false, false)
$$;


ALTER FUNCTION community_deletion._stages() OWNER TO community_deletion_owner;

--
-- Name: _table_label(text, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._table_label(p_schema text, p_table text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select case when p_schema = 'public' then p_table else p_schema || '.' || p_table end
$$;


ALTER FUNCTION community_deletion._table_label(p_schema text, p_table text) OWNER TO community_deletion_owner;

--
-- Name: _tombstone_community(uuid, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._tombstone_community(p_community uuid, p_fence_generation bigint) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  update public.communities c
     set deletion_state = 'tombstone',
         deleted_at = coalesce(c.deleted_at, now()),
         archived_at = coalesce(c.archived_at, now()),
         signing_key = null,
         icon = null
   where c.id = p_community
     and c.deletion_state = 'fenced'
     and c.deletion_fence_generation = p_fence_generation;
  return found;
end;
$$;


ALTER FUNCTION community_deletion._tombstone_community(p_community uuid, p_fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: _verify_lease(uuid, text, bigint, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._verify_lease(p_request_id uuid, p_owner text, p_generation bigint, p_stage text) RETURNS community_deletion.requests
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_request community_deletion.requests;
  v_reason text;
begin
  -- Every executor step starts here: bound its lock waits first.
  perform community_deletion._apply_lock_timeout();
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id;
  if not found then
    v_reason := 'the request does not exist';
  elsif v_request.stage is distinct from p_stage then
    v_reason := format('the request is at stage %s, not %s', v_request.stage, p_stage);
  elsif v_request.lease_owner is distinct from p_owner or v_request.lease_generation is distinct from p_generation then
    v_reason := format('the lease is held by %s at generation %s',
                       coalesce(v_request.lease_owner, '(nobody)'), v_request.lease_generation);
  elsif v_request.lease_until < now() then
    v_reason := format('the lease expired at %s', v_request.lease_until);
  elsif v_request.blocked_at is not null then
    v_reason := format('the request is blocked: %s', v_request.blocked_reason);
  elsif not exists (
    select 1 from community_deletion.approvals a
     where a.request_id = v_request.id and a.community_id = v_request.community_id
       and a.inventory_digest = v_request.inventory_digest) then
    v_reason := 'no approval matches the request''s community and inventory digest';
  end if;
  if v_reason is not null then
    raise exception 'stale deletion lease for request % (owner %, generation %): %',
      p_request_id, p_owner, p_generation, v_reason
      using errcode = 'DL4L1',
            hint = 'Ownership was lost: stop work on this request; a current executor will resume from checkpoints.';
  end if;
  return v_request;
end;
$$;


ALTER FUNCTION community_deletion._verify_lease(p_request_id uuid, p_owner text, p_generation bigint, p_stage text) OWNER TO community_deletion_owner;

--
-- Name: _verify_lease_and_fence(uuid, text, bigint, text, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._verify_lease_and_fence(p_request_id uuid, p_owner text, p_generation bigint, p_stage text, p_fence_generation bigint) RETURNS community_deletion.requests
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_request community_deletion.requests;
  v_state text;
  v_community_generation bigint;
  v_reason text;
begin
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, p_stage);
  select c.deletion_state, c.deletion_fence_generation into v_state, v_community_generation
    from public.communities c where c.id = v_request.community_id;
  if p_fence_generation is null then
    v_reason := 'no fence generation was presented';
  elsif v_request.fence_generation is distinct from p_fence_generation then
    v_reason := format('the request is at fence generation %s, not %s',
                       coalesce(v_request.fence_generation::text, '(none)'), p_fence_generation);
  elsif v_state is null or v_state not in ('fenced', 'tombstone') then
    v_reason := format('community %s is %s, not fenced', v_request.community_id, coalesce(v_state, 'missing'));
  elsif v_community_generation is distinct from p_fence_generation then
    v_reason := format('community %s is at fence generation %s, not %s',
                       v_request.community_id, v_community_generation, p_fence_generation);
  end if;
  if v_reason is not null then
    raise exception 'stale deletion lease for request % (owner %, generation %, fence generation %): %',
      p_request_id, p_owner, p_generation, p_fence_generation, v_reason
      using errcode = 'DL4L1',
            hint = 'Ownership or the fence was lost: stop work on this request.';
  end if;
  return v_request;
end;
$$;


ALTER FUNCTION community_deletion._verify_lease_and_fence(p_request_id uuid, p_owner text, p_generation bigint, p_stage text, p_fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: _write_fence_plpgsql(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion._write_fence_plpgsql() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
-- Kept to few statements and expressions on the common path (one community,
-- active): each costs microseconds on the first use in every transaction,
-- and single-row autocommit writes are nothing but first uses.
declare
  v_ids uuid[];
  v_hint text;
  v_state text;
  v_id uuid;
begin
  -- 1. The distinct communities of the statement (an aggregate's DISTINCT
  --    sorts within work_mem and spills beyond it); in the same statement the
  --    early-refusal hint is cleared: it lives for one statement only (see
  --    tg_scoped_table__refuse_write_early.sql).
  if tg_op = 'INSERT' then
    select pg_catalog.array_agg(distinct n.community_id) filter (where n.community_id is not null),
           pg_catalog.set_config('community_deletion.fence_checked', '', true)
      into v_ids, v_hint
      from fence_new_rows n;
  elsif tg_op = 'DELETE' then
    select pg_catalog.array_agg(distinct o.community_id) filter (where o.community_id is not null),
           pg_catalog.set_config('community_deletion.fence_checked', '', true)
      into v_ids, v_hint
      from fence_old_rows o;
  elsif tg_op = 'UPDATE' then
    select pg_catalog.array_agg(distinct u.c) filter (where u.c is not null),
           pg_catalog.set_config('community_deletion.fence_checked', '', true)
      into v_ids, v_hint
      from (select o.community_id as c from fence_old_rows o
            union all
            select n.community_id from fence_new_rows n) u;
  else
    raise exception 'the community write fence does not handle % on %.%', tg_op, tg_table_schema, tg_table_name
      using errcode = 'DL7C1';
  end if;

  if pg_catalog.cardinality(v_ids) = 1 and pg_catalog.current_setting('transaction_isolation') = 'read committed' then
    -- 2. The common case. The lock (= community_deletion._community_lock_key,
    --    inlined: that function's SET search_path costs microseconds per call;
    --    equality is pinned by write_fence/fence_uses_the_community_lock_key),
    -- 3. then, in a new statement (fresh snapshot, taken after the lock was
    --    granted), the state.
    perform pg_catalog.pg_advisory_xact_lock_shared(
      ('x' || pg_catalog.left(pg_catalog.replace(v_ids[1]::text, '-', ''), 16))::bit(64)::bigint
      # 7165065848772979813::bigint);
    select c.deletion_state into v_state from public.communities c where c.id = v_ids[1];
    if v_state = 'active' then
      return null;
    end if;
  elsif v_ids is null then
    return null;
  elsif pg_catalog.current_setting('transaction_isolation') <> 'read committed' then
    perform community_deletion._require_read_committed(tg_table_name);
  else
    -- Several communities: every lock, in key order, then one lookup.
    if tg_level <> 'STATEMENT' then
      raise exception 'the community write fence on %.% must be attached by community_deletion.register_scoped_table (AFTER … FOR EACH STATEMENT with transition tables), not % %',
        tg_table_schema, tg_table_name, tg_when, tg_level
        using errcode = 'DL7C1';
    end if;
    perform pg_catalog.pg_advisory_xact_lock_shared(k.key)
       from (select distinct ('x' || pg_catalog.left(pg_catalog.replace(x::text, '-', ''), 16))::bit(64)::bigint
                             # 7165065848772979813::bigint as key
               from pg_catalog.unnest(v_ids) x) k
      order by k.key;
    select pg_catalog.array_agg(x order by x) into v_ids
      from pg_catalog.unnest(v_ids) x
      left join public.communities c on c.id = x
     where c.deletion_state is distinct from 'active';
    if v_ids is null then
      return null;
    end if;
  end if;

  -- 4. Not active: the engine, or an admitted serving lease, or 55000.
  if tg_level <> 'STATEMENT' then
    raise exception 'the community write fence on %.% must be attached by community_deletion.register_scoped_table (AFTER … FOR EACH STATEMENT with transition tables), not % %',
      tg_table_schema, tg_table_name, tg_when, tg_level
      using errcode = 'DL7C1';
  end if;
  foreach v_id in array v_ids loop
    if not community_deletion.community_write_allowed(v_id) then
      select c.deletion_state into v_state from public.communities c where c.id = v_id;
      raise exception 'community write refused: % on %.% for community % (%)',
        tg_op, tg_table_schema, tg_table_name, v_id, coalesce(v_state, 'missing')
        using errcode = '55000',
              hint = 'The community is being deleted (or does not exist); its rows accept no writes.';
    end if;
  end loop;
  return null;
end;
$$;


ALTER FUNCTION community_deletion._write_fence_plpgsql() OWNER TO community_deletion_owner;

--
-- Name: abort(uuid, text, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.abort(request_id uuid, aborted_by text, reason text) RETURNS community_deletion.requests
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_aborted_by alias for $2;
  p_reason alias for $3;
  v_aborted_by text := community_deletion._require_identity(p_aborted_by, 'aborted_by');
  v_reason text := community_deletion._bound_text(community_deletion._require_text(p_reason, 'reason', 100000), 4096);
  v_community uuid;
  v_request community_deletion.requests;
  v_old_generation bigint;
  v_new_generation bigint;
  v_live_leases bigint;
  v_operations text;
begin
  select r.community_id into v_community from community_deletion.requests r where r.id = p_request_id;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  perform community_deletion._lock_community_for_transition(v_community);

  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is already terminal (%)', p_request_id, v_request.stage
      using errcode = 'DL2T1';
  end if;
  if not community_deletion._stage_is_abortable(v_request.stage) then
    raise exception 'deletion request % is at stage %; abort is possible only at approved or fenced',
      p_request_id, v_request.stage
      using errcode = 'DL2S1',
            hint = case when v_request.stage in ('submitted', 'inventoried')
                        then 'Nothing has changed for the community yet; approve and then abort, or leave the request unapproved.'
                        else 'Object deletion may already have begun; the request can only run to completion (unblock after remediation).' end;
  end if;

  select count(*), string_agg(distinct l.operation, ', ' order by l.operation)
    into v_live_leases, v_operations
    from community_deletion.serving_write_leases l
   where l.community_id = v_request.community_id and l.lease_until >= now();
  if v_live_leases > 0 then
    raise exception 'deletion request %: community % still has % live serving-write lease(s) (%)',
      p_request_id, v_request.community_id, v_live_leases, v_operations
      using errcode = 'DL5D1',
            hint = 'Retry the abort once the admitted serving writes have finished or their leases expired.';
  end if;

  select c.deletion_fence_generation into v_old_generation
    from public.communities c where c.id = v_request.community_id for update;
  v_new_generation := community_deletion._restore_community(
    v_request.community_id, v_request.pre_quiesce_archived_at, v_request.quiescing_started_at is not null);

  perform community_deletion._checkpoint(
    v_request.id, v_request.stage, 'operator_abort:' || gen_random_uuid()::text, 'completed',
    v_request.lease_generation,
    jsonb_build_object(
      'aborted_by', v_aborted_by,
      'reason', v_reason,
      'previous_stage', v_request.stage,
      'previous_lease_owner', v_request.lease_owner,
      'previous_block', v_request.blocked_reason,
      'old_fence_generation', v_old_generation,
      'new_fence_generation', v_new_generation));

  update community_deletion.requests r
     set stage = 'aborted',
         aborted_by = v_aborted_by,
         abort_reason = v_reason,
         aborted_at = now(),
         completed_at = now(),
         fence_generation = v_new_generation,
         lease_owner = null,
         lease_until = null,
         lease_generation = r.lease_generation + 1,
         blocked_at = null,
         blocked_reason = null,
         retry_count = 0,
         retry_stage = null,
         next_attempt_at = now(),
         updated_at = now()
   where r.id = p_request_id
  returning r.* into v_request;
  return v_request;
end;
$_$;


ALTER FUNCTION community_deletion.abort(request_id uuid, aborted_by text, reason text) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION abort(request_id uuid, aborted_by text, reason text); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.abort(request_id uuid, aborted_by text, reason text) IS 'Abort a request at approved or fenced: the community is active again and the request terminal.';


--
-- Name: serving_write_leases; Type: TABLE; Schema: community_deletion; Owner: postgres
--

CREATE TABLE community_deletion.serving_write_leases (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    community_id uuid NOT NULL,
    operation text NOT NULL,
    owner text NOT NULL,
    generation bigint DEFAULT 1 NOT NULL,
    fence_generation bigint NOT NULL,
    acquired_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL,
    lease_until timestamp with time zone NOT NULL,
    CONSTRAINT serving_write_leases_generation_is_positive CHECK ((generation > 0)),
    CONSTRAINT serving_write_leases_operation_is_present CHECK (((btrim(operation) <> ''::text) AND (length(operation) <= 128))),
    CONSTRAINT serving_write_leases_owner_is_present CHECK (((btrim(owner) <> ''::text) AND (length(owner) <= 256)))
);


ALTER TABLE community_deletion.serving_write_leases OWNER TO postgres;

--
-- Name: acquire_serving_lease(uuid, text, text, integer); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.acquire_serving_lease(community_id uuid, operation text, owner text, lease_seconds integer DEFAULT 60) RETURNS community_deletion.serving_write_leases
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_community alias for $1;
  p_operation alias for $2;
  p_owner alias for $3;
  p_lease_seconds alias for $4;
  v_state text;
  v_generation bigint;
  v_lease community_deletion.serving_write_leases;
begin
  perform community_deletion._require_read_committed('community_deletion.acquire_serving_lease');
  if p_community is null or p_operation is null or pg_catalog.btrim(p_operation) = ''
     or p_owner is null or pg_catalog.btrim(p_owner) = ''
     or p_lease_seconds is null or p_lease_seconds not between 1 and 3600 then
    raise exception 'serving lease acquisition needs a community, an operation, an owner and 1..3600 lease seconds'
      using errcode = 'DL1I1';
  end if;
  perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(p_community));
  select c.deletion_state, c.deletion_fence_generation into v_state, v_generation
    from public.communities c where c.id = p_community;
  if not found then
    raise exception 'community % does not exist', p_community using errcode = 'DL1N2';
  end if;
  if v_state <> 'active' then
    raise exception 'community write refused: community % is % and admits no new serving-write lease (operation %)',
      p_community, v_state, p_operation
      using errcode = 'DL5S1',
            hint = 'The community is being deleted; new external side effects are not admitted.';
  end if;
  insert into community_deletion.serving_write_leases (community_id, operation, owner, fence_generation, lease_until)
  values (p_community, p_operation, p_owner, v_generation, now() + pg_catalog.make_interval(secs => p_lease_seconds))
  returning * into v_lease;
  return v_lease;
end;
$_$;


ALTER FUNCTION community_deletion.acquire_serving_lease(community_id uuid, operation text, owner text, lease_seconds integer) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION acquire_serving_lease(community_id uuid, operation text, owner text, lease_seconds integer); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.acquire_serving_lease(community_id uuid, operation text, owner text, lease_seconds integer) IS 'Admit a serving-path external effect (upload, push, …) for an active community; returns the lease.';


--
-- Name: append_key_chunk(uuid, text, bigint, bigint, integer, text, jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.append_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, prefix text, entries jsonb) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_chunk_no alias for $5;
  p_prefix alias for $6;
  p_entries alias for $7;
  v_request community_deletion.requests;
begin
  -- Serialise with the freeze and with other appends of this request.
  perform 1 from community_deletion.requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);
  if v_request.destructive_storage_manifest is not null then
    raise exception 'request % (community %): the destructive manifest is frozen; no chunk can be appended',
      p_request_id, v_request.community_id
      using errcode = 'DL6F1';
  end if;
  insert into community_deletion.manifest_keys (request_id, chunk_no, prefix, entries, entry_count)
  values (p_request_id, p_chunk_no, p_prefix, p_entries,
          case when jsonb_typeof(p_entries) = 'array' then jsonb_array_length(p_entries) else 0 end);
end;
$_$;


ALTER FUNCTION community_deletion.append_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, prefix text, entries jsonb) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION append_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, prefix text, entries jsonb); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.append_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, prefix text, entries jsonb) IS 'Fenced stage: store one chunk of the post-fence enumeration (validated against the taxonomy and order).';


--
-- Name: approve(uuid, text, text, timestamp with time zone, interval); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.approve(request_id uuid, approved_by text, note text DEFAULT NULL::text, not_before timestamp with time zone DEFAULT NULL::timestamp with time zone, delay interval DEFAULT NULL::interval) RETURNS community_deletion.requests
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_approved_by alias for $2;
  p_note alias for $3;
  p_not_before alias for $4;
  p_delay alias for $5;
  v_approved_by text := community_deletion._require_identity(p_approved_by, 'approved_by');
  v_note text := community_deletion._bound_text(nullif(btrim(p_note), ''), 4096);
  v_minimum interval;
  v_not_before timestamptz;
  v_request community_deletion.requests;
begin
  perform community_deletion._apply_lock_timeout();
  if p_not_before is not null and p_delay is not null then
    raise exception 'deletion request %: pass either not_before or delay, not both', p_request_id
      using errcode = 'DL1I1';
  end if;
  if p_delay is not null and p_delay < interval '0' then
    raise exception 'deletion request %: delay % is negative', p_request_id, p_delay
      using errcode = 'DL1I1';
  end if;
  select s.approval_grace_period into v_minimum from community_deletion.settings s;
  v_minimum := coalesce(v_minimum, interval '0');
  if p_not_before is not null and p_not_before < now() and v_minimum > interval '0' then
    raise exception 'deletion request %: not_before % is in the past', p_request_id, p_not_before
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass a future time; the minimum grace period is %s.', v_minimum);
  end if;
  v_not_before := greatest(now() + v_minimum, coalesce(p_not_before, now() + p_delay, now()));

  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is terminal (%)', p_request_id, v_request.stage using errcode = 'DL2T1';
  end if;
  if v_request.stage <> 'inventoried' then
    raise exception 'deletion request % is at stage %, only an inventoried request can be approved',
      p_request_id, v_request.stage
      using errcode = 'DL2S1',
            hint = case when v_request.stage = 'submitted' then 'Freeze the inventory first (community_deletion.freeze_inventory).'
                        else 'Inspect the request (community_deletion.inspect); it was approved already or has moved on.' end;
  end if;
  if v_request.blocked_at is not null then
    raise exception 'deletion request % is blocked: %', p_request_id, v_request.blocked_reason
      using errcode = 'DL2B1', hint = 'Remediate the cause, then run community_deletion.unblock.';
  end if;
  if community_deletion._same_operator(v_approved_by, v_request.requested_by) then
    raise exception 'deletion request %: % requested it and cannot also approve it', p_request_id, v_approved_by
      using errcode = 'DL3A1', hint = 'A second operator must approve.';
  end if;
  if v_request.requested_login = session_user
     and not (select s.allow_same_login_approval from community_deletion.settings s) then
    raise exception 'deletion request %: the database login % submitted it and cannot also approve it, whatever name it types',
      p_request_id, session_user
      using errcode = 'DL3A1',
            hint = 'A second operator approves from their own login (settings.allow_same_login_approval relaxes this for single-login development setups only).';
  end if;
  if v_request.inventory_digest is distinct from community_deletion._inventory_digest(v_request.inventory_manifest) then
    raise exception 'deletion request %: the frozen inventory no longer hashes to its digest %',
      p_request_id, v_request.inventory_digest
      using errcode = 'DL3A2',
            hint = 'The stored inventory was modified after it was frozen; investigate the control plane before anyone approves.';
  end if;

  insert into community_deletion.approvals
    (request_id, community_id, inventory_digest, approved_by, approved_login, note, not_before, approved_at)
  values
    (v_request.id, v_request.community_id, v_request.inventory_digest, v_approved_by, session_user, v_note, v_not_before, now());

  update community_deletion.requests r
     set stage = 'approved', next_attempt_at = v_not_before, updated_at = now()
   where r.id = p_request_id and r.stage = 'inventoried' and r.blocked_at is null
  returning r.* into v_request;
  return v_request;
end;
$_$;


ALTER FUNCTION community_deletion.approve(request_id uuid, approved_by text, note text, not_before timestamp with time zone, delay interval) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION approve(request_id uuid, approved_by text, note text, not_before timestamp with time zone, delay interval); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.approve(request_id uuid, approved_by text, note text, not_before timestamp with time zone, delay interval) IS 'Approve the exact frozen inventory as a second operator; optional grace period (not_before or delay).';


--
-- Name: assert_community_write_allowed(uuid); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.assert_community_write_allowed(community_id uuid) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_community alias for $1;
  v_state text;
  v_generation bigint;
begin
  if community_deletion.community_write_allowed(p_community) then
    return;
  end if;
  select c.deletion_state, c.deletion_fence_generation into v_state, v_generation
    from public.communities c where c.id = p_community;
  raise exception 'community write refused: community % is %', p_community,
    case when v_state is null then 'missing'
         else format('%s (fence generation %s)', v_state, v_generation) end
    using errcode = '55000',
          hint = case when v_state = 'quiescing'
                      then 'The community is being deleted; only writes under an admitted serving-write lease (community_deletion.guard_serving_write) may finish.'
                      else 'The community is being deleted or does not exist; writes are not accepted.' end;
end;
$_$;


ALTER FUNCTION community_deletion.assert_community_write_allowed(community_id uuid) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION assert_community_write_allowed(community_id uuid); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.assert_community_write_allowed(community_id uuid) IS 'Raise 55000 unless community_write_allowed: fail a write transaction before doing work.';


--
-- Name: begin_quiescing(uuid, text, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.begin_quiescing(request_id uuid, executor_id text, lease_generation bigint) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  v_request community_deletion.requests;
  v_community public.communities;
begin
  perform community_deletion._require_read_committed('community_deletion.begin_quiescing');
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion._lock_scoped_tables_shared();
  perform community_deletion.validate_catalog();
  select c.* into v_community from public.communities c where c.id = v_request.community_id for update;
  if v_community.deletion_state is distinct from 'active' and v_community.deletion_state is distinct from 'quiescing' then
    raise exception 'community % of request % is %, it cannot enter quiescing',
      v_request.community_id, p_request_id, coalesce(v_community.deletion_state, 'missing')
      using errcode = 'DL2C1';
  end if;
  update community_deletion.requests r
     set pre_quiesce_archived_at = v_community.archived_at,
         quiescing_started_at = now(),
         updated_at = now()
   where r.id = p_request_id and r.quiescing_started_at is null;
  update public.communities c
     set deletion_state = 'quiescing',
         archived_at = coalesce(c.archived_at, now())
   where c.id = v_request.community_id and c.deletion_state in ('active', 'quiescing')
     and c.deletion_fence_generation = v_community.deletion_fence_generation;
  if not found then
    raise exception 'community % of request % changed while entering quiescing', v_request.community_id, p_request_id
      using errcode = 'DL4L1';
  end if;
  perform community_deletion._checkpoint(p_request_id, 'approved', 'quiesce_serving_writes', 'completed', p_generation,
    pg_catalog.jsonb_build_object('community_state', 'quiescing',
                                  'fence_generation', v_community.deletion_fence_generation,
                                  'pre_quiesce_archived_at', v_community.archived_at));
end;
$_$;


ALTER FUNCTION community_deletion.begin_quiescing(request_id uuid, executor_id text, lease_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION begin_quiescing(request_id uuid, executor_id text, lease_generation bigint); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.begin_quiescing(request_id uuid, executor_id text, lease_generation bigint) IS 'Approved stage, step 1: refuse new serving-write leases for the community (quiescing).';


--
-- Name: block(uuid, text, bigint, text, text, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.block(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_stage alias for $4;
  p_unit_key alias for $5;
  p_error alias for $6;
  v_unit_key text := community_deletion._require_text(p_unit_key, 'unit_key', 256);
  v_error text := community_deletion._bound_text(community_deletion._require_text(p_error, 'error', 1000000), 4096);
begin
  perform community_deletion._verify_lease(p_request_id, p_owner, p_generation, p_stage);
  perform community_deletion._checkpoint(
    p_request_id, p_stage, v_unit_key, 'failed', p_generation,
    jsonb_build_object('error', v_error, 'retryable', false), v_error);
  update community_deletion.requests r
     set blocked_at = now(), blocked_reason = v_error, last_error = v_error, last_error_at = now(),
         lease_owner = null, lease_until = null, updated_at = now()
   where r.id = p_request_id and r.lease_owner = p_owner and r.lease_generation = p_generation;
  if not found then
    raise exception 'stale deletion lease for request % (owner %, generation %): cannot block',
      p_request_id, p_owner, p_generation
      using errcode = 'DL4L1';
  end if;
end;
$_$;


ALTER FUNCTION community_deletion.block(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION block(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.block(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text) IS 'Record a permanent failure: block the request durably with the reason.';


--
-- Name: block_preclaim(uuid, text, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.block_preclaim(request_id uuid, unit_key text, error text) RETURNS community_deletion.requests
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_unit_key alias for $2;
  p_error alias for $3;
  v_unit_key text := community_deletion._require_text(p_unit_key, 'unit_key', 246);
  v_error text := community_deletion._bound_text(community_deletion._require_text(p_error, 'error', 1000000), 4096);
  v_request community_deletion.requests;
begin
  perform community_deletion._apply_lock_timeout();
  if v_unit_key not like 'pre\_claim:%' then
    v_unit_key := 'pre_claim:' || v_unit_key;
  end if;
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is terminal (%); no setup failure is recorded against it',
      p_request_id, v_request.stage
      using errcode = 'DL2T1';
  end if;
  if v_request.lease_owner is not null and v_request.lease_until >= now() then
    raise exception 'deletion request % is leased by % (generation %) until %',
      p_request_id, v_request.lease_owner, v_request.lease_generation, v_request.lease_until
      using errcode = 'DL4L2';
  end if;
  perform community_deletion._checkpoint(
    v_request.id, v_request.stage, v_unit_key, 'failed', v_request.lease_generation,
    jsonb_build_object('error', v_error), v_error);
  update community_deletion.requests r
     set blocked_at = now(), blocked_reason = v_error, last_error = v_error, last_error_at = now(),
         updated_at = now()
   where r.id = p_request_id
  returning r.* into v_request;
  return v_request;
end;
$_$;


ALTER FUNCTION community_deletion.block_preclaim(request_id uuid, unit_key text, error text) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION block_preclaim(request_id uuid, unit_key text, error text); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.block_preclaim(request_id uuid, unit_key text, error text) IS 'Block a request that no executor could claim (service configuration), so inspect explains it.';


--
-- Name: claim(text, uuid, integer); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.claim(executor_id text, request_id uuid DEFAULT NULL::uuid, lease_seconds integer DEFAULT 60) RETURNS SETOF community_deletion.lease_token
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_owner alias for $1;
  p_request_id alias for $2;
  p_lease_seconds alias for $3;
  v_owner text := p_owner;
  v_request community_deletion.requests;
  v_error text;
begin
  perform community_deletion._apply_lock_timeout();
  -- The owner is stored exactly as given (later calls present the same
  -- string), so it must already be trimmed.
  if community_deletion._require_text(p_owner, 'executor id (owner)', 256) <> p_owner then
    raise exception 'community deletion: executor id % has leading or trailing whitespace', pg_catalog.quote_literal(p_owner)
      using errcode = 'DL1I1';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception 'community deletion: lease of % seconds is outside 1..3600', p_lease_seconds
      using errcode = 'DL1I1';
  end if;
  if p_request_id is not null
     and not exists (select 1 from community_deletion.requests r where r.id = p_request_id) then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;

  select r.* into v_request
    from community_deletion.requests r
    join community_deletion.approvals a
      on a.request_id = r.id and a.community_id = r.community_id and a.inventory_digest = r.inventory_digest
   where (p_request_id is null or r.id = p_request_id)
     and community_deletion._stage_is_runnable(r.stage)
     and r.blocked_at is null
     and r.next_attempt_at <= now()
     and a.not_before <= now()
     and (r.lease_until is null or r.lease_until < now())
   order by r.created_at, r.id
   limit 1
   for update of r skip locked;
  if not found then
    return;
  end if;

  begin
    perform community_deletion.validate_catalog();
  exception when sqlstate 'DL7C1' then
    get stacked diagnostics v_error = message_text;
    v_error := community_deletion._bound_text(v_error, 4096);
    perform community_deletion._checkpoint(
      v_request.id, v_request.stage, 'claim:catalog_validation', 'failed', v_request.lease_generation,
      jsonb_build_object('executor', v_owner, 'error', v_error), v_error);
    update community_deletion.requests r
       set blocked_at = now(), blocked_reason = v_error, last_error = v_error, last_error_at = now(),
           lease_owner = null, lease_until = null, updated_at = now()
     where r.id = v_request.id;
    return;
  end;

  return query
    update community_deletion.requests r
       set lease_owner = v_owner,
           lease_generation = r.lease_generation + 1,
           lease_until = now() + make_interval(secs => p_lease_seconds),
           attempts = r.attempts + 1,
           updated_at = now()
     where r.id = v_request.id
    returning r.id, r.community_id, r.stage, r.lease_owner, r.lease_generation, r.fence_generation, r.lease_until;
end;
$_$;


ALTER FUNCTION community_deletion.claim(executor_id text, request_id uuid, lease_seconds integer) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION claim(executor_id text, request_id uuid, lease_seconds integer); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.claim(executor_id text, request_id uuid, lease_seconds integer) IS 'Claim the oldest runnable request (or request_id) for executor_id; returns the lease token, or no row.';


--
-- Name: clear_key_chunks(uuid, text, bigint, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.clear_key_chunks(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  v_request community_deletion.requests;
  v_deleted integer;
begin
  perform 1 from community_deletion.requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);
  if v_request.destructive_storage_manifest is not null then
    raise exception 'request % (community %): the destructive manifest is frozen; its key chunks cannot be cleared',
      p_request_id, v_request.community_id
      using errcode = 'DL6F1';
  end if;
  delete from community_deletion.manifest_keys k where k.request_id = p_request_id;
  get diagnostics v_deleted = row_count;
  return v_deleted;
end;
$_$;


ALTER FUNCTION community_deletion.clear_key_chunks(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION clear_key_chunks(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.clear_key_chunks(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) IS 'Fenced stage: remove key chunks of an unfinished enumeration before enumerating again.';


--
-- Name: community_write_allowed(uuid); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.community_write_allowed(community_id uuid) RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_community alias for $1;
  v_state text;
  v_generation bigint;
begin
  perform community_deletion._require_read_committed('community_write_allowed');
  if p_community is null then
    return false;
  end if;
  perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(p_community));
  select c.deletion_state, c.deletion_fence_generation into v_state, v_generation
    from public.communities c where c.id = p_community;
  return case
    when v_state is null then false
    when v_state = 'active' then true
    when v_state in ('fenced', 'tombstone') then current_user = 'community_deletion_owner'
    when v_state = 'quiescing' then community_deletion._serving_write_granted(p_community, v_generation)
    else false
  end;
end;
$_$;


ALTER FUNCTION community_deletion.community_write_allowed(community_id uuid) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION community_write_allowed(community_id uuid); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.community_write_allowed(community_id uuid) IS 'Whether this transaction may write the community''s rows now (the write fence''s decision).';


--
-- Name: executor_stopped(text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.executor_stopped(executor_id text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_executor_id alias for $1;
begin
  update community_deletion.executor_heartbeats h
     set request_id = null, draining = true, heartbeat_at = now(), stopped_at = now()
   where h.executor_id = p_executor_id;
end;
$_$;


ALTER FUNCTION community_deletion.executor_stopped(executor_id text) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION executor_stopped(executor_id text); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.executor_stopped(executor_id text) IS 'Mark the executor''s liveness row stopped.';


--
-- Name: fence(uuid, text, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.fence(request_id uuid, executor_id text, lease_generation bigint) RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  v_request community_deletion.requests;
  v_community public.communities;
  v_live bigint;
  v_operations text[];
  v_new_generation bigint;
begin
  perform community_deletion._require_read_committed('community_deletion.fence');
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_community_for_transition(v_request.community_id);
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, 'approved');
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  select c.* into v_community from public.communities c where c.id = v_request.community_id for update;
  if v_community.deletion_state is distinct from 'quiescing' then
    raise exception 'community % of request % is %, not quiescing: it cannot be fenced yet',
      v_request.community_id, p_request_id, coalesce(v_community.deletion_state, 'missing')
      using errcode = 'DL2S1',
            hint = 'Call community_deletion.begin_quiescing first.';
  end if;
  select count(*), coalesce(pg_catalog.array_agg(distinct l.operation order by l.operation), '{}')
    into v_live, v_operations
    from community_deletion.serving_write_leases l
   where l.community_id = v_request.community_id and l.lease_until >= now();
  if v_live > 0 then
    raise exception 'community % of request % is not drained: % live serving-write lease(s) (%)',
      v_request.community_id, p_request_id, v_live, pg_catalog.array_to_string(v_operations, ', ')
      using errcode = 'DL5D1',
            detail = pg_catalog.jsonb_build_object('community_id', v_request.community_id,
                                                   'live_leases', v_live, 'operations', v_operations)::text,
            hint = 'Retry after the admitted serving-write leases are released or expire.';
  end if;
  v_new_generation := v_community.deletion_fence_generation + 1;
  update public.communities c
     set deletion_state = 'fenced',
         deletion_fence_generation = v_new_generation,
         archived_at = coalesce(c.archived_at, now())
   where c.id = v_request.community_id and c.deletion_state = 'quiescing'
     and c.deletion_fence_generation = v_community.deletion_fence_generation;
  if not found then
    raise exception 'community % of request % changed while fencing', v_request.community_id, p_request_id
      using errcode = 'DL4L1';
  end if;
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'approved', 'fenced', v_new_generation);
  perform community_deletion._checkpoint(p_request_id, 'approved', 'activate_fence', 'completed', p_generation,
    pg_catalog.jsonb_build_object('fence_generation', v_new_generation,
                                  'previous_fence_generation', v_community.deletion_fence_generation));
  return v_new_generation;
end;
$_$;


ALTER FUNCTION community_deletion.fence(request_id uuid, executor_id text, lease_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION fence(request_id uuid, executor_id text, lease_generation bigint); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.fence(request_id uuid, executor_id text, lease_generation bigint) IS 'Approved stage, step 2: once no serving lease is live, close the write fence (new fence generation) and move to fenced.';


--
-- Name: freeze_destructive_manifest(uuid, text, bigint, bigint, jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.freeze_destructive_manifest(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, manifest jsonb) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_manifest alias for $5;
  v_request community_deletion.requests;
  v_manifest jsonb;
  v_prefixes jsonb;
  v_prefix_count integer;
  v_chunk_size integer;
  v_i integer := 0;                 -- index into v_prefixes of the prefix being hashed
  v_chain text := '';               -- h_k of the current prefix
  v_count bigint := 0;              -- entries hashed for the current prefix
  v_last_entry jsonb;               -- last entry of the previous chunk of the current prefix
  v_prev_short boolean := false;    -- previous chunk of the current prefix held < chunk_size entries
  v_expected_no integer := 0;
  v_total bigint := 0;
  v_chunk record;
  v_facts record;
begin
  -- Lock before reading the chunks: appends and the chunk guard wait on it.
  perform 1 from community_deletion.requests r where r.id = p_request_id for no key update;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);

  -- Shape (DL1M1): version 1, chunk_size, exactly the target's owned prefixes
  -- in byte order, integer counts, hex digests. The canonical form is what is
  -- stored and compared, so 3 and 3.0 are the same manifest.
  v_manifest := community_deletion._canonical_storage_summary(v_request.community_id, p_manifest, 'destructive storage manifest');

  if v_request.destructive_storage_manifest is not null then
    if v_request.destructive_storage_manifest = v_manifest then
      return;  -- the identical manifest is already frozen (a retried call)
    end if;
    raise exception 'request % (community %): a different destructive manifest is already frozen',
      p_request_id, v_request.community_id
      using errcode = 'DL6K1',
            hint = 'The frozen manifest is immutable; a drifted enumeration after the freeze is a safety failure to investigate.';
  end if;

  -- An admitted serving write still running could add an object the
  -- enumeration never saw.
  if exists (select 1 from community_deletion.serving_write_leases l
             where l.community_id = v_request.community_id and l.lease_until >= now()) then
    raise exception 'request % (community %): serving-write leases are still live; the manifest cannot be frozen yet',
      p_request_id, v_request.community_id
      using errcode = 'DL5D1',
            hint = 'Wait for the admitted serving writes to finish or expire, then enumerate again.';
  end if;

  v_prefixes := v_manifest -> 'prefixes';
  v_prefix_count := jsonb_array_length(v_prefixes);
  v_chunk_size := (v_manifest ->> 'chunk_size')::integer;

  for v_chunk in
    select k.chunk_no, k.prefix, k.entries
    from community_deletion.manifest_keys k
    where k.request_id = p_request_id
    order by k.chunk_no
  loop
    if v_chunk.chunk_no <> v_expected_no then
      raise exception 'request % (community %): key chunk % is missing (found chunk % next)',
        p_request_id, v_request.community_id, v_expected_no, v_chunk.chunk_no
        using errcode = 'DL6K1';
    end if;

    -- Close every prefix before this chunk's one.
    while v_i < v_prefix_count and (v_prefixes -> v_i ->> 'prefix') <> v_chunk.prefix loop
      perform community_deletion._check_prefix_digest(p_request_id, v_request.community_id, v_prefixes -> v_i, v_count, v_chain);
      v_i := v_i + 1;
      v_chain := '';
      v_count := 0;
      v_last_entry := null;
      v_prev_short := false;
    end loop;
    if v_i >= v_prefix_count then
      raise exception 'request % (community %): key chunk % has prefix %, which is not in the manifest (or is out of prefix order)',
        p_request_id, v_request.community_id, v_chunk.chunk_no, v_chunk.prefix
        using errcode = 'DL6K1';
    end if;
    if v_prev_short then
      raise exception 'request % (community %): a chunk before key chunk % holds fewer than % entries but is not the last of prefix %',
        p_request_id, v_request.community_id, v_chunk.chunk_no, v_chunk_size, v_chunk.prefix
        using errcode = 'DL6K1';
    end if;

    -- No taxonomy pattern (null): the guard trigger matched every key on insert.
    v_facts := community_deletion._key_chunk_facts(v_chunk.entries, v_chunk.prefix, null);
    if v_facts.entry_count = 0 or v_facts.entry_count > v_chunk_size then
      raise exception 'request % (community %): key chunk % holds % entries (must be 1..%)',
        p_request_id, v_request.community_id, v_chunk.chunk_no, v_facts.entry_count, v_chunk_size
        using errcode = 'DL6K1';
    end if;
    if v_facts.bad_shape_at is not null or v_facts.outside_prefix_at is not null or v_facts.out_of_order_at is not null
       or (v_last_entry is not null and not community_deletion._manifest_entry_follows(v_last_entry, v_facts.first_entry)) then
      raise exception 'request % (community %): key chunk % has a malformed, foreign or out-of-order entry (malformed at %, outside the prefix at %, out of order at %)',
        p_request_id, v_request.community_id, v_chunk.chunk_no, v_facts.bad_shape_at, v_facts.outside_prefix_at,
        coalesce(v_facts.out_of_order_at, case when v_last_entry is not null then 1 end)
        using errcode = 'DL6K1';
    end if;

    v_chain := encode(sha256(convert_to(v_chain || v_facts.chunk_text, 'UTF8')), 'hex');
    v_count := v_count + v_facts.entry_count;
    v_total := v_total + v_facts.entry_count;
    v_last_entry := v_facts.last_entry;
    v_prev_short := v_facts.entry_count < v_chunk_size;
    v_expected_no := v_expected_no + 1;
  end loop;

  -- Close the current prefix and every prefix after it.
  while v_i < v_prefix_count loop
    perform community_deletion._check_prefix_digest(p_request_id, v_request.community_id, v_prefixes -> v_i, v_count, v_chain);
    v_i := v_i + 1;
    v_chain := '';
    v_count := 0;
  end loop;

  update community_deletion.requests r
     set destructive_storage_manifest = v_manifest,
         destructive_storage_frozen_at = now(),
         updated_at = now()
   where r.id = p_request_id
     and r.stage = 'fenced'
     and r.lease_owner = p_owner
     and r.lease_generation = p_generation
     and r.fence_generation = p_fence_generation
     and r.destructive_storage_manifest is null;
  if not found then
    raise exception 'request %: lease (owner %, generation %) lost before the destructive manifest froze',
      p_request_id, p_owner, p_generation
      using errcode = 'DL4L1';
  end if;

  perform community_deletion._checkpoint(p_request_id, 'fenced', 'freeze_destructive_manifest', 'completed', p_generation,
    jsonb_build_object('chunks', v_expected_no, 'entries', v_total, 'chunk_size', v_chunk_size,
                       'fence_generation', p_fence_generation));
end;
$_$;


ALTER FUNCTION community_deletion.freeze_destructive_manifest(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, manifest jsonb) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION freeze_destructive_manifest(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, manifest jsonb); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.freeze_destructive_manifest(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, manifest jsonb) IS 'Fenced stage: freeze the destructive manifest; the stored chunks must hash to it.';


--
-- Name: freeze_inventory(uuid, jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.freeze_inventory(request_id uuid, storage_summary jsonb) RETURNS community_deletion.requests
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_storage_manifest alias for $2;
  v_request community_deletion.requests;
  v_state text;
  v_schema jsonb;
  v_storage jsonb;
  v_inventory jsonb;
begin
  perform community_deletion._apply_lock_timeout();
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is terminal (%)', p_request_id, v_request.stage using errcode = 'DL2T1';
  end if;
  if v_request.stage <> 'submitted' then
    raise exception 'deletion request % is at stage %, the inventory is frozen only at submitted',
      p_request_id, v_request.stage
      using errcode = 'DL2S1';
  end if;
  if v_request.blocked_at is not null then
    raise exception 'deletion request % is blocked: %', p_request_id, v_request.blocked_reason
      using errcode = 'DL2B1', hint = 'Remediate the cause, then run community_deletion.unblock.';
  end if;
  select c.deletion_state into v_state from public.communities c
   where c.id = v_request.community_id and c.deleted_at is null;
  if v_state is distinct from 'active' then
    raise exception 'community % of deletion request % is %, not active',
      v_request.community_id, p_request_id, coalesce(v_state, 'deleted')
      using errcode = 'DL2C1';
  end if;

  perform community_deletion.validate_catalog();
  v_storage := community_deletion._canonical_storage_summary(v_request.community_id, p_storage_manifest);
  v_schema := community_deletion._schema_manifest(v_request.community_id);
  v_inventory := jsonb_build_object('schema', v_schema, 'storage', v_storage);

  update community_deletion.requests r
     set stage = 'inventoried',
         schema_manifest = v_schema,
         storage_manifest = v_storage,
         inventory_manifest = v_inventory,
         inventory_digest = community_deletion._inventory_digest(v_inventory),
         inventory_frozen_at = now(),
         last_error = null,
         last_error_at = null,
         updated_at = now()
   where r.id = p_request_id and r.stage = 'submitted' and r.blocked_at is null
  returning r.* into v_request;
  return v_request;
end;
$_$;


ALTER FUNCTION community_deletion.freeze_inventory(request_id uuid, storage_summary jsonb) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION freeze_inventory(request_id uuid, storage_summary jsonb); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.freeze_inventory(request_id uuid, storage_summary jsonb) IS 'Freeze the request''s inventory: the SQL schema manifest plus the storage summary the driver enumerated; computes the digest an approver approves.';


--
-- Name: guard_serving_write(uuid, text, bigint, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.guard_serving_write(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_lease_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  v_community uuid;
begin
  perform community_deletion._require_read_committed('community_deletion.guard_serving_write');
  v_community := community_deletion._serving_lease_check(p_lease_id, p_owner, p_generation, p_fence_generation);
  insert into community_deletion.serving_write_grants (xact_id, community_id, lease_id, fence_generation)
  values (pg_catalog.pg_current_xact_id(), v_community, p_lease_id, p_fence_generation)
  on conflict (xact_id, community_id) do update
    set lease_id = excluded.lease_id, fence_generation = excluded.fence_generation, granted_at = now();
end;
$_$;


ALTER FUNCTION community_deletion.guard_serving_write(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION guard_serving_write(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.guard_serving_write(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) IS 'Authorise this transaction''s final write for a leased effect while the community is quiescing.';


--
-- Name: heartbeat(uuid, text, bigint, text, integer, boolean); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.heartbeat(request_id uuid, executor_id text, lease_generation bigint, mode text DEFAULT 'run'::text, lease_seconds integer DEFAULT 60, draining boolean DEFAULT false) RETURNS timestamp with time zone
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_mode alias for $4;
  p_lease_seconds alias for $5;
  p_draining alias for $6;
  v_until timestamptz;
begin
  if p_mode is null or p_mode not in ('run', 'drain', 'worker') then
    raise exception 'community deletion: executor mode % is not run, drain or worker', p_mode
      using errcode = 'DL1I1';
  end if;
  if p_lease_seconds is null or p_lease_seconds < 1 or p_lease_seconds > 3600 then
    raise exception 'community deletion: lease of % seconds is outside 1..3600', p_lease_seconds
      using errcode = 'DL1I1';
  end if;
  update community_deletion.requests r
     set lease_until = now() + make_interval(secs => p_lease_seconds), updated_at = now()
   where r.id = p_request_id
     and r.lease_owner = p_owner
     and r.lease_generation = p_generation
     and r.lease_until >= now()
     and r.blocked_at is null
     and community_deletion._stage_is_runnable(r.stage)
     and exists (select 1 from community_deletion.approvals a
                  where a.request_id = r.id and a.community_id = r.community_id
                    and a.inventory_digest = r.inventory_digest)
  returning r.lease_until into v_until;
  if not found then
    -- Raise with the precise reason.
    perform community_deletion._verify_lease(p_request_id, p_owner, p_generation,
      (select r.stage from community_deletion.requests r where r.id = p_request_id));
    raise exception 'stale deletion lease for request % (owner %, generation %): the stage is not runnable',
      p_request_id, p_owner, p_generation
      using errcode = 'DL4L1';
  end if;
  insert into community_deletion.executor_heartbeats as h (executor_id, mode, request_id, draining)
  values (p_owner, p_mode, p_request_id, coalesce(p_draining, false))
  on conflict (executor_id) do update
     set mode = excluded.mode, request_id = excluded.request_id, draining = excluded.draining,
         heartbeat_at = now(), stopped_at = null;
  return v_until;
end;
$_$;


ALTER FUNCTION community_deletion.heartbeat(request_id uuid, executor_id text, lease_generation bigint, mode text, lease_seconds integer, draining boolean) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION heartbeat(request_id uuid, executor_id text, lease_generation bigint, mode text, lease_seconds integer, draining boolean); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.heartbeat(request_id uuid, executor_id text, lease_generation bigint, mode text, lease_seconds integer, draining boolean) IS 'Renew the lease (lease_seconds) and record the executor''s liveness; DL4L1 once the lease is lost.';


--
-- Name: inspect(uuid); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.inspect(request_id uuid) RETURNS jsonb
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  v_request community_deletion.requests;
  v_approval community_deletion.approvals;
  v_state text;
  v_explanation text;
begin
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  select a.* into v_approval from community_deletion.approvals a where a.request_id = p_request_id;
  select s.state, s.explanation into v_state, v_explanation
    from community_deletion._request_state(v_request, v_approval) s;
  return jsonb_build_object(
    'request', to_jsonb(v_request),
    'community', (select jsonb_build_object(
                           'id', c.id, 'host', c.host, 'deletion_state', c.deletion_state,
                           'deletion_fence_generation', c.deletion_fence_generation,
                           'archived_at', c.archived_at, 'deleted_at', c.deleted_at)
                    from public.communities c where c.id = v_request.community_id),
    'approval', case when v_approval.request_id is null then null else to_jsonb(v_approval) end,
    'checkpoints', coalesce((select jsonb_agg(to_jsonb(cp) - 'request_id' order by cp.sequence)
                               from community_deletion.checkpoints cp
                              where cp.request_id = p_request_id), '[]'::jsonb),
    'state', v_state,
    'explanation', v_explanation);
end;
$_$;


ALTER FUNCTION community_deletion.inspect(request_id uuid) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION inspect(request_id uuid); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.inspect(request_id uuid) IS 'Everything about one request as jsonb (request, community, approval, checkpoints, state, explanation) for programs.';


--
-- Name: install_write_fence(boolean, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.install_write_fence(native boolean DEFAULT true, library text DEFAULT '$libdir/community_deletion_fence'::text) RETURNS text
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_native alias for $1;
  p_library alias for $2;
  v_body text;
  v_why text;
begin
  if p_native then
    begin
      execute pg_catalog.format(
        'create or replace function community_deletion.tg_scoped_table__enforce_write_fence() returns trigger '
        'language c volatile as %L, %L', p_library, 'cd_fence_statement');
      execute pg_catalog.format(
        'create or replace function community_deletion.tg_scoped_table__refuse_write_early() returns trigger '
        'language c volatile as %L, %L', p_library, 'cd_fence_early');
      execute pg_catalog.format(
        'create or replace function community_deletion._native_community_lock_key(uuid) returns bigint '
        'language c immutable strict parallel safe as %L, %L', p_library, 'cd_community_lock_key');
      -- As grants.sql leaves every engine function: the owner's, no PUBLIC.
      alter function community_deletion._native_community_lock_key(uuid) owner to community_deletion_owner;
      revoke all on function community_deletion._native_community_lock_key(uuid) from public;
      perform community_deletion._reattach_early_fences();
      return 'native';
    exception when undefined_file or insufficient_privilege or undefined_function then
      v_why := sqlerrm;
    end;
    raise warning 'community write fence: the native library is not usable (%); installing the PL/pgSQL fence', v_why
      using hint = 'Build and install db/native (make -C db/native install, needs the server''s development headers), '
                   'then run select community_deletion.install_write_fence() as a superuser.';
  end if;

  select p.prosrc into strict v_body from pg_catalog.pg_proc p
   where p.oid = 'community_deletion._write_fence_plpgsql()'::pg_catalog.regprocedure;
  execute pg_catalog.format(
    'create or replace function community_deletion.tg_scoped_table__enforce_write_fence() returns trigger '
    'language plpgsql volatile set search_path = pg_catalog, pg_temp as %L', v_body);
  select p.prosrc into strict v_body from pg_catalog.pg_proc p
   where p.oid = 'community_deletion._refuse_write_early_plpgsql()'::pg_catalog.regprocedure;
  execute pg_catalog.format(
    'create or replace function community_deletion.tg_scoped_table__refuse_write_early() returns trigger '
    'language plpgsql volatile set search_path = pg_catalog, pg_temp as %L', v_body);
  drop function if exists community_deletion._native_community_lock_key(uuid);
  perform community_deletion._reattach_early_fences();
  return 'plpgsql';
end;
$_$;


ALTER FUNCTION community_deletion.install_write_fence(native boolean, library text) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION install_write_fence(native boolean, library text); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.install_write_fence(native boolean, library text) IS 'Install the write fence''s trigger functions: native when the library loads (superuser), else PL/pgSQL.';


--
-- Name: key_chunk_progress(uuid); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.key_chunk_progress(request_id uuid) RETURNS TABLE(total integer, deleted integer)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
begin
  if not exists (select 1 from community_deletion.requests r where r.id = p_request_id) then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  return query
    select count(*)::integer, count(k.deleted_at)::integer
    from community_deletion.manifest_keys k
    where k.request_id = p_request_id;
end;
$_$;


ALTER FUNCTION community_deletion.key_chunk_progress(request_id uuid) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION key_chunk_progress(request_id uuid); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.key_chunk_progress(request_id uuid) IS 'Key chunks in total and already stamped deleted.';


--
-- Name: lease_state(uuid, text, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.lease_state(request_id uuid, executor_id text, lease_generation bigint) RETURNS TABLE(stage text, community_id uuid, fence_generation bigint, lease_until timestamp with time zone, destructive_manifest_frozen boolean)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  v_request community_deletion.requests;
begin
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id;
  if not found then
    raise exception 'deletion request % not found', p_request_id using errcode = 'DL1N1';
  end if;
  if v_request.stage = 'retention_pending' and v_request.lease_owner is null then
    -- The final transition releases the lease; report completion to its last holder.
    return query select v_request.stage, v_request.community_id, v_request.fence_generation, null::timestamptz, false;
    return;
  end if;
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, v_request.stage);
  return query select v_request.stage, v_request.community_id, v_request.fence_generation, v_request.lease_until,
                      v_request.destructive_storage_manifest is not null;
end;
$_$;


ALTER FUNCTION community_deletion.lease_state(request_id uuid, executor_id text, lease_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION lease_state(request_id uuid, executor_id text, lease_generation bigint); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.lease_state(request_id uuid, executor_id text, lease_generation bigint) IS 'The stage the holder of this lease token must run next, with the fence generation to present.';


--
-- Name: list_requests(integer); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.list_requests(max_rows integer DEFAULT 100) RETURNS TABLE(request_id uuid, community_id uuid, community_host text, stage text, state text, requested_by text, approved_by text, not_before timestamp with time zone, lease_owner text, lease_until timestamp with time zone, next_attempt_at timestamp with time zone, retry_count integer, blocked_reason text, created_at timestamp with time zone, updated_at timestamp with time zone, explanation text)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_limit alias for $1;
begin
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception 'community deletion: list limit % is outside 1..1000', p_limit
      using errcode = 'DL1I1';
  end if;
  return query
    select r.id, r.community_id, r.community_host, r.stage, s.state,
           r.requested_by, a.approved_by, a.not_before, r.lease_owner,
           r.lease_until, r.next_attempt_at, r.retry_count,
           r.blocked_reason, r.created_at, r.updated_at, s.explanation
      from community_deletion.requests r
      left join community_deletion.approvals a on a.request_id = r.id
      cross join lateral community_deletion._request_state(r, a) s
     order by r.created_at desc, r.id desc
     limit p_limit;
end;
$_$;


ALTER FUNCTION community_deletion.list_requests(max_rows integer) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION list_requests(max_rows integer); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.list_requests(max_rows integer) IS 'Requests, newest first (max_rows 1..1000), each with its state and explanation.';


--
-- Name: mark_bindings_removed(uuid, text, bigint, bigint, jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.mark_bindings_removed(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb DEFAULT '{}'::jsonb) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_detail alias for $5;
  v_request community_deletion.requests;
  v_total integer;
  v_pending integer;
  v_entries bigint;
  v_manifest_entries bigint;
begin
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  if v_request.destructive_storage_manifest is null then
    raise exception 'request % (community %) has no frozen destructive manifest', p_request_id, v_request.community_id
      using errcode = 'DL2S1';
  end if;
  select count(*)::integer, count(*) filter (where k.deleted_at is null)::integer, coalesce(sum(k.entry_count), 0)
    into v_total, v_pending, v_entries
  from community_deletion.manifest_keys k
  where k.request_id = p_request_id;
  if v_pending > 0 then
    raise exception 'request % (community %): % of % key chunks are not yet stamped deleted',
      p_request_id, v_request.community_id, v_pending, v_total
      using errcode = 'DL6K2',
            hint = 'Delete and stamp every chunk returned by community_deletion.next_key_chunk first.';
  end if;
  select coalesce(sum((p ->> 'object_count')::bigint), 0) into v_manifest_entries
  from jsonb_array_elements(v_request.destructive_storage_manifest -> 'prefixes') p;
  if v_entries <> v_manifest_entries then
    raise exception 'request % (community %): the key chunks hold % entries but the frozen manifest lists %',
      p_request_id, v_request.community_id, v_entries, v_manifest_entries
      using errcode = 'DL6K1';
  end if;
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'drained', 'bindings_removed', p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'drained', 'remove_storage_bindings', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb) || jsonb_build_object('chunks', v_total, 'entries', v_entries));
end;
$_$;


ALTER FUNCTION community_deletion.mark_bindings_removed(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION mark_bindings_removed(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.mark_bindings_removed(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) IS 'Drained stage: every chunk is stamped; move to bindings_removed.';


--
-- Name: mark_cache_purged(uuid, text, bigint, bigint, jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.mark_cache_purged(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb DEFAULT '{}'::jsonb) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_detail alias for $5;
begin
  perform community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'postgres_purged', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'postgres_purged', 'cache_purged', p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'postgres_purged', 'purge_cache_namespace', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb));
end;
$_$;


ALTER FUNCTION community_deletion.mark_cache_purged(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION mark_cache_purged(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.mark_cache_purged(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) IS 'Postgres_purged stage: the Redis namespace was purged; move to cache_purged.';


--
-- Name: mark_drained(uuid, text, bigint, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.mark_drained(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  v_request community_deletion.requests;
begin
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'fenced', p_fence_generation);
  if v_request.destructive_storage_manifest is null then
    raise exception 'request % (community %) cannot be marked drained before its destructive manifest is frozen',
      p_request_id, v_request.community_id
      using errcode = 'DL2S1',
            hint = 'Enumerate the owned prefixes into key chunks and call community_deletion.freeze_destructive_manifest first.';
  end if;
  if exists (select 1 from community_deletion.serving_write_leases l
             where l.community_id = v_request.community_id and l.lease_until >= now()) then
    raise exception 'request % (community %): serving-write leases are still live', p_request_id, v_request.community_id
      using errcode = 'DL5D1',
            hint = 'Admitted serving writes must finish or expire before destruction starts; retry later.';
  end if;
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'fenced', 'drained', p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'fenced', 'serving_writes_drained', 'completed', p_generation,
    jsonb_build_object('fence_generation', p_fence_generation));
end;
$_$;


ALTER FUNCTION community_deletion.mark_drained(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION mark_drained(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.mark_drained(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) IS 'Fenced stage: serving writes are drained and the destructive manifest frozen; move to drained.';


--
-- Name: mark_logically_verified(uuid, text, bigint, bigint, jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.mark_logically_verified(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb DEFAULT '{}'::jsonb) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_detail alias for $5;
  v_request community_deletion.requests;
  v_checked integer;
  v_dropped integer;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'cache_purged', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  v_checked := community_deletion._prove_postgres_absence(p_request_id, v_request.community_id, p_fence_generation);
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'cache_purged', 'logically_verified', p_fence_generation);
  -- The chunk guard admits this delete only now that the stage is logically_verified.
  delete from community_deletion.manifest_keys k where k.request_id = p_request_id;
  get diagnostics v_dropped = row_count;
  perform community_deletion._checkpoint(p_request_id, 'cache_purged', 'verify_cross_store_absence', 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb)
      || jsonb_build_object('postgres_tables_checked', v_checked, 'key_chunks_dropped', v_dropped));
end;
$_$;


ALTER FUNCTION community_deletion.mark_logically_verified(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION mark_logically_verified(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.mark_logically_verified(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) IS 'Cache_purged stage: absence proven in all three stores; move to logically_verified and drop the key chunks.';


--
-- Name: mark_retention_pending(uuid, text, bigint, bigint, jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.mark_retention_pending(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb DEFAULT '{}'::jsonb) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_detail alias for $5;
begin
  perform community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'logically_verified', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  perform community_deletion._checkpoint(p_request_id, 'logically_verified', 'retention_physical_expiry_pending', 'completed',
    p_generation, coalesce(p_detail, '{}'::jsonb));
  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'logically_verified', 'retention_pending', p_fence_generation);
end;
$_$;


ALTER FUNCTION community_deletion.mark_retention_pending(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION mark_retention_pending(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.mark_retention_pending(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) IS 'Logically_verified stage: complete the request (retention_pending) and release the lease.';


--
-- Name: next_key_chunk(uuid, text, bigint, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.next_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) RETURNS TABLE(chunk_no integer, prefix text, entries jsonb)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
begin
  perform community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);
  return query
    select k.chunk_no, k.prefix, k.entries
    from community_deletion.manifest_keys k
    where k.request_id = p_request_id and k.deleted_at is null
    order by k.chunk_no
    limit 1;
end;
$_$;


ALTER FUNCTION community_deletion.next_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION next_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.next_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) IS 'Drained stage: the next unstamped key chunk to delete from storage, or no row.';


--
-- Name: purge_postgres(uuid, text, bigint, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.purge_postgres(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  v_request community_deletion.requests;
  v_table record;
  v_rows bigint;
  v_deleted jsonb := '{}'::jsonb;
  v_cleared jsonb := '{}'::jsonb;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'bindings_removed', p_fence_generation);

  for v_table in
    select community_deletion._table_label(t.schema_name, t.table_name) as label, t.schema_name, t.table_name, t.community_column
      from community_deletion.registered_tables t where t.kind = 'provenance' order by 1
  loop
    execute format('update %I.%I set %I = null where %I = $1', v_table.schema_name, v_table.table_name,
                   v_table.community_column, v_table.community_column)
      using v_request.community_id;
    get diagnostics v_rows = row_count;
    v_cleared := v_cleared || jsonb_build_object(v_table.label, v_rows);
    perform community_deletion._checkpoint(p_request_id, 'bindings_removed', 'clear_provenance:' || v_table.label,
      'completed', p_generation, jsonb_build_object('rows', v_rows));
  end loop;

  perform set_config('community_deletion.read_state_hard_delete', 'on', true);
  for v_table in
    select community_deletion._table_label(t.schema_name, t.table_name) as label, t.schema_name, t.table_name
      from community_deletion.registered_tables t where t.kind = 'scoped' order by t.purge_order
  loop
    execute format('delete from %I.%I where community_id = $1', v_table.schema_name, v_table.table_name)
      using v_request.community_id;
    get diagnostics v_rows = row_count;
    v_deleted := v_deleted || jsonb_build_object(v_table.label, v_rows);
    perform community_deletion._checkpoint(p_request_id, 'bindings_removed', 'purge:' || v_table.label,
      'completed', p_generation, jsonb_build_object('rows', v_rows));
  end loop;
  perform set_config('community_deletion.read_state_hard_delete', 'off', true);

  if not community_deletion._tombstone_community(v_request.community_id, p_fence_generation) then
    raise exception 'request %: community % is no longer fenced at generation %; nothing was purged',
      p_request_id, v_request.community_id, p_fence_generation
      using errcode = 'DL4L1';
  end if;

  perform community_deletion._advance(p_request_id, p_owner, p_generation, 'bindings_removed', 'postgres_purged', p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'bindings_removed', 'postgres_tombstone_committed', 'completed',
    p_generation, jsonb_build_object('deleted', v_deleted, 'provenance_cleared', v_cleared,
                                     'fence_generation', p_fence_generation));
  return jsonb_build_object('deleted', v_deleted, 'provenance_cleared', v_cleared);
end;
$_$;


ALTER FUNCTION community_deletion.purge_postgres(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION purge_postgres(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.purge_postgres(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) IS 'Bindings_removed stage: delete the community''s rows in purge order and tombstone it.';


--
-- Name: reap_serving_leases(integer); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.reap_serving_leases(max_rows integer DEFAULT 1000) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_limit alias for $1;
  v_count integer;
begin
  if p_limit is null or p_limit not between 1 and 10000 then
    raise exception 'serving lease reap limit must be 1..10000, got %', p_limit using errcode = 'DL1I1';
  end if;
  with expired as (
    select l.id from community_deletion.serving_write_leases l
     where l.lease_until < now()
     order by l.lease_until
     limit p_limit
     for update skip locked)
  delete from community_deletion.serving_write_leases l using expired where l.id = expired.id;
  get diagnostics v_count = row_count;
  delete from community_deletion.serving_write_grants g
   where pg_catalog.pg_xact_status(g.xact_id) is distinct from 'in progress';
  return v_count;
end;
$_$;


ALTER FUNCTION community_deletion.reap_serving_leases(max_rows integer) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION reap_serving_leases(max_rows integer); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.reap_serving_leases(max_rows integer) IS 'Remove expired serving leases and finished transactions'' write grants (at most max_rows); returns how many.';


--
-- Name: record_failure(uuid, text, bigint, text, text, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.record_failure(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text) RETURNS jsonb
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_stage alias for $4;
  p_unit_key alias for $5;
  p_error alias for $6;
  v_unit_key text := community_deletion._require_text(p_unit_key, 'unit_key', 256);
  v_error text := community_deletion._bound_text(community_deletion._require_text(p_error, 'error', 1000000), 4096);
  v_settings community_deletion.settings;
  v_request community_deletion.requests;
  v_streak integer;
  v_exhausted boolean;
  v_delay_seconds double precision;
  v_next timestamptz;
begin
  perform community_deletion._verify_lease(p_request_id, p_owner, p_generation, p_stage);
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  select s.* into v_settings from community_deletion.settings s;

  v_streak := case when v_request.retry_stage = p_stage then v_request.retry_count + 1 else 1 end;
  v_exhausted := v_streak >= v_settings.max_consecutive_failures;
  v_delay_seconds := least(
    extract(epoch from v_settings.retry_max_delay),
    extract(epoch from v_settings.retry_base_delay) * power(2::double precision, least(v_streak - 1, 62)));
  v_delay_seconds := v_delay_seconds * (1 + 0.1 * random());
  v_next := case when v_exhausted then v_request.next_attempt_at
                 else now() + make_interval(secs => v_delay_seconds) end;

  perform community_deletion._checkpoint(
    p_request_id, p_stage, v_unit_key, 'failed', p_generation,
    jsonb_build_object('error', v_error, 'retry_count', v_streak, 'retryable', true, 'blocked', v_exhausted),
    v_error);

  update community_deletion.requests r
     set retry_count = v_streak,
         retry_stage = p_stage,
         last_error = v_error,
         last_error_at = now(),
         next_attempt_at = v_next,
         blocked_at = case when v_exhausted then now() else r.blocked_at end,
         blocked_reason = case when v_exhausted
                               then community_deletion._bound_text(
                                      format('%s consecutive failures at stage %s; last: %s', v_streak, p_stage, v_error), 4096)
                               else r.blocked_reason end,
         lease_owner = null,
         lease_until = null,
         updated_at = now()
   where r.id = p_request_id and r.lease_owner = p_owner and r.lease_generation = p_generation;
  if not found then
    raise exception 'stale deletion lease for request % (owner %, generation %): cannot record failure',
      p_request_id, p_owner, p_generation
      using errcode = 'DL4L1';
  end if;
  return jsonb_build_object('blocked', v_exhausted, 'retry_count', v_streak, 'next_attempt_at', v_next);
end;
$_$;


ALTER FUNCTION community_deletion.record_failure(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION record_failure(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.record_failure(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text) IS 'Record a transient failure: retry with backoff, or a durable block after the configured streak.';


--
-- Name: taxonomy_sweeps; Type: TABLE; Schema: community_deletion; Owner: postgres
--

CREATE TABLE community_deletion.taxonomy_sweeps (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    started_at timestamp with time zone NOT NULL,
    completed_at timestamp with time zone NOT NULL,
    listed_objects bigint NOT NULL,
    unknown_object_count bigint NOT NULL,
    unknown_key_sample jsonb DEFAULT '[]'::jsonb NOT NULL,
    object_cap bigint NOT NULL,
    truncated boolean DEFAULT false NOT NULL,
    CONSTRAINT taxonomy_sweeps_cap_is_positive CHECK ((object_cap > 0)),
    CONSTRAINT taxonomy_sweeps_counts_are_consistent CHECK (((listed_objects >= 0) AND (unknown_object_count >= 0) AND (unknown_object_count <= listed_objects))),
    CONSTRAINT taxonomy_sweeps_sample_is_array CHECK ((jsonb_typeof(unknown_key_sample) = 'array'::text)),
    CONSTRAINT taxonomy_sweeps_times_are_ordered CHECK ((started_at <= completed_at))
);


ALTER TABLE community_deletion.taxonomy_sweeps OWNER TO postgres;

--
-- Name: record_taxonomy_sweep(timestamp with time zone, bigint, bigint, jsonb, bigint, boolean); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.record_taxonomy_sweep(started_at timestamp with time zone, listed_objects bigint, unknown_object_count bigint, unknown_key_sample jsonb, object_cap bigint, truncated boolean) RETURNS community_deletion.taxonomy_sweeps
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_started_at alias for $1;
  p_listed_objects alias for $2;
  p_unknown_object_count alias for $3;
  p_unknown_key_sample alias for $4;
  p_object_cap alias for $5;
  p_truncated alias for $6;
  v_now timestamptz := clock_timestamp();
  v_row community_deletion.taxonomy_sweeps;
begin
  if p_started_at is null or p_started_at > v_now + interval '5 minutes' then
    raise exception 'taxonomy sweep start % is missing or in the future', p_started_at
      using errcode = 'DL1I1', hint = 'Check the sweeper host''s clock.';
  end if;
  if p_unknown_key_sample is null or jsonb_typeof(p_unknown_key_sample) <> 'array'
     or jsonb_array_length(p_unknown_key_sample) > 100 then
    raise exception 'taxonomy sweep sample must be a JSON array of at most 100 keys'
      using errcode = 'DL1I1';
  end if;
  insert into community_deletion.taxonomy_sweeps
    (started_at, completed_at, listed_objects, unknown_object_count, unknown_key_sample, object_cap, truncated)
  values (least(p_started_at, v_now), v_now, p_listed_objects, p_unknown_object_count, p_unknown_key_sample,
          p_object_cap, coalesce(p_truncated, false))
  returning * into v_row;
  return v_row;
exception when check_violation or not_null_violation then
  raise exception 'taxonomy sweep counts are inconsistent (listed %, unknown %, cap %)',
    p_listed_objects, p_unknown_object_count, p_object_cap using errcode = 'DL1I1';
end;
$_$;


ALTER FUNCTION community_deletion.record_taxonomy_sweep(started_at timestamp with time zone, listed_objects bigint, unknown_object_count bigint, unknown_key_sample jsonb, object_cap bigint, truncated boolean) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION record_taxonomy_sweep(started_at timestamp with time zone, listed_objects bigint, unknown_object_count bigint, unknown_key_sample jsonb, object_cap bigint, truncated boolean); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.record_taxonomy_sweep(started_at timestamp with time zone, listed_objects bigint, unknown_object_count bigint, unknown_key_sample jsonb, object_cap bigint, truncated boolean) IS 'Record the result of a fleet-wide storage taxonomy sweep (observational; never gates a deletion).';


--
-- Name: register_scoped_table(regclass, integer); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.register_scoped_table(table_name regclass, purge_order integer) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_table alias for $1;
  p_purge_order alias for $2;
  v_schema text;
  v_name text;
  v_kind char;
  v_registered text;
  v_columns text[];
begin
  if p_table is null or p_purge_order is null or p_purge_order <= 0 then
    raise exception 'community_deletion.register_scoped_table needs a table and a positive purge order'
      using errcode = 'DL1I1';
  end if;
  select n.nspname, c.relname, c.relkind into v_schema, v_name, v_kind
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where c.oid = p_table;
  if v_schema in ('pg_catalog', 'information_schema', 'community_deletion') or v_schema ~ '^pg_' then
    raise exception 'cannot register % as community-scoped: it is in schema %', p_table, v_schema
      using errcode = 'DL7C1';
  end if;
  if community_deletion._inheritance_role(p_table) is not null or v_kind <> 'r' then
    raise exception 'cannot register % as community-scoped: it is %', p_table,
      coalesce(community_deletion._inheritance_role(p_table), 'not a plain table')
      using errcode = 'DL7C1',
            hint = 'The write fence cannot cover statements addressed to a partition or an inheritance child '
                   '(docs/security.md#partitions-and-inheritance). Use a plain table, or register it as excluded with a reason.';
  end if;
  if not exists (select 1 from pg_catalog.pg_attribute a
                  where a.attrelid = p_table and a.attname = 'community_id' and not a.attisdropped
                    and a.atttypid = 'pg_catalog.uuid'::pg_catalog.regtype and a.attnotnull) then
    raise exception 'cannot register % as community-scoped: it has no community_id uuid NOT NULL column', p_table
      using errcode = 'DL7C1',
            hint = 'Scoped tables carry community_id uuid not null references communities.';
  end if;
  v_columns := community_deletion._community_columns(p_table);
  if v_columns <> array['community_id'] then
    raise exception 'cannot register % as community-scoped: besides community_id, these columns hold communities: %', p_table,
      pg_catalog.array_to_string(pg_catalog.array_remove(v_columns, 'community_id'), ', ')
      using errcode = 'DL7C1',
            hint = 'A scoped table belongs to the community in community_id only; move references to other communities to a provenance table.';
  end if;
  if not community_deletion._has_leading_index(p_table, 'community_id') then
    raise exception 'cannot register % as community-scoped: no valid index leads with community_id', p_table
      using errcode = 'DL7C1',
            hint = 'Create an index (or primary key) whose first column is community_id first.';
  end if;
  select r.kind into v_registered from community_deletion.registered_tables r
   where r.schema_name = v_schema and r.table_name = v_name;
  if v_registered is not null and v_registered <> 'scoped' then
    raise exception 'cannot register % as community-scoped: it is registered as %', p_table, v_registered
      using errcode = 'DL7C1';
  end if;
  -- The triggers first, the registry row last: the DDL guard checks only
  -- registered tables, and every trigger already exists when the row appears.
  -- CREATE OR REPLACE keeps a registered table fenced throughout.
  execute pg_catalog.format('create or replace trigger _010_community_write_fence after insert on %s '
                            'referencing new table as fence_new_rows '
                            'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', p_table);
  execute pg_catalog.format('create or replace trigger _010_community_write_fence_update after update on %s '
                            'referencing old table as fence_old_rows new table as fence_new_rows '
                            'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', p_table);
  execute pg_catalog.format('create or replace trigger _010_community_write_fence_delete after delete on %s '
                            'referencing old table as fence_old_rows '
                            'for each statement execute function community_deletion.tg_scoped_table__enforce_write_fence()', p_table);
  execute pg_catalog.format('create or replace trigger _010_community_write_fence_truncate before truncate on %s '
                            'for each statement execute function community_deletion.tg_scoped_table__refuse_truncate()', p_table);
  perform community_deletion._attach_early_fence(p_table);
  -- The engine's security-definer code counts, purges and proves absence as
  -- community_deletion_owner.
  execute pg_catalog.format('grant usage on schema %I to community_deletion_owner', v_schema);
  execute pg_catalog.format('grant select, insert, update, delete on %s to community_deletion_owner', p_table);
  insert into community_deletion.registered_tables as r (schema_name, table_name, kind, purge_order, community_column)
  values (v_schema, v_name, 'scoped', p_purge_order, 'community_id')
  on conflict (schema_name, table_name) do update set purge_order = excluded.purge_order
    where r.purge_order is distinct from excluded.purge_order;
end;
$_$;


ALTER FUNCTION community_deletion.register_scoped_table(table_name regclass, purge_order integer) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION register_scoped_table(table_name regclass, purge_order integer); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.register_scoped_table(table_name regclass, purge_order integer) IS 'Register a tenant table as community-scoped with its purge order and attach the write fence.';


--
-- Name: register_unscoped_table(regclass, text, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.register_unscoped_table(table_name regclass, kind text, note text) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_table alias for $1;
  p_kind alias for $2;
  p_note alias for $3;
  v_schema text;
  v_name text;
  v_registered text;
  v_columns text[];
  v_column text;
begin
  if p_table is null or p_kind is null or p_kind not in ('provenance', 'excluded')
     or p_note is null or pg_catalog.btrim(p_note) = '' then
    raise exception 'community_deletion.register_unscoped_table needs a table, kind provenance|excluded and a note'
      using errcode = 'DL1I1';
  end if;
  select n.nspname, c.relname into v_schema, v_name
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
   where c.oid = p_table;
  if v_schema in ('pg_catalog', 'information_schema', 'community_deletion') or v_schema ~ '^pg_' then
    raise exception 'cannot register %: it is in schema %', p_table, v_schema
      using errcode = 'DL7C1';
  end if;
  v_columns := community_deletion._community_columns(p_table);
  if p_kind = 'provenance' then
    if community_deletion._inheritance_role(p_table) is not null
       or (select c.relkind from pg_catalog.pg_class c where c.oid = p_table) <> 'r' then
      raise exception 'cannot register % as provenance: it is %', p_table,
        coalesce(community_deletion._inheritance_role(p_table), 'not a plain table')
        using errcode = 'DL7C1',
              hint = 'Register it as excluded with a reason, or use a plain table (docs/security.md#partitions-and-inheritance).';
    end if;
    if pg_catalog.cardinality(v_columns) <> 1 then
      raise exception 'cannot register % as provenance: it needs exactly one column that holds a community, it has %',
        p_table, coalesce(nullif(pg_catalog.array_to_string(v_columns, ', '), ''), 'none')
        using errcode = 'DL7C1';
    end if;
    v_column := v_columns[1];
    if exists (select 1 from pg_catalog.pg_attribute a
                where a.attrelid = p_table and a.attname = v_column and a.attnotnull)
       or not community_deletion._has_leading_index(p_table, v_column) then
      raise exception 'cannot register % as provenance: % must be nullable and lead a valid index', p_table, v_column
        using errcode = 'DL7C1';
    end if;
  end if;
  select r.kind into v_registered from community_deletion.registered_tables r
   where r.schema_name = v_schema and r.table_name = v_name;
  if v_registered is not null and v_registered <> p_kind then
    raise exception 'cannot register % as %: it is registered as %', p_table, p_kind, v_registered
      using errcode = 'DL7C1';
  end if;
  if p_kind = 'provenance' then
    execute pg_catalog.format(
      'create or replace trigger _020_provenance_guard before insert or update on %s for each row '
      'execute function community_deletion.tg_provenance_table__refuse_inactive_community(%L)', p_table, v_column);
    execute pg_catalog.format('grant usage on schema %I to community_deletion_owner', v_schema);
    execute pg_catalog.format('grant select, update on %s to community_deletion_owner', p_table);
  end if;
  insert into community_deletion.registered_tables as r (schema_name, table_name, kind, purge_order, community_column, note)
  values (v_schema, v_name, p_kind, null, v_column, p_note)
  on conflict (schema_name, table_name) do update set note = excluded.note, community_column = excluded.community_column;
end;
$_$;


ALTER FUNCTION community_deletion.register_unscoped_table(table_name regclass, kind text, note text) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION register_unscoped_table(table_name regclass, kind text, note text); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.register_unscoped_table(table_name regclass, kind text, note text) IS 'Register a table with a community_id that is not purged: provenance (its community_id is nulled).';


--
-- Name: release(uuid, text, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.release(request_id uuid, executor_id text, lease_generation bigint) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
begin
  update community_deletion.requests r
     set lease_owner = null, lease_until = null, updated_at = now()
   where r.id = p_request_id and r.lease_owner = p_owner and r.lease_generation = p_generation;
  return found;
end;
$_$;


ALTER FUNCTION community_deletion.release(request_id uuid, executor_id text, lease_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION release(request_id uuid, executor_id text, lease_generation bigint); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.release(request_id uuid, executor_id text, lease_generation bigint) IS 'Give the lease back without recording a failure (clean shutdown).';


--
-- Name: release_serving_lease(uuid, text, bigint, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.release_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_lease_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
begin
  delete from community_deletion.serving_write_leases l
   where l.id = p_lease_id and l.owner = p_owner and l.generation = p_generation
     and l.fence_generation = p_fence_generation;
  return found;
end;
$_$;


ALTER FUNCTION community_deletion.release_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION release_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.release_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) IS 'Release a serving lease; returns whether it was still live.';


--
-- Name: renew_serving_lease(uuid, text, bigint, bigint, integer); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.renew_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint, lease_seconds integer DEFAULT 60) RETURNS timestamp with time zone
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_lease_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_lease_seconds alias for $5;
  v_community uuid;
  v_until timestamptz;
  v_quiescing_deadline timestamptz;
begin
  perform community_deletion._require_read_committed('community_deletion.renew_serving_lease');
  if p_lease_seconds is null or p_lease_seconds not between 1 and 3600 then
    raise exception 'serving lease renewal needs 1..3600 lease seconds' using errcode = 'DL1I1';
  end if;
  select l.community_id into v_community from community_deletion.serving_write_leases l where l.id = p_lease_id;
  if v_community is not null then
    perform pg_catalog.pg_advisory_xact_lock_shared(community_deletion._community_lock_key(v_community));
    -- Once the community is quiescing, an admitted lease lives at most
    -- settings.serving_lease_quiescing_cap past the start of quiescing, so
    -- renewals cannot hold the fence off forever.
    select r.quiescing_started_at + s.serving_lease_quiescing_cap into v_quiescing_deadline
      from community_deletion.requests r cross join community_deletion.settings s
     where r.community_id = v_community and r.stage = 'approved' and r.quiescing_started_at is not null;
    update community_deletion.serving_write_leases l
       set lease_until = least(now() + pg_catalog.make_interval(secs => p_lease_seconds),
                               case when c.deletion_state = 'quiescing' then v_quiescing_deadline end),
           heartbeat_at = now()
      from public.communities c
     where l.id = p_lease_id and l.community_id = v_community and l.owner = p_owner
       and l.generation = p_generation and l.fence_generation = p_fence_generation
       and l.lease_until >= now()
       and c.id = l.community_id and c.deletion_state in ('active', 'quiescing')
       and c.deletion_fence_generation = l.fence_generation
       and (c.deletion_state = 'active' or v_quiescing_deadline is null or v_quiescing_deadline > now())
    returning l.lease_until into v_until;
  end if;
  if v_until is null then
    raise exception 'stale serving-write lease % (owner %, generation %, fence generation %)',
      p_lease_id, p_owner, p_generation, p_fence_generation
      using errcode = 'DL5S1',
            hint = 'The lease expired, was released, reached its life cap while the community is quiescing '
                   '(settings.serving_lease_quiescing_cap), or the community was fenced: stop the protected effect.';
  end if;
  return v_until;
end;
$_$;


ALTER FUNCTION community_deletion.renew_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint, lease_seconds integer) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION renew_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint, lease_seconds integer); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.renew_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint, lease_seconds integer) IS 'Renew an admitted serving lease (also while the community is quiescing); DL5S1 once it is lost.';


--
-- Name: request_checkpoints(uuid); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.request_checkpoints(request_id uuid) RETURNS TABLE(sequence bigint, stage text, unit_key text, status text, attempts integer, lease_generation bigint, started_at timestamp with time zone, completed_at timestamp with time zone, error text, detail jsonb)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
begin
  if not exists (select 1 from community_deletion.requests r where r.id = p_request_id) then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  return query
    select cp.sequence, cp.stage, cp.unit_key, cp.status, cp.attempts,
           cp.lease_generation, cp.started_at, cp.completed_at, cp.error, cp.detail
      from community_deletion.checkpoints cp
     where cp.request_id = p_request_id
     order by cp.sequence;
end;
$_$;


ALTER FUNCTION community_deletion.request_checkpoints(request_id uuid) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION request_checkpoints(request_id uuid); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.request_checkpoints(request_id uuid) IS 'A request''s checkpoints as rows, in order, with attempts and errors.';


--
-- Name: request_status(uuid); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.request_status(request_id uuid) RETURNS TABLE(id uuid, community_host text, stage text, state text, explanation text, requested_by text, approved_by text, not_before timestamp with time zone, lease_owner text, lease_generation bigint, lease_until timestamp with time zone, fence_generation bigint, next_attempt_at timestamp with time zone, retry_count integer, blocked_reason text, last_error text, created_at timestamp with time zone, updated_at timestamp with time zone)
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
begin
  return query
    select r.id, r.community_host, r.stage, s.state, s.explanation,
           r.requested_by, a.approved_by, a.not_before,
           r.lease_owner, r.lease_generation, r.lease_until, r.fence_generation,
           r.next_attempt_at, r.retry_count, r.blocked_reason, r.last_error,
           r.created_at, r.updated_at
      from community_deletion.requests r
      left join community_deletion.approvals a on a.request_id = r.id
      cross join lateral community_deletion._request_state(r, a) s
     where r.id = p_request_id;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
end;
$_$;


ALTER FUNCTION community_deletion.request_status(request_id uuid) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION request_status(request_id uuid); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.request_status(request_id uuid) IS 'One request as one row for people: stage, state, explanation, lease, retries, block.';


--
-- Name: serving_lease_stats(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.serving_lease_stats() RETURNS jsonb
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select pg_catalog.jsonb_build_object(
    'active', count(*) filter (where l.lease_until >= now()),
    'expired', count(*) filter (where l.lease_until < now()),
    'dead_tuples', coalesce((select s.n_dead_tup from pg_catalog.pg_stat_user_tables s
                              where s.relid = 'community_deletion.serving_write_leases'::pg_catalog.regclass), 0))
  from community_deletion.serving_write_leases l
$$;


ALTER FUNCTION community_deletion.serving_lease_stats() OWNER TO community_deletion_owner;

--
-- Name: FUNCTION serving_lease_stats(); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.serving_lease_stats() IS 'Serving leases by state, as jsonb.';


--
-- Name: stamp_key_chunk(uuid, text, bigint, bigint, integer, jsonb); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.stamp_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, detail jsonb DEFAULT '{}'::jsonb) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  p_chunk_no alias for $5;
  p_detail alias for $6;
  v_request community_deletion.requests;
  v_entry_count integer;
begin
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'drained', p_fence_generation);
  perform community_deletion._require_detail_object(p_request_id, p_detail);
  update community_deletion.manifest_keys k
     set deleted_at = now()
   where k.request_id = p_request_id and k.chunk_no = p_chunk_no and k.deleted_at is null
  returning k.entry_count into v_entry_count;
  if not found then
    if exists (select 1 from community_deletion.manifest_keys k
               where k.request_id = p_request_id and k.chunk_no = p_chunk_no) then
      raise exception 'request % (community %): key chunk % is already stamped deleted',
        p_request_id, v_request.community_id, p_chunk_no
        using errcode = 'DL6F1';
    end if;
    raise exception 'request % (community %): there is no key chunk %', p_request_id, v_request.community_id, p_chunk_no
      using errcode = 'DL6K1';
  end if;
  perform community_deletion._checkpoint(p_request_id, 'drained', 'chunk:' || p_chunk_no, 'completed', p_generation,
    coalesce(p_detail, '{}'::jsonb) || jsonb_build_object('entries', v_entry_count));
end;
$_$;


ALTER FUNCTION community_deletion.stamp_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, detail jsonb) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION stamp_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, detail jsonb); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.stamp_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, detail jsonb) IS 'Drained stage: stamp a chunk deleted (once) and checkpoint it.';


--
-- Name: storage_taxonomy; Type: TABLE; Schema: community_deletion; Owner: postgres
--

CREATE TABLE community_deletion.storage_taxonomy (
    name text NOT NULL,
    scope text NOT NULL,
    prefix_template text NOT NULL,
    key_pattern text NOT NULL,
    writer text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    CONSTRAINT storage_taxonomy_owned_prefix_has_community CHECK (((scope = 'owned'::text) = (prefix_template ~~ '%{community}/'::text))),
    CONSTRAINT storage_taxonomy_pattern_is_anchored CHECK (((key_pattern ~~ '^%'::text) AND (key_pattern ~~ '%$'::text))),
    CONSTRAINT storage_taxonomy_scope_is_valid CHECK ((scope = ANY (ARRAY['owned'::text, 'shared'::text])))
);


ALTER TABLE community_deletion.storage_taxonomy OWNER TO postgres;

--
-- Name: storage_taxonomy_rules(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.storage_taxonomy_rules() RETURNS SETOF community_deletion.storage_taxonomy
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select * from community_deletion.storage_taxonomy order by name
$$;


ALTER FUNCTION community_deletion.storage_taxonomy_rules() OWNER TO community_deletion_owner;

--
-- Name: FUNCTION storage_taxonomy_rules(); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.storage_taxonomy_rules() IS 'The storage key taxonomy: owned prefixes and shared shapes, with the key pattern each writer produces.';


--
-- Name: submit(text, text, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.submit(host text, requested_by text, reason text DEFAULT NULL::text) RETURNS community_deletion.requests
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_host alias for $1;
  p_requested_by alias for $2;
  p_reason alias for $3;
  v_host text := community_deletion._require_text(p_host, 'host', 253);
  v_requested_by text := community_deletion._require_identity(p_requested_by, 'requested_by');
  v_reason text := community_deletion._bound_text(nullif(btrim(p_reason), ''), 4096);
  v_community public.communities;
  v_request community_deletion.requests;
begin
  perform community_deletion._apply_lock_timeout();
  select c.* into v_community from public.communities c where lower(c.host) = lower(v_host);
  if not found then
    raise exception 'community deletion: no community has host %', v_host
      using errcode = 'DL1N2';
  end if;
  if v_community.deletion_state <> 'active' or v_community.deleted_at is not null then
    raise exception 'community % (%) is %, only an active community can be submitted for deletion',
      v_community.host, v_community.id,
      case when v_community.deleted_at is not null then 'deleted' else v_community.deletion_state end
      using errcode = 'DL2C1';
  end if;

  -- session_user: the authenticated login, whatever role the caller set; the
  -- two-person rule binds to it (approve).
  insert into community_deletion.requests (community_id, community_host, requested_by, requested_login, reason)
  values (v_community.id, v_community.host, v_requested_by, session_user, v_reason)
  on conflict (community_id) where stage <> 'aborted' do nothing
  returning * into v_request;
  if found then
    return v_request;
  end if;

  select r.* into v_request from community_deletion.requests r
   where r.community_id = v_community.id and r.stage <> 'aborted';
  if v_request.stage = 'submitted' and community_deletion._same_operator(v_request.requested_by, v_requested_by) then
    return v_request;
  end if;
  raise exception 'community % (%) already has deletion request % at stage %, requested by %',
    v_community.host, v_community.id, v_request.id, v_request.stage, v_request.requested_by
    using errcode = 'DL2C2',
          hint = 'Inspect the open request with community_deletion.inspect; abort it first if it must be replaced.';
end;
$_$;


ALTER FUNCTION community_deletion.submit(host text, requested_by text, reason text) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION submit(host text, requested_by text, reason text); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.submit(host text, requested_by text, reason text) IS 'Open a deletion request for the community with this host (requested_by, reason). One open request per community.';


--
-- Name: tg_approvals__check_approval(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_approvals__check_approval() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_request community_deletion.requests;
begin
  select r.* into v_request from community_deletion.requests r where r.id = new.request_id;
  if not found then
    return new; -- the foreign key reports the missing request
  end if;
  if v_request.stage <> 'inventoried' then
    raise exception 'deletion request % is at stage %, approvals are recorded only at inventoried',
      v_request.id, v_request.stage
      using errcode = 'DL2S1';
  end if;
  if v_request.blocked_at is not null then
    raise exception 'deletion request % is blocked: %', v_request.id, v_request.blocked_reason
      using errcode = 'DL2B1',
            hint = 'Remediate the cause and run community_deletion.unblock before approving.';
  end if;
  if community_deletion._same_operator(new.approved_by, v_request.requested_by) then
    raise exception 'deletion request %: % requested it and cannot also approve it', v_request.id, new.approved_by
      using errcode = 'DL3A1',
            hint = 'A second operator must approve.';
  end if;
  -- The approving login is whoever is authenticated, never what the row says.
  new.approved_login := session_user;
  if v_request.requested_login = new.approved_login
     and not (select s.allow_same_login_approval from community_deletion.settings s) then
    raise exception 'deletion request %: the database login % submitted it and cannot also approve it',
      v_request.id, new.approved_login
      using errcode = 'DL3A1',
            hint = 'A second operator approves from their own login.';
  end if;
  return new;
end;
$$;


ALTER FUNCTION community_deletion.tg_approvals__check_approval() OWNER TO community_deletion_owner;

--
-- Name: tg_approvals__refuse_change(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_approvals__refuse_change() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  raise exception 'approval of deletion request % is immutable evidence (% refused)', old.request_id, lower(tg_op)
    using errcode = 'DL6F1';
end;
$$;


ALTER FUNCTION community_deletion.tg_approvals__refuse_change() OWNER TO community_deletion_owner;

--
-- Name: tg_checkpoints__protect(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_checkpoints__protect() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  if tg_op = 'DELETE' then
    raise exception 'checkpoint % of deletion request % is evidence and cannot be deleted', old.unit_key, old.request_id
      using errcode = 'DL6F1';
  end if;
  if new.request_id is distinct from old.request_id or new.stage is distinct from old.stage
     or new.unit_key is distinct from old.unit_key or new.started_at is distinct from old.started_at
     or new.attempts < old.attempts then
    raise exception 'checkpoint % of deletion request %: identity, start time and attempts are frozen',
      old.unit_key, old.request_id
      using errcode = 'DL6F1';
  end if;
  return new;
end;
$$;


ALTER FUNCTION community_deletion.tg_checkpoints__protect() OWNER TO community_deletion_owner;

--
-- Name: tg_communities__protect_lifecycle(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_communities__protect_lifecycle() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
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
                  where pg_catalog.lower(c.host) = pg_catalog.lower(new.host)
                    and c.deletion_state = 'tombstone') then
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


ALTER FUNCTION community_deletion.tg_communities__protect_lifecycle() OWNER TO community_deletion_owner;

--
-- Name: tg_control_plane__refuse_truncate(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_control_plane__refuse_truncate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  raise exception 'table % holds deletion evidence and cannot be truncated', tg_table_name
    using errcode = 'DL6F1';
end;
$$;


ALTER FUNCTION community_deletion.tg_control_plane__refuse_truncate() OWNER TO community_deletion_owner;

--
-- Name: tg_ddl__guard_registered_tables(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_ddl__guard_registered_tables() RETURNS event_trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  if tg_tag like 'DROP %'
     or (tg_tag not in ('GRANT', 'REVOKE', 'COMMENT', 'SECURITY LABEL', 'ALTER DEFAULT PRIVILEGES')
         and exists (select 1 from pg_catalog.pg_event_trigger_ddl_commands() c
                      where c.schema_name is distinct from 'pg_temp')) then
    perform community_deletion._guard_registered_tables();
  end if;
end;
$$;


ALTER FUNCTION community_deletion.tg_ddl__guard_registered_tables() OWNER TO community_deletion_owner;

--
-- Name: tg_ddl__lock_schema_destruction(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_ddl__lock_schema_destruction() RETURNS event_trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  if tg_tag not in ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'CREATE SEQUENCE', 'ALTER SEQUENCE',
                    'CREATE VIEW', 'CREATE INDEX', 'CREATE FUNCTION', 'DROP TABLE', 'DROP SEQUENCE', 'DROP VIEW',
                    'DROP INDEX', 'DROP FUNCTION',
                    'GRANT', 'REVOKE', 'COMMENT', 'SECURITY LABEL', 'ALTER DEFAULT PRIVILEGES') then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());
  end if;
end;
$$;


ALTER FUNCTION community_deletion.tg_ddl__lock_schema_destruction() OWNER TO community_deletion_owner;

--
-- Name: tg_ddl__lock_schema_destruction_created(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_ddl__lock_schema_destruction_created() RETURNS event_trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  if tg_tag not in ('GRANT', 'REVOKE', 'COMMENT', 'SECURITY LABEL', 'ALTER DEFAULT PRIVILEGES')
     and exists (select 1 from pg_catalog.pg_event_trigger_ddl_commands() c
                  where c.schema_name is distinct from 'pg_temp') then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());
  end if;
end;
$$;


ALTER FUNCTION community_deletion.tg_ddl__lock_schema_destruction_created() OWNER TO community_deletion_owner;

--
-- Name: tg_ddl__lock_schema_destruction_dropped(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_ddl__lock_schema_destruction_dropped() RETURNS event_trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  if exists (select 1 from pg_catalog.pg_event_trigger_dropped_objects() d
              where not d.is_temporary and d.schema_name is distinct from 'pg_temp'
                and d.object_identity not like '% on pg_temp.%') then
    perform pg_catalog.pg_advisory_xact_lock(community_deletion._schema_destruction_lock_key());
  end if;
end;
$$;


ALTER FUNCTION community_deletion.tg_ddl__lock_schema_destruction_dropped() OWNER TO community_deletion_owner;

--
-- Name: tg_events__guard_read_state_delete(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_events__guard_read_state_delete() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  if coalesce(pg_catalog.current_setting('community_deletion.read_state_hard_delete', true), '') <> 'on'
     or current_user <> 'community_deletion_owner' then
    raise exception 'read-state event % of community % cannot be hard-deleted', old.id, old.community_id
      using errcode = 'DL8G1',
            hint = 'Read-state rows are removed only by the community deletion purge.';
  end if;
  return old;
end;
$$;


ALTER FUNCTION community_deletion.tg_events__guard_read_state_delete() OWNER TO community_deletion_owner;

--
-- Name: tg_manifest_keys__forbid_truncate(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_manifest_keys__forbid_truncate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  raise exception 'community_deletion.manifest_keys cannot be truncated'
    using errcode = 'DL6F1',
          hint = 'Key chunks are cleared per request by community_deletion.clear_key_chunks or dropped at terminal cleanup.';
end;
$$;


ALTER FUNCTION community_deletion.tg_manifest_keys__forbid_truncate() OWNER TO community_deletion_owner;

--
-- Name: tg_manifest_keys__guard(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_manifest_keys__guard() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_row community_deletion.manifest_keys := case when tg_op = 'DELETE' then old else new end;
  v_stage text;
  v_frozen boolean;
  v_community uuid;
begin
  select r.stage, r.destructive_storage_manifest is not null, r.community_id
    into v_stage, v_frozen, v_community
  from community_deletion.requests r
  where r.id = v_row.request_id
  for share;
  if not found then
    -- Let the foreign key report the missing request.
    return v_row;
  end if;

  if tg_op = 'INSERT' then
    if v_frozen then
      raise exception 'key chunk % of request % refused: the destructive manifest is already frozen',
        new.chunk_no, new.request_id
        using errcode = 'DL6F1';
    end if;
    if v_stage <> 'fenced' then
      raise exception 'key chunk % of request % refused: chunks are appended only at stage fenced (request is %)',
        new.chunk_no, new.request_id, v_stage
        using errcode = 'DL2S1';
    end if;
    perform community_deletion._check_key_chunk(new, v_community);
    return new;
  end if;

  if tg_op = 'UPDATE' then
    if old.deleted_at is null and new.deleted_at is not null
       and (new.request_id, new.chunk_no, new.prefix, new.entries, new.entry_count, new.created_at)
           is not distinct from (old.request_id, old.chunk_no, old.prefix, old.entries, old.entry_count, old.created_at)
       and v_frozen and v_stage = 'drained' then
      return new;
    end if;
    raise exception 'key chunk % of request % is immutable: only a single deleted_at stamp at stage drained after the freeze is allowed',
      old.chunk_no, old.request_id
      using errcode = 'DL6F1';
  end if;

  -- DELETE
  if (v_stage = 'fenced' and not v_frozen)
     or v_stage in ('logically_verified', 'retention_pending', 'aborted') then
    return old;
  end if;
  raise exception 'key chunk % of request % cannot be deleted at stage % (destructive manifest frozen: %)',
    old.chunk_no, old.request_id, v_stage, v_frozen
    using errcode = 'DL6F1',
          hint = 'Frozen key chunks are dropped only by community_deletion.mark_logically_verified.';
end;
$$;


ALTER FUNCTION community_deletion.tg_manifest_keys__guard() OWNER TO community_deletion_owner;

--
-- Name: tg_provenance_table__refuse_inactive_community(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_provenance_table__refuse_inactive_community() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_column text := tg_argv[0];
  v_new uuid := (pg_catalog.to_jsonb(new) ->> v_column)::uuid;
  v_state text;
begin
  if v_new is null or (tg_op = 'UPDATE' and v_new is not distinct from (pg_catalog.to_jsonb(old) ->> v_column)::uuid) then
    return new;
  end if;
  perform community_deletion._lock_community(v_new, false);
  select c.deletion_state into v_state from public.communities c where c.id = v_new;
  if v_state is distinct from 'active' then
    raise exception 'community write refused: % on %.% names community % (%) in %',
      tg_op, tg_table_schema, tg_table_name, v_new, coalesce(v_state, 'missing'), v_column
      using errcode = '55000',
            hint = 'A provenance row may name only an active community; write NULL instead.';
  end if;
  return new;
end;
$$;


ALTER FUNCTION community_deletion.tg_provenance_table__refuse_inactive_community() OWNER TO community_deletion_owner;

--
-- Name: tg_requests__freeze_destructive_manifest(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_requests__freeze_destructive_manifest() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  if old.destructive_storage_manifest is not null or old.destructive_storage_frozen_at is not null then
    raise exception 'the destructive storage manifest of request % is frozen and cannot be changed', old.id
      using errcode = 'DL6F1';
  end if;
  if old.stage <> 'fenced' or new.stage <> 'fenced' then
    raise exception 'the destructive storage manifest of request % can be frozen only at stage fenced (request is %)',
      old.id, old.stage
      using errcode = 'DL2S1';
  end if;
  return new;
end;
$$;


ALTER FUNCTION community_deletion.tg_requests__freeze_destructive_manifest() OWNER TO community_deletion_owner;

--
-- Name: tg_requests__protect_frozen_fields(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_requests__protect_frozen_fields() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_field text;
begin
  if community_deletion._stage_is_terminal(old.stage) and new is distinct from old then
    v_field := 'any column (the request is terminal: ' || old.stage || ')';
  elsif new.id is distinct from old.id then
    v_field := 'id';
  elsif new.community_id is distinct from old.community_id then
    v_field := 'community_id';
  elsif new.community_host is distinct from old.community_host then
    v_field := 'community_host';
  elsif new.requested_by is distinct from old.requested_by then
    v_field := 'requested_by';
  elsif new.requested_login is distinct from old.requested_login then
    v_field := 'requested_login';
  elsif new.reason is distinct from old.reason then
    v_field := 'reason';
  elsif new.created_at is distinct from old.created_at then
    v_field := 'created_at';
  elsif old.schema_manifest is not null and new.schema_manifest is distinct from old.schema_manifest then
    v_field := 'schema_manifest';
  elsif old.storage_manifest is not null and new.storage_manifest is distinct from old.storage_manifest then
    v_field := 'storage_manifest';
  elsif old.inventory_manifest is not null and new.inventory_manifest is distinct from old.inventory_manifest then
    v_field := 'inventory_manifest';
  elsif old.inventory_digest is not null and new.inventory_digest is distinct from old.inventory_digest then
    v_field := 'inventory_digest';
  elsif old.inventory_frozen_at is not null and new.inventory_frozen_at is distinct from old.inventory_frozen_at then
    v_field := 'inventory_frozen_at';
  elsif old.destructive_storage_manifest is not null
        and new.destructive_storage_manifest is distinct from old.destructive_storage_manifest then
    v_field := 'destructive_storage_manifest';
  elsif old.destructive_storage_frozen_at is not null
        and new.destructive_storage_frozen_at is distinct from old.destructive_storage_frozen_at then
    v_field := 'destructive_storage_frozen_at';
  elsif old.quiescing_started_at is not null
        and (new.quiescing_started_at is distinct from old.quiescing_started_at
             or new.pre_quiesce_archived_at is distinct from old.pre_quiesce_archived_at) then
    v_field := 'the pre-quiesce capture (quiescing_started_at, pre_quiesce_archived_at)';
  elsif new.lease_generation < old.lease_generation then
    v_field := 'lease_generation (it never decreases)';
  elsif old.fence_generation is not null
        and (new.fence_generation is null or new.fence_generation < old.fence_generation) then
    v_field := 'fence_generation (it never decreases)';
  end if;
  if v_field is not null then
    raise exception 'deletion request % is frozen: % cannot change', old.id, v_field
      using errcode = 'DL6F1';
  end if;
  return new;
end;
$$;


ALTER FUNCTION community_deletion.tg_requests__protect_frozen_fields() OWNER TO community_deletion_owner;

--
-- Name: tg_requests__refuse_delete(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_requests__refuse_delete() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  raise exception 'deletion request % is evidence and cannot be deleted', old.id
    using errcode = 'DL6F1';
end;
$$;


ALTER FUNCTION community_deletion.tg_requests__refuse_delete() OWNER TO community_deletion_owner;

--
-- Name: tg_requests__stage_moves_forward(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_requests__stage_moves_forward() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
begin
  if new.stage is distinct from community_deletion._next_stage(old.stage)
     and not (new.stage = 'aborted' and community_deletion._stage_is_abortable(old.stage)) then
    raise exception 'deletion request %: illegal stage change % -> %', old.id, old.stage, new.stage
      using errcode = 'DL2S1';
  end if;
  return null;
end;
$$;


ALTER FUNCTION community_deletion.tg_requests__stage_moves_forward() OWNER TO community_deletion_owner;

--
-- Name: tg_scoped_table__enforce_write_fence(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence() RETURNS trigger
    LANGUAGE c
    AS '$libdir/community_deletion_fence', 'cd_fence_statement';


ALTER FUNCTION community_deletion.tg_scoped_table__enforce_write_fence() OWNER TO community_deletion_owner;

--
-- Name: tg_scoped_table__refuse_truncate(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_scoped_table__refuse_truncate() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_community uuid;
begin
  execute pg_catalog.format(
    'select c.id from public.communities c
      where c.deletion_state <> ''active''
        and exists (select 1 from %I.%I t where t.community_id = c.id)
      limit 1', tg_table_schema, tg_table_name)
    into v_community;
  if v_community is not null then
    raise exception 'community write refused: TRUNCATE on %.% while community % (not active) has rows there',
      tg_table_schema, tg_table_name, v_community
      using errcode = '55000',
            hint = 'A community that is being deleted keeps its rows until the engine purges them; delete other rows with DELETE.';
  end if;
  return null;
end;
$$;


ALTER FUNCTION community_deletion.tg_scoped_table__refuse_truncate() OWNER TO community_deletion_owner;

--
-- Name: tg_scoped_table__refuse_write_early(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.tg_scoped_table__refuse_write_early() RETURNS trigger
    LANGUAGE c
    AS '$libdir/community_deletion_fence', 'cd_fence_early';


ALTER FUNCTION community_deletion.tg_scoped_table__refuse_write_early() OWNER TO community_deletion_owner;

--
-- Name: unblock(uuid, text, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.unblock(request_id uuid, unblocked_by text, reason text) RETURNS community_deletion.requests
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_unblocked_by alias for $2;
  p_reason alias for $3;
  v_unblocked_by text := community_deletion._require_identity(p_unblocked_by, 'unblocked_by');
  v_reason text := community_deletion._bound_text(community_deletion._require_text(p_reason, 'reason', 100000), 4096);
  v_request community_deletion.requests;
begin
  perform community_deletion._apply_lock_timeout();
  select r.* into v_request from community_deletion.requests r where r.id = p_request_id for update;
  if not found then
    raise exception 'no deletion request %', p_request_id using errcode = 'DL1N1';
  end if;
  if community_deletion._stage_is_terminal(v_request.stage) then
    raise exception 'deletion request % is terminal (%) and cannot resume', p_request_id, v_request.stage
      using errcode = 'DL2T1';
  end if;
  if v_request.blocked_at is null then
    raise exception 'deletion request % is not blocked', p_request_id
      using errcode = 'DL2B2';
  end if;
  if v_request.lease_owner is not null and v_request.lease_until >= now() then
    raise exception 'deletion request % is still leased by % (generation %) until %',
      p_request_id, v_request.lease_owner, v_request.lease_generation, v_request.lease_until
      using errcode = 'DL4L2',
            hint = 'Stop that executor or wait for its lease to expire, then unblock.';
  end if;

  perform community_deletion._checkpoint(
    v_request.id, v_request.stage, 'operator_unblock:' || gen_random_uuid()::text, 'completed',
    v_request.lease_generation,
    jsonb_build_object(
      'unblocked_by', v_unblocked_by,
      'reason', v_reason,
      'previous_block', v_request.blocked_reason,
      'previous_blocked_at', v_request.blocked_at,
      'previous_retry_count', v_request.retry_count));

  update community_deletion.requests r
     set blocked_at = null,
         blocked_reason = null,
         retry_count = 0,
         retry_stage = null,
         last_error = null,
         last_error_at = null,
         next_attempt_at = now(),
         lease_owner = null,
         lease_until = null,
         updated_at = now()
   where r.id = p_request_id and r.blocked_at is not null
  returning r.* into v_request;
  return v_request;
end;
$_$;


ALTER FUNCTION community_deletion.unblock(request_id uuid, unblocked_by text, reason text) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION unblock(request_id uuid, unblocked_by text, reason text); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.unblock(request_id uuid, unblocked_by text, reason text) IS 'Clear a durable block after remediation; the request resumes at the same stage with the same approval.';


--
-- Name: validate_catalog(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.validate_catalog() RETURNS void
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_live text[] := community_deletion._live_community_tables();
  v_fenced text[] := community_deletion._live_fenced_tables();
  v_registered text[];
  v_scoped text[];
  v_missing text[];
  v_unknown text[];
  v_unfenced text[];
  v_stray_fences text[];
  v_shape text[];
  v_problems text[] := '{}';
begin
  select coalesce(array_agg(l.label order by l.label collate "C"), '{}'),
         coalesce(array_agg(l.label order by l.label collate "C") filter (where r.kind = 'scoped'), '{}')
    into v_registered, v_scoped
    from community_deletion.registered_tables r
    cross join lateral (select community_deletion._table_label(r.schema_name, r.table_name) as label) l;
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_missing
    from unnest(v_registered) x where x <> all (v_live);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unknown
    from unnest(v_live) x where x <> all (v_registered);
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_unfenced
    from unnest(v_scoped) x where x <> all (v_fenced) and x = any (v_live);
  -- Any trigger executing a fence function (complete or not, enabled or not)
  -- on a table not registered as scoped means the registry is stale.
  select coalesce(array_agg(x order by x collate "C"), '{}') into v_stray_fences
    from (select distinct community_deletion._table_label(n.nspname::text, c.relname::text) as x
            from pg_catalog.pg_trigger t
            join pg_catalog.pg_class c on c.oid = t.tgrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
           where not t.tgisinternal
             and t.tgfoid in (pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()'),
                              pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_write_early()'),
                              pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_truncate()'))) f
   where x <> all (v_scoped);
  -- The shape of every registered scoped and provenance table that exists.
  select coalesce(array_agg(format('%s: %s', s.label, array_to_string(s.problems, ', ')) order by s.label collate "C"), '{}')
    into v_shape
    from (select community_deletion._table_label(r.schema_name, r.table_name) as label,
                 array_remove(array[
                   case when community_deletion._inheritance_role(x.rel) is not null
                        then 'it is ' || community_deletion._inheritance_role(x.rel) end,
                   case when r.kind = 'scoped' and not exists (
                          select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = x.rel and a.attname = 'community_id' and not a.attisdropped
                             and a.atttypid = 'pg_catalog.uuid'::pg_catalog.regtype and a.attnotnull)
                        then 'community_id is not uuid not null' end,
                   case when community_deletion._community_columns(x.rel) <> array[r.community_column]
                        then format('the columns holding a community are %s, registered: %s',
                                    coalesce(nullif(array_to_string(community_deletion._community_columns(x.rel), ', '), ''), 'none'),
                                    r.community_column) end,
                   case when r.kind = 'provenance' and exists (
                          select 1 from pg_catalog.pg_attribute a
                           where a.attrelid = x.rel and a.attname = r.community_column and a.attnotnull)
                        then r.community_column || ' is NOT NULL (the purge nulls it)' end,
                   case when not community_deletion._has_leading_index(x.rel, r.community_column)
                        then 'no valid index leads with ' || r.community_column end], null)
                 || case r.kind when 'scoped' then community_deletion._fence_trigger_problems(x.rel)
                                else community_deletion._provenance_guard_problems(x.rel, r.community_column) end
                   as problems
            from community_deletion.registered_tables r
            cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
           where r.kind in ('scoped', 'provenance') and x.rel is not null) s
   where cardinality(s.problems) > 0;

  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('registered but missing: %s', array_to_string(v_missing, ', '));
  end if;
  if cardinality(v_unknown) > 0 then
    v_problems := v_problems || format('unregistered tables holding communities: %s', array_to_string(v_unknown, ', '));
  end if;
  if cardinality(v_unfenced) > 0 then
    v_problems := v_problems || format('scoped tables without the write fence: %s', array_to_string(v_unfenced, ', '));
  end if;
  if cardinality(v_stray_fences) > 0 then
    v_problems := v_problems || format('write fence on unregistered tables: %s', array_to_string(v_stray_fences, ', '));
  end if;
  if cardinality(v_shape) > 0 then
    v_problems := v_problems || format('registered tables out of shape: %s', array_to_string(v_shape, '; '));
  end if;
  if cardinality(v_problems) > 0 then
    raise exception 'community deletion catalog drift: %', array_to_string(v_problems, '; ')
      using errcode = 'DL7C1',
            detail = pg_catalog.jsonb_build_object(
              'missing', v_missing, 'unknown', v_unknown, 'unfenced', v_unfenced,
              'stray_fences', v_stray_fences, 'shape', v_shape)::text,
            hint = 'In a migration, register new tables (community_deletion.register_scoped_table / '
                   'community_deletion.register_unscoped_table) or drop them, restore missing fences and indexes; '
                   'then unblock the request (deletions unblock ID), or abort it.';
  end if;
end;
$$;


ALTER FUNCTION community_deletion.validate_catalog() OWNER TO community_deletion_owner;

--
-- Name: FUNCTION validate_catalog(); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.validate_catalog() IS 'Raise DL7C1 (listing every problem) unless the live tables with community_id equal the registry, each scoped table is fenced and indexed.';


--
-- Name: validate_serving_catalog(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.validate_serving_catalog() RETURNS void
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
declare
  v_problems text[] := '{}';
  v_missing text[];
  v_fenced text[] := community_deletion._live_fenced_tables();
begin
  select coalesce(array_agg(e.col order by e.col), '{}') into v_missing
    from (values ('deleted_at', 'timestamp with time zone', false),
                 ('deletion_fence_generation', 'bigint', true),
                 ('deletion_state', 'text', true)) as e(col, typ, not_null)
   where not exists (
     select 1 from pg_catalog.pg_attribute a
      where a.attrelid = pg_catalog.to_regclass('public.communities') and a.attname = e.col
        and not a.attisdropped and pg_catalog.format_type(a.atttypid, a.atttypmod) = e.typ
        and a.attnotnull = e.not_null);
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('communities lifecycle columns missing or incompatible: %s', array_to_string(v_missing, ', '));
  end if;

  select coalesce(array_agg(t order by t), '{}') into v_missing
    from unnest(array['public.communities', 'community_deletion.requests', 'community_deletion.serving_write_leases',
                      'community_deletion.serving_write_grants', 'community_deletion.registered_tables']) t
   where pg_catalog.to_regclass(t) is null;
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('tables missing: %s', array_to_string(v_missing, ', '));
  end if;

  select coalesce(array_agg(f order by f), '{}') into v_missing
    from unnest(array['community_deletion._community_lock_key(uuid)',
                      'community_deletion.community_write_allowed(uuid)',
                      'community_deletion.assert_community_write_allowed(uuid)',
                      'community_deletion.tg_scoped_table__enforce_write_fence()',
                      'community_deletion.tg_communities__protect_lifecycle()',
                      'community_deletion.acquire_serving_lease(uuid,text,text,integer)',
                      'community_deletion.renew_serving_lease(uuid,text,bigint,bigint,integer)',
                      'community_deletion.verify_serving_lease(uuid,text,bigint,bigint)',
                      'community_deletion.release_serving_lease(uuid,text,bigint,bigint)',
                      'community_deletion.guard_serving_write(uuid,text,bigint,bigint)']) f
   where pg_catalog.to_regprocedure(f) is null;
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('functions missing: %s', array_to_string(v_missing, ', '));
  elsif (select p.provolatile from pg_catalog.pg_proc p
          where p.oid = pg_catalog.to_regprocedure('community_deletion.community_write_allowed(uuid)')) <> 'v' then
    v_problems := v_problems || 'community_write_allowed(uuid) must be volatile (it takes the community lock)'::text;
  end if;

  if not exists (
    select 1 from pg_catalog.pg_trigger t
     where t.tgrelid = pg_catalog.to_regclass('public.communities') and not t.tgisinternal
       and t.tgenabled in ('O', 'A')
       and t.tgfoid = pg_catalog.to_regprocedure('community_deletion.tg_communities__protect_lifecycle()')) then
    v_problems := v_problems || 'the lifecycle/tombstone guard trigger on communities is missing or disabled'::text;
  end if;

  select coalesce(array_agg(l.label order by l.label collate "C"), '{}') into v_missing
    from community_deletion.registered_tables r
    cross join lateral (select community_deletion._table_label(r.schema_name, r.table_name) as label) l
   where r.kind = 'scoped' and l.label <> all (v_fenced);
  if cardinality(v_missing) > 0 then
    v_problems := v_problems || format('registered scoped tables without the write fence: %s', array_to_string(v_missing, ', '));
  end if;

  if cardinality(v_problems) > 0 then
    raise exception 'community serving catalog not ready: %', array_to_string(v_problems, '; ')
      using errcode = 'DL7C1',
            hint = 'Apply the engine migrations (db/migrations) before serving traffic.';
  end if;
end;
$$;


ALTER FUNCTION community_deletion.validate_serving_catalog() OWNER TO community_deletion_owner;

--
-- Name: FUNCTION validate_serving_catalog(); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.validate_serving_catalog() IS 'Raise DL7C1 unless every registered scoped table the serving path writes exists with its write fence.';


--
-- Name: verify_postgres_absence(uuid, text, bigint, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.verify_postgres_absence(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
  v_request community_deletion.requests;
  v_checked integer;
begin
  perform community_deletion._lock_schema_destruction_shared();
  perform community_deletion.validate_catalog();
  v_request := community_deletion._verify_lease_and_fence(p_request_id, p_owner, p_generation, 'cache_purged', p_fence_generation);
  v_checked := community_deletion._prove_postgres_absence(p_request_id, v_request.community_id, p_fence_generation);
  perform community_deletion._checkpoint(p_request_id, 'cache_purged', 'verify_postgres_absence', 'completed', p_generation,
    jsonb_build_object('tables_checked', v_checked, 'fence_generation', p_fence_generation));
end;
$_$;


ALTER FUNCTION community_deletion.verify_postgres_absence(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION verify_postgres_absence(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.verify_postgres_absence(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) IS 'Cache_purged stage: prove no registered table holds a row of the community.';


--
-- Name: verify_serving_lease(uuid, text, bigint, bigint); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.verify_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_lease_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_fence_generation alias for $4;
begin
  perform community_deletion._require_read_committed('community_deletion.verify_serving_lease');
  perform community_deletion._serving_lease_check(p_lease_id, p_owner, p_generation, p_fence_generation);
end;
$_$;


ALTER FUNCTION community_deletion.verify_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION verify_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.verify_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) IS 'Raise DL5S1 unless the serving lease is still live; call right before an irreversible external call.';


--
-- Name: verify_token(uuid, text, bigint, text); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.verify_token(request_id uuid, executor_id text, lease_generation bigint, stage text) RETURNS void
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_owner alias for $2;
  p_generation alias for $3;
  p_stage alias for $4;
  v_request community_deletion.requests;
begin
  v_request := community_deletion._verify_lease(p_request_id, p_owner, p_generation, p_stage);
  if v_request.fence_generation is not null then
    perform community_deletion._verify_lease_and_fence(
      p_request_id, p_owner, p_generation, p_stage, v_request.fence_generation);
  end if;
end;
$_$;


ALTER FUNCTION community_deletion.verify_token(request_id uuid, executor_id text, lease_generation bigint, stage text) OWNER TO community_deletion_owner;

--
-- Name: FUNCTION verify_token(request_id uuid, executor_id text, lease_generation bigint, stage text); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.verify_token(request_id uuid, executor_id text, lease_generation bigint, stage text) IS 'Raise DL4L1 unless the lease token is current, unexpired and unblocked at this stage.';


--
-- Name: write_fence_implementation(); Type: FUNCTION; Schema: community_deletion; Owner: community_deletion_owner
--

CREATE FUNCTION community_deletion.write_fence_implementation() RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
  select case l.lanname when 'c' then 'native' else l.lanname::text end
    from pg_catalog.pg_proc p join pg_catalog.pg_language l on l.oid = p.prolang
   where p.oid = 'community_deletion.tg_scoped_table__enforce_write_fence()'::pg_catalog.regprocedure
$$;


ALTER FUNCTION community_deletion.write_fence_implementation() OWNER TO community_deletion_owner;

--
-- Name: FUNCTION write_fence_implementation(); Type: COMMENT; Schema: community_deletion; Owner: community_deletion_owner
--

COMMENT ON FUNCTION community_deletion.write_fence_implementation() IS 'Which implementation the write-fence triggers execute: native or plpgsql.';


--
-- Name: checkpoints; Type: TABLE; Schema: community_deletion; Owner: postgres
--

CREATE TABLE community_deletion.checkpoints (
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
    CONSTRAINT checkpoints_attempts_are_positive CHECK ((attempts > 0)),
    CONSTRAINT checkpoints_completed_has_time CHECK (((status = 'completed'::text) = (completed_at IS NOT NULL))),
    CONSTRAINT checkpoints_detail_is_object CHECK ((jsonb_typeof(detail) = 'object'::text)),
    CONSTRAINT checkpoints_failed_has_error CHECK (((status <> 'failed'::text) OR (error IS NOT NULL))),
    CONSTRAINT checkpoints_stage_is_valid CHECK ((community_deletion._stage_order(stage) IS NOT NULL)),
    CONSTRAINT checkpoints_status_is_valid CHECK ((status = ANY (ARRAY['started'::text, 'completed'::text, 'failed'::text]))),
    CONSTRAINT checkpoints_unit_key_is_present CHECK (((btrim(unit_key) <> ''::text) AND (length(unit_key) <= 256)))
);


ALTER TABLE community_deletion.checkpoints OWNER TO postgres;

--
-- Name: checkpoints_sequence_seq; Type: SEQUENCE; Schema: community_deletion; Owner: postgres
--

ALTER TABLE community_deletion.checkpoints ALTER COLUMN sequence ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME community_deletion.checkpoints_sequence_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: executor_heartbeats; Type: TABLE; Schema: community_deletion; Owner: postgres
--

CREATE TABLE community_deletion.executor_heartbeats (
    executor_id text NOT NULL,
    mode text NOT NULL,
    request_id uuid,
    draining boolean DEFAULT false NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL,
    stopped_at timestamp with time zone,
    CONSTRAINT executor_heartbeats_executor_is_present CHECK (((btrim(executor_id) <> ''::text) AND (length(executor_id) <= 256))),
    CONSTRAINT executor_heartbeats_mode_is_valid CHECK ((mode = ANY (ARRAY['run'::text, 'drain'::text, 'worker'::text])))
);


ALTER TABLE community_deletion.executor_heartbeats OWNER TO postgres;

--
-- Name: registered_tables; Type: TABLE; Schema: community_deletion; Owner: postgres
--

CREATE TABLE community_deletion.registered_tables (
    table_name text NOT NULL,
    kind text NOT NULL,
    purge_order integer,
    registered_at timestamp with time zone DEFAULT now() NOT NULL,
    note text,
    schema_name text NOT NULL,
    community_column text,
    CONSTRAINT registered_tables_community_column_is_identifier CHECK ((community_column ~ '^[a-z_][a-z0-9_]{0,62}$'::text)),
    CONSTRAINT registered_tables_kind_is_valid CHECK ((kind = ANY (ARRAY['scoped'::text, 'provenance'::text, 'excluded'::text]))),
    CONSTRAINT registered_tables_name_is_identifier CHECK ((table_name ~ '^[a-z_][a-z0-9_]{0,62}$'::text)),
    CONSTRAINT registered_tables_purge_order_is_positive CHECK ((purge_order > 0)),
    CONSTRAINT registered_tables_purge_order_only_for_scoped CHECK (((kind = 'scoped'::text) = (purge_order IS NOT NULL))),
    CONSTRAINT registered_tables_purged_kinds_name_their_column CHECK (((kind = 'excluded'::text) OR (community_column IS NOT NULL))),
    CONSTRAINT registered_tables_schema_name_is_identifier CHECK ((schema_name ~ '^[a-z_][a-z0-9_]{0,62}$'::text)),
    CONSTRAINT registered_tables_scoped_column_is_community_id CHECK (((kind <> 'scoped'::text) OR (community_column = 'community_id'::text))),
    CONSTRAINT registered_tables_unscoped_have_a_reason CHECK (((kind = 'scoped'::text) OR ((note IS NOT NULL) AND (btrim(note) <> ''::text))))
);


ALTER TABLE community_deletion.registered_tables OWNER TO postgres;

--
-- Name: serving_write_grants; Type: TABLE; Schema: community_deletion; Owner: postgres
--

CREATE TABLE community_deletion.serving_write_grants (
    xact_id xid8 NOT NULL,
    community_id uuid NOT NULL,
    lease_id uuid NOT NULL,
    fence_generation bigint NOT NULL,
    granted_at timestamp with time zone DEFAULT now() NOT NULL
);


ALTER TABLE community_deletion.serving_write_grants OWNER TO postgres;

--
-- Name: settings; Type: TABLE; Schema: community_deletion; Owner: postgres
--

CREATE TABLE community_deletion.settings (
    singleton boolean DEFAULT true NOT NULL,
    approval_grace_period interval DEFAULT '00:00:00'::interval NOT NULL,
    max_consecutive_failures integer DEFAULT 8 NOT NULL,
    retry_base_delay interval DEFAULT '00:00:05'::interval NOT NULL,
    retry_max_delay interval DEFAULT '00:15:00'::interval NOT NULL,
    lock_timeout interval DEFAULT '00:00:05'::interval NOT NULL,
    serving_lease_quiescing_cap interval DEFAULT '00:10:00'::interval NOT NULL,
    allow_same_login_approval boolean DEFAULT false NOT NULL,
    CONSTRAINT settings_delays_are_ordered CHECK (((retry_base_delay > '00:00:00'::interval) AND (retry_max_delay >= retry_base_delay))),
    CONSTRAINT settings_failures_are_positive CHECK ((max_consecutive_failures > 0)),
    CONSTRAINT settings_grace_is_non_negative CHECK ((approval_grace_period >= '00:00:00'::interval)),
    CONSTRAINT settings_is_singleton CHECK (singleton),
    CONSTRAINT settings_lock_timeout_is_bounded CHECK (((lock_timeout > '00:00:00'::interval) AND (lock_timeout <= '01:00:00'::interval))),
    CONSTRAINT settings_serving_lease_quiescing_cap_is_positive CHECK ((serving_lease_quiescing_cap > '00:00:00'::interval))
);


ALTER TABLE community_deletion.settings OWNER TO postgres;

--
-- Name: stages; Type: VIEW; Schema: community_deletion; Owner: postgres
--

CREATE VIEW community_deletion.stages AS
 SELECT s.stage,
    s.stage_order,
    s.next_stage,
    s.runnable,
    s.terminal,
    s.abortable,
    s.fenced
   FROM community_deletion._stages() s(stage, stage_order, next_stage, runnable, terminal, abortable, fenced);


ALTER TABLE community_deletion.stages OWNER TO postgres;

--
-- Name: VIEW stages; Type: COMMENT; Schema: community_deletion; Owner: postgres
--

COMMENT ON VIEW community_deletion.stages IS 'The request lifecycle: order, next stage, and which stages are runnable, terminal, abortable and fenced.';


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
-- Name: approvals approvals_pkey; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.approvals
    ADD CONSTRAINT approvals_pkey PRIMARY KEY (request_id);


--
-- Name: checkpoints checkpoints_pkey; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.checkpoints
    ADD CONSTRAINT checkpoints_pkey PRIMARY KEY (sequence);


--
-- Name: checkpoints checkpoints_unit_key; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.checkpoints
    ADD CONSTRAINT checkpoints_unit_key UNIQUE (request_id, stage, unit_key);


--
-- Name: executor_heartbeats executor_heartbeats_pkey; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.executor_heartbeats
    ADD CONSTRAINT executor_heartbeats_pkey PRIMARY KEY (executor_id);


--
-- Name: manifest_keys manifest_keys_pkey; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.manifest_keys
    ADD CONSTRAINT manifest_keys_pkey PRIMARY KEY (request_id, chunk_no);


--
-- Name: registered_tables registered_tables_pkey; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.registered_tables
    ADD CONSTRAINT registered_tables_pkey PRIMARY KEY (schema_name, table_name);


--
-- Name: registered_tables registered_tables_purge_order_key; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.registered_tables
    ADD CONSTRAINT registered_tables_purge_order_key UNIQUE (purge_order);


--
-- Name: requests requests_approval_binding_key; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.requests
    ADD CONSTRAINT requests_approval_binding_key UNIQUE (id, community_id, inventory_digest);


--
-- Name: requests requests_pkey; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.requests
    ADD CONSTRAINT requests_pkey PRIMARY KEY (id);


--
-- Name: serving_write_grants serving_write_grants_pkey; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.serving_write_grants
    ADD CONSTRAINT serving_write_grants_pkey PRIMARY KEY (xact_id, community_id);


--
-- Name: serving_write_leases serving_write_leases_pkey; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.serving_write_leases
    ADD CONSTRAINT serving_write_leases_pkey PRIMARY KEY (id);


--
-- Name: settings settings_pkey; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.settings
    ADD CONSTRAINT settings_pkey PRIMARY KEY (singleton);


--
-- Name: storage_taxonomy storage_taxonomy_pkey; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.storage_taxonomy
    ADD CONSTRAINT storage_taxonomy_pkey PRIMARY KEY (name);


--
-- Name: storage_taxonomy storage_taxonomy_prefix_key; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.storage_taxonomy
    ADD CONSTRAINT storage_taxonomy_prefix_key UNIQUE (prefix_template);


--
-- Name: taxonomy_sweeps taxonomy_sweeps_pkey; Type: CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.taxonomy_sweeps
    ADD CONSTRAINT taxonomy_sweeps_pkey PRIMARY KEY (id);


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
-- Name: requests_claim_idx; Type: INDEX; Schema: community_deletion; Owner: postgres
--

CREATE INDEX requests_claim_idx ON community_deletion.requests USING btree (created_at, id) WHERE ((blocked_at IS NULL) AND community_deletion._stage_is_runnable(stage));


--
-- Name: requests_one_open_per_community; Type: INDEX; Schema: community_deletion; Owner: postgres
--

CREATE UNIQUE INDEX requests_one_open_per_community ON community_deletion.requests USING btree (community_id) WHERE (stage <> 'aborted'::text);


--
-- Name: serving_write_leases_community_idx; Type: INDEX; Schema: community_deletion; Owner: postgres
--

CREATE INDEX serving_write_leases_community_idx ON community_deletion.serving_write_leases USING btree (community_id, lease_until);


--
-- Name: serving_write_leases_expiry_idx; Type: INDEX; Schema: community_deletion; Owner: postgres
--

CREATE INDEX serving_write_leases_expiry_idx ON community_deletion.serving_write_leases USING btree (lease_until);


--
-- Name: taxonomy_sweeps_completed_idx; Type: INDEX; Schema: community_deletion; Owner: postgres
--

CREATE INDEX taxonomy_sweeps_completed_idx ON community_deletion.taxonomy_sweeps USING btree (completed_at);


--
-- Name: api_tokens_user_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX api_tokens_user_idx ON public.api_tokens USING btree (community_id, pubkey);


--
-- Name: channel_members_user_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX channel_members_user_idx ON public.channel_members USING btree (community_id, pubkey);


--
-- Name: communities_host_lower_key; Type: INDEX; Schema: public; Owner: postgres
--

CREATE UNIQUE INDEX communities_host_lower_key ON public.communities USING btree (lower(host));


--
-- Name: delivery_log_event_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX delivery_log_event_idx ON public.delivery_log USING btree (community_id, event_id);


--
-- Name: events_channel_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX events_channel_idx ON public.events USING btree (community_id, channel_id);


--
-- Name: events_community_kind_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX events_community_kind_idx ON public.events USING btree (community_id, kind, created_at);


--
-- Name: git_repo_names_owner_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX git_repo_names_owner_idx ON public.git_repo_names USING btree (community_id, owner_pubkey);


--
-- Name: moderation_actions_target_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX moderation_actions_target_idx ON public.moderation_actions USING btree (community_id, target_pubkey);


--
-- Name: moderation_reports_event_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX moderation_reports_event_idx ON public.moderation_reports USING btree (community_id, event_id);


--
-- Name: product_feedback_community_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX product_feedback_community_idx ON public.product_feedback USING btree (community_id);


--
-- Name: push_leases_user_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX push_leases_user_idx ON public.push_leases USING btree (community_id, pubkey);


--
-- Name: push_match_queue_event_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX push_match_queue_event_idx ON public.push_match_queue USING btree (community_id, event_id);


--
-- Name: push_wake_outbox_user_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX push_wake_outbox_user_idx ON public.push_wake_outbox USING btree (community_id, pubkey);


--
-- Name: rate_limit_violations_community_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX rate_limit_violations_community_idx ON public.rate_limit_violations USING btree (community_id);


--
-- Name: relay_invites_creator_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX relay_invites_creator_idx ON public.relay_invites USING btree (community_id, created_by);


--
-- Name: scheduled_workflow_fires_workflow_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX scheduled_workflow_fires_workflow_idx ON public.scheduled_workflow_fires USING btree (community_id, workflow_id);


--
-- Name: subscriptions_user_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX subscriptions_user_idx ON public.subscriptions USING btree (community_id, pubkey);


--
-- Name: thread_metadata_channel_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX thread_metadata_channel_idx ON public.thread_metadata USING btree (community_id, channel_id);


--
-- Name: workflow_runs_workflow_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX workflow_runs_workflow_idx ON public.workflow_runs USING btree (community_id, workflow_id);


--
-- Name: workflows_channel_idx; Type: INDEX; Schema: public; Owner: postgres
--

CREATE INDEX workflows_channel_idx ON public.workflows USING btree (community_id, channel_id);


--
-- Name: approvals _100_check_approval; Type: TRIGGER; Schema: community_deletion; Owner: postgres
--

CREATE TRIGGER _100_check_approval BEFORE INSERT ON community_deletion.approvals FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_approvals__check_approval();


--
-- Name: manifest_keys _100_guard_key_chunks; Type: TRIGGER; Schema: community_deletion; Owner: postgres
--

CREATE TRIGGER _100_guard_key_chunks BEFORE INSERT OR DELETE OR UPDATE ON community_deletion.manifest_keys FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_manifest_keys__guard();


--
-- Name: checkpoints _100_protect; Type: TRIGGER; Schema: community_deletion; Owner: postgres
--

CREATE TRIGGER _100_protect BEFORE DELETE OR UPDATE ON community_deletion.checkpoints FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_checkpoints__protect();


--
-- Name: requests _100_protect_frozen_fields; Type: TRIGGER; Schema: community_deletion; Owner: postgres
--

CREATE TRIGGER _100_protect_frozen_fields BEFORE UPDATE ON community_deletion.requests FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_requests__protect_frozen_fields();


--
-- Name: manifest_keys _101_forbid_truncate; Type: TRIGGER; Schema: community_deletion; Owner: postgres
--

CREATE TRIGGER _101_forbid_truncate BEFORE TRUNCATE ON community_deletion.manifest_keys FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_manifest_keys__forbid_truncate();


--
-- Name: approvals _110_refuse_change; Type: TRIGGER; Schema: community_deletion; Owner: postgres
--

CREATE TRIGGER _110_refuse_change BEFORE DELETE OR UPDATE ON community_deletion.approvals FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_approvals__refuse_change();


--
-- Name: requests _110_refuse_delete; Type: TRIGGER; Schema: community_deletion; Owner: postgres
--

CREATE TRIGGER _110_refuse_delete BEFORE DELETE ON community_deletion.requests FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_requests__refuse_delete();


--
-- Name: approvals _120_refuse_truncate; Type: TRIGGER; Schema: community_deletion; Owner: postgres
--

CREATE TRIGGER _120_refuse_truncate BEFORE TRUNCATE ON community_deletion.approvals FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_control_plane__refuse_truncate();


--
-- Name: checkpoints _120_refuse_truncate; Type: TRIGGER; Schema: community_deletion; Owner: postgres
--

CREATE TRIGGER _120_refuse_truncate BEFORE TRUNCATE ON community_deletion.checkpoints FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_control_plane__refuse_truncate();


--
-- Name: requests _120_refuse_truncate; Type: TRIGGER; Schema: community_deletion; Owner: postgres
--

CREATE TRIGGER _120_refuse_truncate BEFORE TRUNCATE ON community_deletion.requests FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_control_plane__refuse_truncate();


--
-- Name: requests _500_freeze_destructive_manifest; Type: TRIGGER; Schema: community_deletion; Owner: postgres
--

CREATE TRIGGER _500_freeze_destructive_manifest BEFORE UPDATE ON community_deletion.requests FOR EACH ROW WHEN (((old.destructive_storage_manifest IS DISTINCT FROM new.destructive_storage_manifest) OR (old.destructive_storage_frozen_at IS DISTINCT FROM new.destructive_storage_frozen_at))) EXECUTE FUNCTION community_deletion.tg_requests__freeze_destructive_manifest();


--
-- Name: requests _900_stage_moves_forward; Type: TRIGGER; Schema: community_deletion; Owner: postgres
--

CREATE TRIGGER _900_stage_moves_forward AFTER UPDATE OF stage ON community_deletion.requests FOR EACH ROW WHEN ((old.stage IS DISTINCT FROM new.stage)) EXECUTE FUNCTION community_deletion.tg_requests__stage_moves_forward();


--
-- Name: api_tokens _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.api_tokens REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: archived_identities _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.archived_identities REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: audit_log _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.audit_log REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: channel_members _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.channel_members REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: channels _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.channels REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: community_bans _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.community_bans REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: delivery_log _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.delivery_log REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: event_mentions _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.event_mentions REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: events _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.events REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: git_repo_names _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.git_repo_names REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: join_policy_acceptances _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.join_policy_acceptances REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: moderation_actions _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.moderation_actions REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: moderation_reports _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.moderation_reports REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: parameterized_event_watermarks _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.parameterized_event_watermarks REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: pubkey_allowlist _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.pubkey_allowlist REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: push_leases _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.push_leases REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: push_match_queue _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.push_match_queue REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: push_wake_outbox _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.push_wake_outbox REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: reactions _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.reactions REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: relay_invites _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.relay_invites REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: relay_members _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.relay_members REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: scheduled_workflow_fires _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.scheduled_workflow_fires REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: subscriptions _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.subscriptions REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: thread_metadata _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.thread_metadata REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: users _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.users REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: workflow_approvals _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.workflow_approvals REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: workflow_runs _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.workflow_runs REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: workflows _010_community_write_fence; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence AFTER INSERT ON public.workflows REFERENCING NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: api_tokens _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.api_tokens REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: archived_identities _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.archived_identities REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: audit_log _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.audit_log REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: channel_members _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.channel_members REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: channels _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.channels REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: community_bans _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.community_bans REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: delivery_log _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.delivery_log REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: event_mentions _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.event_mentions REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: events _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.events REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: git_repo_names _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.git_repo_names REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: join_policy_acceptances _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.join_policy_acceptances REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: moderation_actions _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.moderation_actions REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: moderation_reports _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.moderation_reports REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: parameterized_event_watermarks _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.parameterized_event_watermarks REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: pubkey_allowlist _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.pubkey_allowlist REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: push_leases _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.push_leases REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: push_match_queue _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.push_match_queue REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: push_wake_outbox _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.push_wake_outbox REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: reactions _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.reactions REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: relay_invites _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.relay_invites REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: relay_members _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.relay_members REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: scheduled_workflow_fires _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.scheduled_workflow_fires REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: subscriptions _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.subscriptions REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: thread_metadata _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.thread_metadata REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: users _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.users REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: workflow_approvals _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.workflow_approvals REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: workflow_runs _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.workflow_runs REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: workflows _010_community_write_fence_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_delete AFTER DELETE ON public.workflows REFERENCING OLD TABLE AS fence_old_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: api_tokens _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.api_tokens FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: archived_identities _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.archived_identities FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: audit_log _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.audit_log FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: channel_members _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.channel_members FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: channels _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.channels FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: community_bans _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.community_bans FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: delivery_log _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.delivery_log FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: event_mentions _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.event_mentions FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: events _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.events FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: git_repo_names _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.git_repo_names FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: join_policy_acceptances _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.join_policy_acceptances FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: moderation_actions _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.moderation_actions FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: moderation_reports _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.moderation_reports FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: parameterized_event_watermarks _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.parameterized_event_watermarks FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: pubkey_allowlist _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.pubkey_allowlist FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: push_leases _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.push_leases FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: push_match_queue _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.push_match_queue FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: push_wake_outbox _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.push_wake_outbox FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: reactions _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.reactions FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: relay_invites _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.relay_invites FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: relay_members _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.relay_members FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: scheduled_workflow_fires _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.scheduled_workflow_fires FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: subscriptions _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.subscriptions FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: thread_metadata _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.thread_metadata FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: users _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.users FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: workflow_approvals _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.workflow_approvals FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: workflow_runs _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.workflow_runs FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: workflows _010_community_write_fence_early; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early BEFORE INSERT OR UPDATE ON public.workflows FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: api_tokens _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.api_tokens FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: archived_identities _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.archived_identities FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: audit_log _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.audit_log FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: channel_members _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.channel_members FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: channels _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.channels FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: community_bans _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.community_bans FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: delivery_log _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.delivery_log FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: event_mentions _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.event_mentions FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: events _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.events FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: git_repo_names _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.git_repo_names FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: join_policy_acceptances _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.join_policy_acceptances FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: moderation_actions _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.moderation_actions FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: moderation_reports _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.moderation_reports FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: parameterized_event_watermarks _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.parameterized_event_watermarks FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: pubkey_allowlist _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.pubkey_allowlist FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: push_leases _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.push_leases FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: push_match_queue _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.push_match_queue FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: push_wake_outbox _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.push_wake_outbox FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: reactions _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.reactions FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: relay_invites _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.relay_invites FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: relay_members _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.relay_members FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: scheduled_workflow_fires _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.scheduled_workflow_fires FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: subscriptions _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.subscriptions FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: thread_metadata _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.thread_metadata FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: users _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.users FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: workflow_approvals _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.workflow_approvals FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: workflow_runs _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.workflow_runs FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: workflows _010_community_write_fence_early_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_early_delete BEFORE DELETE ON public.workflows FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_write_early();


--
-- Name: api_tokens _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.api_tokens FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: archived_identities _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.archived_identities FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: audit_log _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.audit_log FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: channel_members _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.channel_members FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: channels _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.channels FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: community_bans _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.community_bans FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: delivery_log _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.delivery_log FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: event_mentions _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.event_mentions FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: events _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.events FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: git_repo_names _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.git_repo_names FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: join_policy_acceptances _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.join_policy_acceptances FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: moderation_actions _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.moderation_actions FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: moderation_reports _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.moderation_reports FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: parameterized_event_watermarks _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.parameterized_event_watermarks FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: pubkey_allowlist _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.pubkey_allowlist FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: push_leases _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.push_leases FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: push_match_queue _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.push_match_queue FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: push_wake_outbox _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.push_wake_outbox FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: reactions _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.reactions FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: relay_invites _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.relay_invites FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: relay_members _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.relay_members FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: scheduled_workflow_fires _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.scheduled_workflow_fires FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: subscriptions _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.subscriptions FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: thread_metadata _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.thread_metadata FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: users _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.users FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: workflow_approvals _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.workflow_approvals FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: workflow_runs _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.workflow_runs FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: workflows _010_community_write_fence_truncate; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_truncate BEFORE TRUNCATE ON public.workflows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__refuse_truncate();


--
-- Name: api_tokens _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.api_tokens REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: archived_identities _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.archived_identities REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: audit_log _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.audit_log REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: channel_members _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.channel_members REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: channels _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.channels REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: community_bans _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.community_bans REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: delivery_log _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.delivery_log REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: event_mentions _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.event_mentions REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: events _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.events REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: git_repo_names _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.git_repo_names REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: join_policy_acceptances _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.join_policy_acceptances REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: moderation_actions _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.moderation_actions REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: moderation_reports _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.moderation_reports REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: parameterized_event_watermarks _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.parameterized_event_watermarks REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: pubkey_allowlist _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.pubkey_allowlist REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: push_leases _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.push_leases REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: push_match_queue _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.push_match_queue REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: push_wake_outbox _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.push_wake_outbox REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: reactions _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.reactions REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: relay_invites _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.relay_invites REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: relay_members _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.relay_members REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: scheduled_workflow_fires _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.scheduled_workflow_fires REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: subscriptions _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.subscriptions REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: thread_metadata _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.thread_metadata REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: users _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.users REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: workflow_approvals _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.workflow_approvals REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: workflow_runs _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.workflow_runs REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: workflows _010_community_write_fence_update; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_community_write_fence_update AFTER UPDATE ON public.workflows REFERENCING OLD TABLE AS fence_old_rows NEW TABLE AS fence_new_rows FOR EACH STATEMENT EXECUTE FUNCTION community_deletion.tg_scoped_table__enforce_write_fence();


--
-- Name: communities _010_protect_lifecycle; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _010_protect_lifecycle BEFORE INSERT OR DELETE OR UPDATE ON public.communities FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_communities__protect_lifecycle();


--
-- Name: product_feedback _020_provenance_guard; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _020_provenance_guard BEFORE INSERT OR UPDATE ON public.product_feedback FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_provenance_table__refuse_inactive_community('community_id');


--
-- Name: rate_limit_violations _020_provenance_guard; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _020_provenance_guard BEFORE INSERT OR UPDATE ON public.rate_limit_violations FOR EACH ROW EXECUTE FUNCTION community_deletion.tg_provenance_table__refuse_inactive_community('community_id');


--
-- Name: events _200_guard_read_state_delete; Type: TRIGGER; Schema: public; Owner: postgres
--

CREATE TRIGGER _200_guard_read_state_delete BEFORE DELETE ON public.events FOR EACH ROW WHEN (((old.kind = 30078) AND (old.d_tag ~~ 'read-state:%'::text))) EXECUTE FUNCTION community_deletion.tg_events__guard_read_state_delete();


--
-- Name: approvals approvals_request_binding_fkey; Type: FK CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.approvals
    ADD CONSTRAINT approvals_request_binding_fkey FOREIGN KEY (request_id, community_id, inventory_digest) REFERENCES community_deletion.requests(id, community_id, inventory_digest);


--
-- Name: checkpoints checkpoints_request_fkey; Type: FK CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.checkpoints
    ADD CONSTRAINT checkpoints_request_fkey FOREIGN KEY (request_id) REFERENCES community_deletion.requests(id);


--
-- Name: executor_heartbeats executor_heartbeats_request_fkey; Type: FK CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.executor_heartbeats
    ADD CONSTRAINT executor_heartbeats_request_fkey FOREIGN KEY (request_id) REFERENCES community_deletion.requests(id);


--
-- Name: manifest_keys manifest_keys_request_fkey; Type: FK CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.manifest_keys
    ADD CONSTRAINT manifest_keys_request_fkey FOREIGN KEY (request_id) REFERENCES community_deletion.requests(id);


--
-- Name: requests requests_community_fkey; Type: FK CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.requests
    ADD CONSTRAINT requests_community_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


--
-- Name: serving_write_leases serving_write_leases_community_fkey; Type: FK CONSTRAINT; Schema: community_deletion; Owner: postgres
--

ALTER TABLE ONLY community_deletion.serving_write_leases
    ADD CONSTRAINT serving_write_leases_community_fkey FOREIGN KEY (community_id) REFERENCES public.communities(id);


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
-- Name: SCHEMA community_deletion; Type: ACL; Schema: -; Owner: postgres
--

GRANT USAGE ON SCHEMA community_deletion TO PUBLIC;


--
-- Name: SCHEMA public; Type: ACL; Schema: -; Owner: pg_database_owner
--

GRANT USAGE ON SCHEMA public TO community_deletion_owner;
GRANT USAGE ON SCHEMA public TO community_deletion_app;


--
-- Name: FUNCTION _advance(p_request_id uuid, p_owner text, p_generation bigint, p_from text, p_to text, p_fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._advance(p_request_id uuid, p_owner text, p_generation bigint, p_from text, p_to text, p_fence_generation bigint) FROM PUBLIC;


--
-- Name: FUNCTION _advisory_lock_holders(p_key bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._advisory_lock_holders(p_key bigint) FROM PUBLIC;


--
-- Name: FUNCTION _apply_lock_timeout(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._apply_lock_timeout() FROM PUBLIC;


--
-- Name: FUNCTION _attach_early_fence(p_table regclass); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._attach_early_fence(p_table regclass) FROM PUBLIC;


--
-- Name: FUNCTION _bound_text(p text, p_max integer); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._bound_text(p text, p_max integer) FROM PUBLIC;


--
-- Name: FUNCTION _canonical_storage_summary(p_community uuid, p_summary jsonb, p_what text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._canonical_storage_summary(p_community uuid, p_summary jsonb, p_what text) FROM PUBLIC;


--
-- Name: TABLE manifest_keys; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community_deletion.manifest_keys TO community_deletion_owner;
GRANT SELECT ON TABLE community_deletion.manifest_keys TO community_deletion_operator;


--
-- Name: FUNCTION _check_key_chunk(p_chunk community_deletion.manifest_keys, p_community uuid); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._check_key_chunk(p_chunk community_deletion.manifest_keys, p_community uuid) FROM PUBLIC;


--
-- Name: FUNCTION _check_prefix_digest(p_request_id uuid, p_community uuid, p_summary jsonb, p_count bigint, p_chain text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._check_prefix_digest(p_request_id uuid, p_community uuid, p_summary jsonb, p_count bigint, p_chain text) FROM PUBLIC;


--
-- Name: FUNCTION _checkpoint(p_request_id uuid, p_stage text, p_unit_key text, p_status text, p_lease_generation bigint, p_detail jsonb, p_error text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._checkpoint(p_request_id uuid, p_stage text, p_unit_key text, p_status text, p_lease_generation bigint, p_detail jsonb, p_error text) FROM PUBLIC;


--
-- Name: FUNCTION _community_columns(p_table regclass); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._community_columns(p_table regclass) FROM PUBLIC;


--
-- Name: FUNCTION _fence_trigger_problems(p_table regclass); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._fence_trigger_problems(p_table regclass) FROM PUBLIC;


--
-- Name: FUNCTION _has_leading_index(p_table regclass, p_column text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._has_leading_index(p_table regclass, p_column text) FROM PUBLIC;


--
-- Name: FUNCTION _identity_key(p_identity text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._identity_key(p_identity text) FROM PUBLIC;


--
-- Name: FUNCTION _inheritance_role(p_table regclass); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._inheritance_role(p_table regclass) FROM PUBLIC;


--
-- Name: FUNCTION _inventory_digest(p_inventory jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._inventory_digest(p_inventory jsonb) FROM PUBLIC;


--
-- Name: FUNCTION _key_chunk_facts(p_entries jsonb, p_prefix text, p_key_pattern text, OUT entry_count integer, OUT bad_shape_at integer, OUT outside_prefix_at integer, OUT outside_taxonomy_at integer, OUT out_of_order_at integer, OUT first_entry jsonb, OUT last_entry jsonb, OUT chunk_text text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._key_chunk_facts(p_entries jsonb, p_prefix text, p_key_pattern text, OUT entry_count integer, OUT bad_shape_at integer, OUT outside_prefix_at integer, OUT outside_taxonomy_at integer, OUT out_of_order_at integer, OUT first_entry jsonb, OUT last_entry jsonb, OUT chunk_text text) FROM PUBLIC;


--
-- Name: FUNCTION _live_community_tables(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._live_community_tables() FROM PUBLIC;


--
-- Name: FUNCTION _live_fenced_tables(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._live_fenced_tables() FROM PUBLIC;


--
-- Name: FUNCTION _lock_community(p_community uuid, p_exclusive boolean); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._lock_community(p_community uuid, p_exclusive boolean) FROM PUBLIC;


--
-- Name: FUNCTION _lock_community_for_transition(p_community uuid); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._lock_community_for_transition(p_community uuid) FROM PUBLIC;


--
-- Name: FUNCTION _lock_schema_destruction_shared(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._lock_schema_destruction_shared() FROM PUBLIC;


--
-- Name: FUNCTION _lock_scoped_tables_shared(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._lock_scoped_tables_shared() FROM PUBLIC;


--
-- Name: FUNCTION _manifest_entry_follows(p_prev jsonb, p_next jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._manifest_entry_follows(p_prev jsonb, p_next jsonb) FROM PUBLIC;


--
-- Name: FUNCTION _manifest_entry_is_valid(p_entry jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._manifest_entry_is_valid(p_entry jsonb) FROM PUBLIC;


--
-- Name: FUNCTION _manifest_entry_line(p_entry jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._manifest_entry_line(p_entry jsonb) FROM PUBLIC;


--
-- Name: FUNCTION _native_community_lock_key(uuid); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._native_community_lock_key(uuid) FROM PUBLIC;


--
-- Name: FUNCTION _owned_key_pattern(p_community uuid, p_prefix text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._owned_key_pattern(p_community uuid, p_prefix text) FROM PUBLIC;


--
-- Name: FUNCTION _owned_prefixes(p_community uuid); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._owned_prefixes(p_community uuid) FROM PUBLIC;


--
-- Name: FUNCTION _prove_postgres_absence(p_request_id uuid, p_community uuid, p_fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._prove_postgres_absence(p_request_id uuid, p_community uuid, p_fence_generation bigint) FROM PUBLIC;


--
-- Name: FUNCTION _provenance_guard_problems(p_table regclass, p_column text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._provenance_guard_problems(p_table regclass, p_column text) FROM PUBLIC;


--
-- Name: FUNCTION _reattach_early_fences(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._reattach_early_fences() FROM PUBLIC;


--
-- Name: FUNCTION _refuse_write_early_plpgsql(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._refuse_write_early_plpgsql() FROM PUBLIC;


--
-- Name: FUNCTION _registered_relation(p_schema text, p_table text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._registered_relation(p_schema text, p_table text) FROM PUBLIC;


--
-- Name: TABLE approvals; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community_deletion.approvals TO community_deletion_owner;
GRANT SELECT ON TABLE community_deletion.approvals TO community_deletion_operator;


--
-- Name: TABLE requests; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community_deletion.requests TO community_deletion_owner;
GRANT SELECT ON TABLE community_deletion.requests TO community_deletion_operator;


--
-- Name: FUNCTION _request_state(p_request community_deletion.requests, p_approval community_deletion.approvals, OUT state text, OUT explanation text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._request_state(p_request community_deletion.requests, p_approval community_deletion.approvals, OUT state text, OUT explanation text) FROM PUBLIC;


--
-- Name: FUNCTION _require_detail_object(p_request_id uuid, p_detail jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._require_detail_object(p_request_id uuid, p_detail jsonb) FROM PUBLIC;


--
-- Name: FUNCTION _require_identity(p_value text, p_name text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._require_identity(p_value text, p_name text) FROM PUBLIC;


--
-- Name: FUNCTION _require_text(p_value text, p_name text, p_max integer); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._require_text(p_value text, p_name text, p_max integer) FROM PUBLIC;


--
-- Name: FUNCTION _restore_community(p_community uuid, p_archived_at timestamp with time zone, p_restore_archived boolean); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._restore_community(p_community uuid, p_archived_at timestamp with time zone, p_restore_archived boolean) FROM PUBLIC;


--
-- Name: FUNCTION _same_operator(p_a text, p_b text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._same_operator(p_a text, p_b text) FROM PUBLIC;


--
-- Name: FUNCTION _schema_manifest(p_community uuid); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._schema_manifest(p_community uuid) FROM PUBLIC;


--
-- Name: FUNCTION _serving_lease_check(p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._serving_lease_check(p_lease_id uuid, p_owner text, p_generation bigint, p_fence_generation bigint) FROM PUBLIC;


--
-- Name: FUNCTION _table_label(p_schema text, p_table text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._table_label(p_schema text, p_table text) FROM PUBLIC;


--
-- Name: FUNCTION _tombstone_community(p_community uuid, p_fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._tombstone_community(p_community uuid, p_fence_generation bigint) FROM PUBLIC;


--
-- Name: FUNCTION _verify_lease(p_request_id uuid, p_owner text, p_generation bigint, p_stage text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._verify_lease(p_request_id uuid, p_owner text, p_generation bigint, p_stage text) FROM PUBLIC;


--
-- Name: FUNCTION _verify_lease_and_fence(p_request_id uuid, p_owner text, p_generation bigint, p_stage text, p_fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._verify_lease_and_fence(p_request_id uuid, p_owner text, p_generation bigint, p_stage text, p_fence_generation bigint) FROM PUBLIC;


--
-- Name: FUNCTION _write_fence_plpgsql(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion._write_fence_plpgsql() FROM PUBLIC;


--
-- Name: FUNCTION abort(request_id uuid, aborted_by text, reason text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.abort(request_id uuid, aborted_by text, reason text) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.abort(request_id uuid, aborted_by text, reason text) TO community_deletion_operator;


--
-- Name: TABLE serving_write_leases; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community_deletion.serving_write_leases TO community_deletion_owner;
GRANT SELECT ON TABLE community_deletion.serving_write_leases TO community_deletion_operator;


--
-- Name: FUNCTION acquire_serving_lease(community_id uuid, operation text, owner text, lease_seconds integer); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.acquire_serving_lease(community_id uuid, operation text, owner text, lease_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.acquire_serving_lease(community_id uuid, operation text, owner text, lease_seconds integer) TO community_deletion_app;


--
-- Name: FUNCTION append_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, prefix text, entries jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.append_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, prefix text, entries jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.append_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, prefix text, entries jsonb) TO community_deletion_executor;


--
-- Name: FUNCTION approve(request_id uuid, approved_by text, note text, not_before timestamp with time zone, delay interval); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.approve(request_id uuid, approved_by text, note text, not_before timestamp with time zone, delay interval) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.approve(request_id uuid, approved_by text, note text, not_before timestamp with time zone, delay interval) TO community_deletion_operator;


--
-- Name: FUNCTION begin_quiescing(request_id uuid, executor_id text, lease_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.begin_quiescing(request_id uuid, executor_id text, lease_generation bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.begin_quiescing(request_id uuid, executor_id text, lease_generation bigint) TO community_deletion_executor;


--
-- Name: FUNCTION block(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.block(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.block(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text) TO community_deletion_executor;


--
-- Name: FUNCTION block_preclaim(request_id uuid, unit_key text, error text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.block_preclaim(request_id uuid, unit_key text, error text) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.block_preclaim(request_id uuid, unit_key text, error text) TO community_deletion_executor;


--
-- Name: FUNCTION claim(executor_id text, request_id uuid, lease_seconds integer); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.claim(executor_id text, request_id uuid, lease_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.claim(executor_id text, request_id uuid, lease_seconds integer) TO community_deletion_executor;


--
-- Name: FUNCTION clear_key_chunks(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.clear_key_chunks(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.clear_key_chunks(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) TO community_deletion_executor;


--
-- Name: FUNCTION executor_stopped(executor_id text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.executor_stopped(executor_id text) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.executor_stopped(executor_id text) TO community_deletion_executor;


--
-- Name: FUNCTION fence(request_id uuid, executor_id text, lease_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.fence(request_id uuid, executor_id text, lease_generation bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.fence(request_id uuid, executor_id text, lease_generation bigint) TO community_deletion_executor;


--
-- Name: FUNCTION freeze_destructive_manifest(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, manifest jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.freeze_destructive_manifest(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, manifest jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.freeze_destructive_manifest(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, manifest jsonb) TO community_deletion_executor;


--
-- Name: FUNCTION freeze_inventory(request_id uuid, storage_summary jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.freeze_inventory(request_id uuid, storage_summary jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.freeze_inventory(request_id uuid, storage_summary jsonb) TO community_deletion_operator;


--
-- Name: FUNCTION guard_serving_write(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.guard_serving_write(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.guard_serving_write(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) TO community_deletion_app;


--
-- Name: FUNCTION heartbeat(request_id uuid, executor_id text, lease_generation bigint, mode text, lease_seconds integer, draining boolean); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.heartbeat(request_id uuid, executor_id text, lease_generation bigint, mode text, lease_seconds integer, draining boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.heartbeat(request_id uuid, executor_id text, lease_generation bigint, mode text, lease_seconds integer, draining boolean) TO community_deletion_executor;


--
-- Name: FUNCTION inspect(request_id uuid); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.inspect(request_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.inspect(request_id uuid) TO community_deletion_executor;
GRANT ALL ON FUNCTION community_deletion.inspect(request_id uuid) TO community_deletion_operator;


--
-- Name: FUNCTION install_write_fence(native boolean, library text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.install_write_fence(native boolean, library text) FROM PUBLIC;


--
-- Name: FUNCTION key_chunk_progress(request_id uuid); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.key_chunk_progress(request_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.key_chunk_progress(request_id uuid) TO community_deletion_executor;
GRANT ALL ON FUNCTION community_deletion.key_chunk_progress(request_id uuid) TO community_deletion_operator;


--
-- Name: FUNCTION lease_state(request_id uuid, executor_id text, lease_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.lease_state(request_id uuid, executor_id text, lease_generation bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.lease_state(request_id uuid, executor_id text, lease_generation bigint) TO community_deletion_executor;


--
-- Name: FUNCTION list_requests(max_rows integer); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.list_requests(max_rows integer) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.list_requests(max_rows integer) TO community_deletion_operator;


--
-- Name: FUNCTION mark_bindings_removed(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.mark_bindings_removed(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.mark_bindings_removed(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) TO community_deletion_executor;


--
-- Name: FUNCTION mark_cache_purged(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.mark_cache_purged(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.mark_cache_purged(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) TO community_deletion_executor;


--
-- Name: FUNCTION mark_drained(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.mark_drained(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.mark_drained(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) TO community_deletion_executor;


--
-- Name: FUNCTION mark_logically_verified(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.mark_logically_verified(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.mark_logically_verified(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) TO community_deletion_executor;


--
-- Name: FUNCTION mark_retention_pending(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.mark_retention_pending(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.mark_retention_pending(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, detail jsonb) TO community_deletion_executor;


--
-- Name: FUNCTION next_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.next_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.next_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) TO community_deletion_executor;


--
-- Name: FUNCTION purge_postgres(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.purge_postgres(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.purge_postgres(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) TO community_deletion_executor;


--
-- Name: FUNCTION reap_serving_leases(max_rows integer); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.reap_serving_leases(max_rows integer) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.reap_serving_leases(max_rows integer) TO community_deletion_executor;
GRANT ALL ON FUNCTION community_deletion.reap_serving_leases(max_rows integer) TO community_deletion_operator;


--
-- Name: FUNCTION record_failure(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.record_failure(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.record_failure(request_id uuid, executor_id text, lease_generation bigint, stage text, unit_key text, error text) TO community_deletion_executor;


--
-- Name: TABLE taxonomy_sweeps; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community_deletion.taxonomy_sweeps TO community_deletion_owner;
GRANT SELECT ON TABLE community_deletion.taxonomy_sweeps TO community_deletion_operator;


--
-- Name: FUNCTION record_taxonomy_sweep(started_at timestamp with time zone, listed_objects bigint, unknown_object_count bigint, unknown_key_sample jsonb, object_cap bigint, truncated boolean); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.record_taxonomy_sweep(started_at timestamp with time zone, listed_objects bigint, unknown_object_count bigint, unknown_key_sample jsonb, object_cap bigint, truncated boolean) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.record_taxonomy_sweep(started_at timestamp with time zone, listed_objects bigint, unknown_object_count bigint, unknown_key_sample jsonb, object_cap bigint, truncated boolean) TO community_deletion_operator;


--
-- Name: FUNCTION register_scoped_table(table_name regclass, purge_order integer); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.register_scoped_table(table_name regclass, purge_order integer) FROM PUBLIC;


--
-- Name: FUNCTION register_unscoped_table(table_name regclass, kind text, note text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.register_unscoped_table(table_name regclass, kind text, note text) FROM PUBLIC;


--
-- Name: FUNCTION release(request_id uuid, executor_id text, lease_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.release(request_id uuid, executor_id text, lease_generation bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.release(request_id uuid, executor_id text, lease_generation bigint) TO community_deletion_executor;


--
-- Name: FUNCTION release_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.release_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.release_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) TO community_deletion_app;


--
-- Name: FUNCTION renew_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint, lease_seconds integer); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.renew_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint, lease_seconds integer) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.renew_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint, lease_seconds integer) TO community_deletion_app;


--
-- Name: FUNCTION request_checkpoints(request_id uuid); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.request_checkpoints(request_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.request_checkpoints(request_id uuid) TO community_deletion_operator;


--
-- Name: FUNCTION request_status(request_id uuid); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.request_status(request_id uuid) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.request_status(request_id uuid) TO community_deletion_operator;


--
-- Name: FUNCTION serving_lease_stats(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.serving_lease_stats() FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.serving_lease_stats() TO community_deletion_executor;
GRANT ALL ON FUNCTION community_deletion.serving_lease_stats() TO community_deletion_operator;


--
-- Name: FUNCTION stamp_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, detail jsonb); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.stamp_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, detail jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.stamp_key_chunk(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint, chunk_no integer, detail jsonb) TO community_deletion_executor;


--
-- Name: TABLE storage_taxonomy; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community_deletion.storage_taxonomy TO community_deletion_owner;
GRANT SELECT ON TABLE community_deletion.storage_taxonomy TO community_deletion_operator;


--
-- Name: FUNCTION storage_taxonomy_rules(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.storage_taxonomy_rules() FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.storage_taxonomy_rules() TO community_deletion_executor;
GRANT ALL ON FUNCTION community_deletion.storage_taxonomy_rules() TO community_deletion_operator;


--
-- Name: FUNCTION submit(host text, requested_by text, reason text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.submit(host text, requested_by text, reason text) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.submit(host text, requested_by text, reason text) TO community_deletion_operator;


--
-- Name: FUNCTION tg_approvals__check_approval(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_approvals__check_approval() FROM PUBLIC;


--
-- Name: FUNCTION tg_approvals__refuse_change(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_approvals__refuse_change() FROM PUBLIC;


--
-- Name: FUNCTION tg_checkpoints__protect(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_checkpoints__protect() FROM PUBLIC;


--
-- Name: FUNCTION tg_communities__protect_lifecycle(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_communities__protect_lifecycle() FROM PUBLIC;


--
-- Name: FUNCTION tg_control_plane__refuse_truncate(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_control_plane__refuse_truncate() FROM PUBLIC;


--
-- Name: FUNCTION tg_ddl__guard_registered_tables(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_ddl__guard_registered_tables() FROM PUBLIC;


--
-- Name: FUNCTION tg_ddl__lock_schema_destruction(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_ddl__lock_schema_destruction() FROM PUBLIC;


--
-- Name: FUNCTION tg_ddl__lock_schema_destruction_created(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_ddl__lock_schema_destruction_created() FROM PUBLIC;


--
-- Name: FUNCTION tg_ddl__lock_schema_destruction_dropped(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_ddl__lock_schema_destruction_dropped() FROM PUBLIC;


--
-- Name: FUNCTION tg_events__guard_read_state_delete(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_events__guard_read_state_delete() FROM PUBLIC;


--
-- Name: FUNCTION tg_manifest_keys__forbid_truncate(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_manifest_keys__forbid_truncate() FROM PUBLIC;


--
-- Name: FUNCTION tg_manifest_keys__guard(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_manifest_keys__guard() FROM PUBLIC;


--
-- Name: FUNCTION tg_provenance_table__refuse_inactive_community(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_provenance_table__refuse_inactive_community() FROM PUBLIC;


--
-- Name: FUNCTION tg_requests__freeze_destructive_manifest(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_requests__freeze_destructive_manifest() FROM PUBLIC;


--
-- Name: FUNCTION tg_requests__protect_frozen_fields(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_requests__protect_frozen_fields() FROM PUBLIC;


--
-- Name: FUNCTION tg_requests__refuse_delete(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_requests__refuse_delete() FROM PUBLIC;


--
-- Name: FUNCTION tg_requests__stage_moves_forward(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_requests__stage_moves_forward() FROM PUBLIC;


--
-- Name: FUNCTION tg_scoped_table__enforce_write_fence(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_scoped_table__enforce_write_fence() FROM PUBLIC;


--
-- Name: FUNCTION tg_scoped_table__refuse_truncate(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_scoped_table__refuse_truncate() FROM PUBLIC;


--
-- Name: FUNCTION tg_scoped_table__refuse_write_early(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.tg_scoped_table__refuse_write_early() FROM PUBLIC;


--
-- Name: FUNCTION unblock(request_id uuid, unblocked_by text, reason text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.unblock(request_id uuid, unblocked_by text, reason text) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.unblock(request_id uuid, unblocked_by text, reason text) TO community_deletion_operator;


--
-- Name: FUNCTION validate_catalog(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.validate_catalog() FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.validate_catalog() TO community_deletion_executor;
GRANT ALL ON FUNCTION community_deletion.validate_catalog() TO community_deletion_operator;


--
-- Name: FUNCTION validate_serving_catalog(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.validate_serving_catalog() FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.validate_serving_catalog() TO community_deletion_app;
GRANT ALL ON FUNCTION community_deletion.validate_serving_catalog() TO community_deletion_operator;


--
-- Name: FUNCTION verify_postgres_absence(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.verify_postgres_absence(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.verify_postgres_absence(request_id uuid, executor_id text, lease_generation bigint, fence_generation bigint) TO community_deletion_executor;


--
-- Name: FUNCTION verify_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.verify_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.verify_serving_lease(lease_id uuid, owner text, lease_generation bigint, fence_generation bigint) TO community_deletion_app;


--
-- Name: FUNCTION verify_token(request_id uuid, executor_id text, lease_generation bigint, stage text); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.verify_token(request_id uuid, executor_id text, lease_generation bigint, stage text) FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.verify_token(request_id uuid, executor_id text, lease_generation bigint, stage text) TO community_deletion_executor;


--
-- Name: FUNCTION write_fence_implementation(); Type: ACL; Schema: community_deletion; Owner: community_deletion_owner
--

REVOKE ALL ON FUNCTION community_deletion.write_fence_implementation() FROM PUBLIC;
GRANT ALL ON FUNCTION community_deletion.write_fence_implementation() TO community_deletion_app;
GRANT ALL ON FUNCTION community_deletion.write_fence_implementation() TO community_deletion_executor;
GRANT ALL ON FUNCTION community_deletion.write_fence_implementation() TO community_deletion_operator;


--
-- Name: TABLE checkpoints; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community_deletion.checkpoints TO community_deletion_owner;
GRANT SELECT ON TABLE community_deletion.checkpoints TO community_deletion_operator;


--
-- Name: SEQUENCE checkpoints_sequence_seq; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,USAGE ON SEQUENCE community_deletion.checkpoints_sequence_seq TO community_deletion_owner;


--
-- Name: TABLE executor_heartbeats; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community_deletion.executor_heartbeats TO community_deletion_owner;
GRANT SELECT ON TABLE community_deletion.executor_heartbeats TO community_deletion_operator;


--
-- Name: TABLE registered_tables; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community_deletion.registered_tables TO community_deletion_owner;
GRANT SELECT ON TABLE community_deletion.registered_tables TO community_deletion_operator;


--
-- Name: TABLE serving_write_grants; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community_deletion.serving_write_grants TO community_deletion_owner;
GRANT SELECT ON TABLE community_deletion.serving_write_grants TO community_deletion_operator;


--
-- Name: TABLE settings; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community_deletion.settings TO community_deletion_owner;
GRANT SELECT ON TABLE community_deletion.settings TO community_deletion_operator;


--
-- Name: TABLE stages; Type: ACL; Schema: community_deletion; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE community_deletion.stages TO community_deletion_owner;
GRANT SELECT ON TABLE community_deletion.stages TO community_deletion_operator;


--
-- Name: TABLE api_tokens; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.api_tokens TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.api_tokens TO community_deletion_owner;


--
-- Name: TABLE archived_identities; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.archived_identities TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.archived_identities TO community_deletion_owner;


--
-- Name: TABLE audit_log; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.audit_log TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.audit_log TO community_deletion_owner;


--
-- Name: TABLE channel_members; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.channel_members TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.channel_members TO community_deletion_owner;


--
-- Name: TABLE channels; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.channels TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.channels TO community_deletion_owner;


--
-- Name: TABLE communities; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.communities TO community_deletion_owner;
GRANT SELECT ON TABLE public.communities TO community_deletion_app;
GRANT SELECT ON TABLE public.communities TO community_deletion_operator;


--
-- Name: COLUMN communities.id; Type: ACL; Schema: public; Owner: postgres
--

GRANT INSERT(id) ON TABLE public.communities TO community_deletion_app;


--
-- Name: COLUMN communities.host; Type: ACL; Schema: public; Owner: postgres
--

GRANT INSERT(host),UPDATE(host) ON TABLE public.communities TO community_deletion_app;


--
-- Name: COLUMN communities.name; Type: ACL; Schema: public; Owner: postgres
--

GRANT INSERT(name),UPDATE(name) ON TABLE public.communities TO community_deletion_app;


--
-- Name: COLUMN communities.signing_key; Type: ACL; Schema: public; Owner: postgres
--

GRANT INSERT(signing_key),UPDATE(signing_key) ON TABLE public.communities TO community_deletion_app;


--
-- Name: COLUMN communities.icon; Type: ACL; Schema: public; Owner: postgres
--

GRANT INSERT(icon),UPDATE(icon) ON TABLE public.communities TO community_deletion_app;


--
-- Name: COLUMN communities.settings; Type: ACL; Schema: public; Owner: postgres
--

GRANT INSERT(settings),UPDATE(settings) ON TABLE public.communities TO community_deletion_app;


--
-- Name: COLUMN communities.created_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT INSERT(created_at) ON TABLE public.communities TO community_deletion_app;


--
-- Name: COLUMN communities.archived_at; Type: ACL; Schema: public; Owner: postgres
--

GRANT INSERT(archived_at),UPDATE(archived_at) ON TABLE public.communities TO community_deletion_app;


--
-- Name: TABLE community_bans; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.community_bans TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.community_bans TO community_deletion_owner;


--
-- Name: TABLE delivery_log; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.delivery_log TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.delivery_log TO community_deletion_owner;


--
-- Name: TABLE event_mentions; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.event_mentions TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.event_mentions TO community_deletion_owner;


--
-- Name: TABLE events; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.events TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.events TO community_deletion_owner;


--
-- Name: TABLE git_repo_names; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.git_repo_names TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.git_repo_names TO community_deletion_owner;


--
-- Name: TABLE join_policy_acceptances; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.join_policy_acceptances TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.join_policy_acceptances TO community_deletion_owner;


--
-- Name: TABLE moderation_actions; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.moderation_actions TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.moderation_actions TO community_deletion_owner;


--
-- Name: TABLE moderation_reports; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.moderation_reports TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.moderation_reports TO community_deletion_owner;


--
-- Name: TABLE parameterized_event_watermarks; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.parameterized_event_watermarks TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.parameterized_event_watermarks TO community_deletion_owner;


--
-- Name: TABLE product_feedback; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.product_feedback TO community_deletion_app;
GRANT SELECT,UPDATE ON TABLE public.product_feedback TO community_deletion_owner;


--
-- Name: TABLE pubkey_allowlist; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.pubkey_allowlist TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.pubkey_allowlist TO community_deletion_owner;


--
-- Name: TABLE push_leases; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.push_leases TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.push_leases TO community_deletion_owner;


--
-- Name: TABLE push_match_queue; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.push_match_queue TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.push_match_queue TO community_deletion_owner;


--
-- Name: TABLE push_wake_outbox; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.push_wake_outbox TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.push_wake_outbox TO community_deletion_owner;


--
-- Name: TABLE rate_limit_violations; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.rate_limit_violations TO community_deletion_app;
GRANT SELECT,UPDATE ON TABLE public.rate_limit_violations TO community_deletion_owner;


--
-- Name: TABLE reactions; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.reactions TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.reactions TO community_deletion_owner;


--
-- Name: TABLE relay_invites; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.relay_invites TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.relay_invites TO community_deletion_owner;


--
-- Name: TABLE relay_members; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.relay_members TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.relay_members TO community_deletion_owner;


--
-- Name: TABLE scheduled_workflow_fires; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.scheduled_workflow_fires TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.scheduled_workflow_fires TO community_deletion_owner;


--
-- Name: TABLE subscriptions; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.subscriptions TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.subscriptions TO community_deletion_owner;


--
-- Name: TABLE thread_metadata; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.thread_metadata TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.thread_metadata TO community_deletion_owner;


--
-- Name: TABLE users; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.users TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.users TO community_deletion_owner;


--
-- Name: TABLE workflow_approvals; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.workflow_approvals TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.workflow_approvals TO community_deletion_owner;


--
-- Name: TABLE workflow_runs; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.workflow_runs TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.workflow_runs TO community_deletion_owner;


--
-- Name: TABLE workflows; Type: ACL; Schema: public; Owner: postgres
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.workflows TO community_deletion_app;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.workflows TO community_deletion_owner;


--
-- Name: _100_lock_schema_destruction; Type: EVENT TRIGGER; Schema: -; Owner: postgres
--

CREATE EVENT TRIGGER _100_lock_schema_destruction ON ddl_command_start
   EXECUTE FUNCTION community_deletion.tg_ddl__lock_schema_destruction();


ALTER EVENT TRIGGER _100_lock_schema_destruction OWNER TO postgres;

--
-- Name: _101_lock_schema_destruction_created; Type: EVENT TRIGGER; Schema: -; Owner: postgres
--

CREATE EVENT TRIGGER _101_lock_schema_destruction_created ON ddl_command_end
   EXECUTE FUNCTION community_deletion.tg_ddl__lock_schema_destruction_created();


ALTER EVENT TRIGGER _101_lock_schema_destruction_created OWNER TO postgres;

--
-- Name: _102_lock_schema_destruction_dropped; Type: EVENT TRIGGER; Schema: -; Owner: postgres
--

CREATE EVENT TRIGGER _102_lock_schema_destruction_dropped ON sql_drop
   EXECUTE FUNCTION community_deletion.tg_ddl__lock_schema_destruction_dropped();


ALTER EVENT TRIGGER _102_lock_schema_destruction_dropped OWNER TO postgres;

--
-- Name: _110_guard_registered_tables; Type: EVENT TRIGGER; Schema: -; Owner: postgres
--

CREATE EVENT TRIGGER _110_guard_registered_tables ON ddl_command_end
   EXECUTE FUNCTION community_deletion.tg_ddl__guard_registered_tables();


ALTER EVENT TRIGGER _110_guard_registered_tables OWNER TO postgres;

--
-- PostgreSQL database dump complete
--

\unrestrict communitydeletion

