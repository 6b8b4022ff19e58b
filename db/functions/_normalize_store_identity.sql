-- The canonical identity of the stores a request is deleted from:
-- {"s3_endpoint": "scheme://host[:port][/path]", "s3_bucket": "…",
--  "redis_server": "host:port" (or "unix:/path"), "redis_db": n}.
-- Normalised so the same store is never a mismatch: scheme and host
-- lowercase, the default port dropped (S3: 80 for http, 443 for https) or
-- made explicit (Redis: 6379), trailing slashes, user information, query and
-- fragment removed (credentials are never stored); redis_server may also be a
-- redis:// or rediss:// URL, whose path (/n) gives the database when
-- redis_db is absent; the database defaults to 0. The region and the
-- addressing style are not part of the identity: an endpoint and a bucket
-- name one bucket. Refuses (invalid_argument, DL1I1, naming p_what) a value
-- that is not an object, an unknown key, a missing S3 field, a malformed
-- URL, port or database, or white space / control characters inside a value. The canonical form is a valid input and normalises
-- to itself.
create or replace function community_deletion._normalize_store_identity(p_identity jsonb, p_what text)
  returns jsonb
  language plpgsql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
declare
  -- scheme, user information (dropped), host (or [v6]), port, path, query (dropped)
  c_url constant text := '^([A-Za-z][A-Za-z0-9+.-]*)://(?:[^@/?#]*@)?(\[[^]]*\]|[^:/?#]*)(?::([0-9]*))?([^?#]*)(?:\?[^#]*)?(?:#.*)?$';
  v_key text;
  v_parts text[];
  v_scheme text;
  v_host text;
  v_port text;
  v_path text;
  v_endpoint text;
  v_bucket text;
  v_server text;
  v_db_text text;
  v_db integer;
begin
  if p_identity is null or jsonb_typeof(p_identity) <> 'object' then
    raise exception '%: the store identity must be a json object, got %', p_what, coalesce(jsonb_typeof(p_identity), 'null')
      using errcode = 'DL1I1';
  end if;
  for v_key in select k from jsonb_object_keys(p_identity) k loop
    if v_key not in ('s3_endpoint', 's3_bucket', 'redis_server', 'redis_db') then
      raise exception '%: unknown store identity field %', p_what, v_key
        using errcode = 'DL1I1', hint = 'Fields: s3_endpoint, s3_bucket, redis_server, redis_db.';
    end if;
  end loop;

  -- S3: endpoint URL and bucket.
  v_endpoint := btrim(p_identity ->> 's3_endpoint');
  v_parts := regexp_match(coalesce(v_endpoint, ''), c_url);
  v_scheme := lower(v_parts[1]);
  if v_parts is null or v_scheme not in ('http', 'https') or v_parts[2] = '' then
    raise exception '%: s3_endpoint % is not an http(s) URL', p_what, coalesce(v_endpoint, '(missing)')
      using errcode = 'DL1I1';
  end if;
  v_host := lower(v_parts[2]);
  v_port := nullif(v_parts[3], '');
  if v_port is not null and (length(v_port) > 5 or v_port::integer > 65535) then
    raise exception '%: s3_endpoint % has an invalid port', p_what, v_endpoint using errcode = 'DL1I1';
  end if;
  v_port := nullif(ltrim(v_port, '0'), '');
  if (v_scheme = 'http' and v_port = '80') or (v_scheme = 'https' and v_port = '443') then
    v_port := null;
  end if;
  v_path := rtrim(v_parts[4], '/');
  v_endpoint := v_scheme || '://' || v_host || coalesce(':' || v_port, '') || v_path;
  v_bucket := btrim(p_identity ->> 's3_bucket');
  if v_bucket is null or v_bucket = '' or jsonb_typeof(p_identity -> 's3_bucket') <> 'string' then
    raise exception '%: s3_bucket is missing or blank', p_what using errcode = 'DL1I1';
  end if;

  -- Redis: server and database.
  v_server := btrim(p_identity ->> 'redis_server');
  if v_server is null or v_server = '' then
    raise exception '%: redis_server is missing or blank', p_what using errcode = 'DL1I1';
  end if;
  if v_server like 'unix:%' then
    v_server := 'unix:' || rtrim(substr(v_server, 6), '/');
    if v_server = 'unix:' then
      raise exception '%: redis_server % names no socket path', p_what, p_identity ->> 'redis_server' using errcode = 'DL1I1';
    end if;
  else
    if v_server !~ '://' then
      v_server := 'redis://' || v_server;
    end if;
    v_parts := regexp_match(v_server, c_url);
    if v_parts is null or lower(v_parts[1]) not in ('redis', 'rediss') or v_parts[2] = '' then
      raise exception '%: redis_server % is not host[:port] or a redis:// URL', p_what, p_identity ->> 'redis_server'
        using errcode = 'DL1I1';
    end if;
    v_port := coalesce(nullif(ltrim(v_parts[3], '0'), ''), case when v_parts[3] ~ '^0+$' then '0' end, '6379');
    if length(v_port) > 5 or v_port::integer > 65535 then
      raise exception '%: redis_server % has an invalid port', p_what, p_identity ->> 'redis_server' using errcode = 'DL1I1';
    end if;
    v_server := lower(v_parts[2]) || ':' || v_port;
    v_db_text := nullif(btrim(v_parts[4], '/'), '');
  end if;
  if p_identity ? 'redis_db' and jsonb_typeof(p_identity -> 'redis_db') <> 'null' then
    v_db_text := btrim(p_identity ->> 'redis_db');
  end if;
  if v_db_text is not null and (v_db_text !~ '^[0-9]{1,9}$') then
    raise exception '%: redis_db % is not a database number', p_what, v_db_text using errcode = 'DL1I1';
  end if;
  v_db := coalesce(v_db_text::integer, 0);

  if concat(v_endpoint, v_bucket, v_server) ~ '[[:cntrl:]\s]' then
    raise exception '%: the store identity contains white space or control characters', p_what using errcode = 'DL1I1';
  end if;
  return jsonb_build_object('s3_endpoint', v_endpoint, 's3_bucket', v_bucket, 'redis_server', v_server, 'redis_db', v_db);
end;
$$;
