-- One line for people naming a canonical store identity
-- (community_deletion._normalize_store_identity): "S3 <endpoint> bucket <b>,
-- Redis <server> database <n>".
create or replace function community_deletion._describe_store_identity(p_identity jsonb)
  returns text
  language sql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.format('S3 %s bucket %s, Redis %s database %s',
                           p_identity ->> 's3_endpoint', p_identity ->> 's3_bucket',
                           p_identity ->> 'redis_server', p_identity ->> 'redis_db')
$$;
