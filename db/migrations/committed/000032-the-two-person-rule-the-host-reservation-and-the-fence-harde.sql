--! Previous: sha1:3eb29bcc751a495995126cd8646bbde6c9178529
--! Hash: sha1:397df1fc2a617097edd0285309a41f18f8fcd492
--! Message: The two-person rule, the host reservation and the fence hardened against what a hostile operator or table owner tried: invisible and bidirectional characters in identities, another login freezing the requester's inventory, unbounded approval times, look-alike hosts of tombstones, renaming a registered table, table rewrites during a deletion, planner-run owner code, and adopted stores that hold nothing

-- The two-person rule and the tombstone's host reservation, hardened against
-- spellings and logins that get around them:
--  * operator identities compare with every invisible character removed — now
--    also variation selectors of the supplement, tag characters, and every
--    other Unicode format character (_without_invisible) — and with "ß" as
--    "ss" and a final sigma as a sigma (_identity_key); an identity holding
--    bidirectional controls is refused outright (DL1I1, _require_identity);
--  * only the login that submitted a request resumes it (submit) or freezes
--    its inventory (freeze_inventory): any other login is refused with the
--    new not_the_requester (DL3A3), so an approver never froze what they
--    approve;
--  * approve refuses a delay of more than 366 days and a not_before that is
--    not finite or more than 366 days ahead (DL1I1, never a timestamp
--    overflow);
--  * a tombstone's host is reserved in every spelling that names the same
--    host (_host_key: case, full-width letters, invisible characters,
--    ideographic dots, a trailing dot);
--  * a request frozen without store_identity adopts its first executor's
--    stores; freeze_destructive_manifest now refuses (DL4S1, before any
--    deletion) adopted stores that hold nothing under the owned prefixes
--    while the approved inventory listed object versions (a mistyped
--    bucket would otherwise be "proved" empty).
-- And the ways a table owner got past the fence:
--  * the DDL guard refuses renaming a registered table or moving it to
--    another schema (the registry binds by name: a renamed table could have
--    its fence disabled, be written and renamed back);
--  * a new event trigger, _111_guard_table_rewrite (table_rewrite), refuses
--    rewriting a registered table while a deletion is in flight, and
--    communities while any community is under deletion or a tombstone
--    (ALTER COLUMN … TYPE … USING changes rows no trigger sees);
--  * code another role attached that the planner runs — index expressions
--    and predicates, extended statistics expressions — is drift for every
--    table the engine reads or deletes from, not only the ones it updates.
--! Included functions/_without_invisible.sql
-- p_text with every whitespace and invisible character removed: spaces of
-- every kind (NBSP, ideographic, the Braille blank), tabs and line breaks,
-- zero-width spaces and joiners, direction marks and embeddings, soft
-- hyphens, the BOM, variation selectors (both blocks), Hangul and Mongolian
-- fillers, and every other Unicode format character (general category Cf:
-- Arabic number signs, Kaithi, Egyptian and shorthand format controls,
-- musical formatting, the tag characters of U+E0000–E0FFF). Used where two
-- typed texts must compare as a reader sees them (_identity_key, _host_key):
-- what a terminal shows as nothing must count as nothing.
create or replace function community_deletion._without_invisible(p_text text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.regexp_replace(p_text,
           '[[:space:]\u0085\u00a0\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u2800\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]',
           '', 'g')
$$;
--! EndIncluded functions/_without_invisible.sql
--! Included functions/_identity_key.sql
-- The form two operator identities are compared in (docs/security.md#two-person-rule):
-- Unicode NFKC (full-width letters, ligatures and compatibility forms become
-- their plain letters), lower case with the two folds lower() leaves out
-- ("ß" and "ẞ" are "ss", a final sigma is a sigma), and every whitespace and
-- invisible character removed (_without_invisible: spaces of every kind,
-- zero-width characters, direction marks, variation selectors, tag
-- characters, every format character). So "Alice", " ａｌｉｃｅ", "al​ice",
-- "A L I C E" and "alice" followed by an invisible tag character are one
-- person, as are "STRASSE" and "straße". Confusable letters of other scripts
-- (Cyrillic "а" for Latin "a") are not folded: the login rule, not the
-- typed name, is what binds two different people.
create or replace function community_deletion._identity_key(p_identity text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select community_deletion._without_invisible(
           pg_catalog.replace(pg_catalog.translate(pg_catalog.lower(pg_catalog.normalize(p_identity, 'NFKC')), 'ς', 'σ'),
                              'ß', 'ss'))
$$;
--! EndIncluded functions/_identity_key.sql
--! Included functions/_require_identity.sql
-- Validates an operator identity argument (requested_by, approved_by,
-- aborted_by, unblocked_by): _require_text (trimmed, non-blank, at most 512
-- characters), no control characters (C0, DEL, C1: an identity is shown in
-- terminals and logs, where an escape sequence would act), no bidirectional
-- controls (U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069: they
-- reorder what a terminal shows, so "\u202eecila" would read as "alice"),
-- and not empty once whitespace and invisible characters are removed
-- (_identity_key). Returns the trimmed label; raises invalid_argument (DL1I1)
-- naming the argument.
create or replace function community_deletion._require_identity(p_value text, p_name text)
  returns text
  language plpgsql
  immutable
  set search_path = pg_catalog, pg_temp
as $$
declare
  v_value text := community_deletion._require_text(p_value, p_name, 512);
begin
  if v_value ~ '[\u0001-\u001f\u007f-\u009f]' then
    raise exception 'community deletion: % contains control characters', p_name
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass %s as plain text (no escape sequences, tabs or line breaks).', p_name);
  end if;
  if v_value ~ '[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]' then
    raise exception 'community deletion: % contains bidirectional control characters', p_name
      using errcode = 'DL1I1',
            hint = pg_catalog.format('Pass %s as plain text: bidirectional controls reorder what a terminal shows.', p_name);
  end if;
  if community_deletion._identity_key(v_value) = '' then
    raise exception 'community deletion: % is only whitespace or invisible characters', p_name
      using errcode = 'DL1I1';
  end if;
  return v_value;
end;
$$;
--! EndIncluded functions/_require_identity.sql
--! Included functions/_host_key.sql
-- The form a community host is compared in when a tombstone reserves it
-- (tg_communities__protect_lifecycle, DL8T2): what a resolver or a browser
-- would take for the same name. Unicode NFKC (full-width letters and dots
-- become plain ones), lower case, every whitespace and invisible character
-- removed (_without_invisible), the ideographic full stop (U+3002, and the
-- half-width one NFKC maps to it) read as a dot, as IDNA does, and trailing
-- dots removed (a fully qualified "a.example." is "a.example"). So a
-- tombstoned "a.example" also reserves "A.EXAMPLE", "a.example.",
-- "ａ.example", "a。example" and "a​.example" (a zero-width space inside).
create or replace function community_deletion._host_key(p_host text)
  returns text
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select pg_catalog.rtrim(
           pg_catalog.translate(
             community_deletion._without_invisible(pg_catalog.lower(pg_catalog.normalize(p_host, 'NFKC'))),
             '。', '.'),
           '.')
$$;
--! EndIncluded functions/_host_key.sql
--! Included functions/tg_communities__protect_lifecycle.sql
-- Tombstone and lifecycle protection on communities (docs/design.md#tombstone). The engine is
-- recognised by current_user = community_deletion_owner (only its
-- security-definer functions run as that role; no session setting counts).
--  * INSERT, or a host changed: a host that belongs to a tombstone is
--    reserved forever (host_reserved DL8T2, checked before the unique index so
--    the error is clear), compared in _host_key form — case, full-width
--    letters, invisible characters, ideographic dots and a trailing dot
--    aside — so a look-alike of a deleted community's host is refused too;
--    a new community starts active and not deleted (DL8T1).
--  * UPDATE of a tombstone: nobody may change its lifecycle columns or host; the
--    engine alone may rewrite its other columns (clearing secrets), others may
--    change nothing (DL8T1).
--  * UPDATE by anyone but the engine: deletion_state, deletion_fence_generation
--    and deleted_at never change, and a community that is not active (under
--    deletion) cannot be changed at all — its archived_at is restored by abort.
--  * UPDATE by the engine: only the lifecycle edges active→quiescing,
--    quiescing→fenced, fenced→tombstone and quiescing|fenced→active (abort); the
--    fence generation never decreases.
--  * DELETE: a tombstone can never be deleted; a community under deletion can be
--    deleted by nobody.
create or replace function community_deletion.tg_communities__protect_lifecycle()
  returns trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
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
                  where c.deletion_state = 'tombstone'
                    and community_deletion._host_key(c.host) = community_deletion._host_key(new.host)) then
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
--! EndIncluded functions/tg_communities__protect_lifecycle.sql
--! Included functions/submit.sql
-- Operator API: asks for the deletion of the community whose host matches
-- host case-insensitively. Only an active, never-deleted community is
-- eligible (community_not_eligible, DL2C1; unknown host: DL1N2). At most one
-- non-aborted request exists per community: the same requester resubmitting
-- while it is still submitted gets the existing request back — from the login
-- that submitted it only (not_the_requester, DL3A3: another login typing the
-- requester's name cannot take over the request whose inventory it would then
-- freeze, docs/security.md#two-person-rule); anything else is refused with
-- request_exists (DL2C2) naming the open request.
create or replace function community_deletion.submit(host text, requested_by text, reason text default null)
  returns community_deletion.requests
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_host alias for $1;
  p_requested_by alias for $2;
  p_reason alias for $3;
  v_host text := community_deletion._require_text(p_host, 'host', 253);
  v_requested_by text := community_deletion._require_identity(p_requested_by, 'requested_by');
  v_reason text := community_deletion._require_operator_text(p_reason, 'reason', false);
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
    if v_request.requested_login is not null and v_request.requested_login <> session_user then
      raise exception 'deletion request % was submitted by the database login %; the login % cannot continue it, whatever name it types',
        v_request.id, v_request.requested_login, session_user
        using errcode = 'DL3A3',
              hint = 'The requester continues the request from their own login; a second operator only approves it.';
    end if;
    return v_request;
  end if;
  raise exception 'community % (%) already has deletion request % at stage %, requested by %',
    v_community.host, v_community.id, v_request.id, v_request.stage, v_request.requested_by
    using errcode = 'DL2C2',
          hint = 'Inspect the open request with community_deletion.inspect; abort it first if it must be replaced.';
end;
$$;
--! EndIncluded functions/submit.sql
--! Included functions/freeze_inventory.sql
-- Operator API: freezes the inventory of a submitted request and moves it to
-- inventoried. The schema half is computed here in SQL after validating the
-- catalog (DL7C1 on drift); the storage half is the driver's summary of the
-- three owned prefixes, validated and canonicalised (DL1M1). The canonical
-- inventory is {"schema": …, "storage": …}; its digest is the lowercase hex
-- SHA-256 of its jsonb text, which approval later recomputes and binds to.
-- store_identity: the stores the storage summary was enumerated from (S3
-- endpoint + bucket, Redis server + database), normalised and recorded on the
-- request (community_deletion._normalize_store_identity); every executor step
-- must present the same (community_deletion.verify_store_identity). Without
-- it, the first executor step records its own.
-- Only the login that submitted the request freezes its inventory
-- (not_the_requester, DL3A3): the approver, from another login, must not
-- produce what they then approve (docs/security.md#two-person-rule). A
-- request submitted before logins were recorded has no login to compare.
create or replace function community_deletion.freeze_inventory(
  request_id uuid, storage_summary jsonb, store_identity jsonb default null)
  returns community_deletion.requests
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_storage_manifest alias for $2;
  p_store_identity alias for $3;
  v_request community_deletion.requests;
  v_state text;
  v_schema jsonb;
  v_storage jsonb;
  v_inventory jsonb;
  v_store_identity jsonb;
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
  if v_request.requested_login is not null and v_request.requested_login <> session_user then
    raise exception 'deletion request % was submitted by the database login %; the login % cannot freeze its inventory',
      p_request_id, v_request.requested_login, session_user
      using errcode = 'DL3A3',
            hint = 'The requester freezes the inventory (deletions submit, from their own login); a second operator approves it.';
  end if;
  select c.deletion_state into v_state from public.communities c
   where c.id = v_request.community_id and c.deleted_at is null;
  if v_state is distinct from 'active' then
    raise exception 'community % of deletion request % is %, not active',
      v_request.community_id, p_request_id, coalesce(v_state, 'deleted')
      using errcode = 'DL2C1';
  end if;

  if p_store_identity is not null then
    v_store_identity := community_deletion._normalize_store_identity(p_store_identity, 'store_identity');
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
         store_identity = v_store_identity,
         store_identity_recorded_at = case when v_store_identity is null then null else now() end,
         last_error = null,
         last_error_at = null,
         updated_at = now()
   where r.id = p_request_id and r.stage = 'submitted' and r.blocked_at is null
  returning r.* into v_request;
  return v_request;
end;
$$;
--! EndIncluded functions/freeze_inventory.sql
--! Included functions/approve.sql
-- Operator API: a second operator approves the exact frozen inventory of an
-- inventoried, unblocked request and moves it to approved. Refusals: the
-- requester approving (self_approval, DL3A1) — by typed name (compared in
-- _identity_key form) or by database login: session_user is recorded on the
-- request and the approval, and the login that submitted cannot approve
-- (docs/security.md#two-person-rule; settings.allow_same_login_approval
-- relaxes only the login half, for single-login development setups). A
-- request submitted before logins were recorded has no login to compare.
-- A stored inventory that no longer
-- hashes to its digest (digest_mismatch, DL3A2), wrong stage / blocked /
-- terminal (DL2S1 / DL2B1 / DL2T1), blank approver or bad timing (DL1I1).
--
-- digest (optional): the inventory digest, or a prefix of it of at least 8
-- hex digits, that the approver reviewed (`deletions approve --digest`). The
-- approval is refused (digest_mismatch, DL3A2) unless the frozen inventory's
-- digest starts with it (case-insensitive), so an approver cannot approve an
-- inventory other than the one they looked at; a malformed value is DL1I1.
--
-- Grace period: nothing runs before the approval's not_before. It is the later
-- of now() + settings.approval_grace_period (the configured minimum, 0 allowed)
-- and the requested time (not_before, or now() + delay; at most one of the
-- two). A requested time earlier than the minimum is raised to the minimum; a
-- time in the past is accepted only when the minimum is 0 (it then means now).
-- The requested time is at most a year ahead (a delay of at most 366 days, a
-- finite not_before no later than now() + 366 days; DL1I1 otherwise, the cap
-- of `deletions approve --delay`): an approval that could never run
-- would hold the community's only open request. Abort stays possible
-- throughout the grace period.
create or replace function community_deletion.approve(
  request_id uuid, approved_by text, note text default null,
  not_before timestamptz default null, delay interval default null, digest text default null)
  returns community_deletion.requests
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
#variable_conflict use_column
declare
  -- The parameters under their internal names (bare names are columns).
  p_request_id alias for $1;
  p_approved_by alias for $2;
  p_note alias for $3;
  p_not_before alias for $4;
  p_delay alias for $5;
  p_digest alias for $6;
  v_digest text := lower(btrim(p_digest));
  v_approved_by text := community_deletion._require_identity(p_approved_by, 'approved_by');
  v_note text := community_deletion._require_operator_text(p_note, 'note', false);
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
  if p_delay is not null and p_delay > interval '366 days' then
    raise exception 'deletion request %: delay % is more than a year (366 days)', p_request_id, p_delay
      using errcode = 'DL1I1', hint = 'Pass a delay of at most 366 days.';
  end if;
  if p_not_before is not null and (not pg_catalog.isfinite(p_not_before) or p_not_before > now() + interval '366 days') then
    raise exception 'deletion request %: not_before % is not a time within the next year', p_request_id, p_not_before
      using errcode = 'DL1I1', hint = 'Pass a finite time at most 366 days ahead.';
  end if;
  if p_digest is not null and v_digest !~ '^[0-9a-f]{8,64}$' then
    raise exception 'deletion request %: digest % is not 8 to 64 hex digits of the inventory digest', p_request_id, p_digest
      using errcode = 'DL1I1',
            hint = 'Pass the digest shown by `deletions inspect` (or at least its first 8 hex digits).';
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

  if v_digest is not null and left(v_request.inventory_digest, length(v_digest)) is distinct from v_digest then
    raise exception 'deletion request %: the approver reviewed inventory digest %, but the frozen inventory''s digest is %',
      p_request_id, v_digest, v_request.inventory_digest
      using errcode = 'DL3A2',
            hint = 'Review the request again (`deletions inspect ID`, community_deletion.inspect) and approve the digest it shows.';
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
$$;
--! EndIncluded functions/approve.sql
--! Included functions/freeze_destructive_manifest.sql
-- Freezes the post-fence destructive storage manifest (executor API, stage
-- fenced). The manifest's per-prefix counts and chained digests must equal
-- what the stored key chunks hash to, recomputed here chunk by chunk (memory
-- bounded by one chunk, docs/manifest-format.md): chunk numbers contiguous
-- from 0, chunks grouped by prefix in the manifest's order, every chunk but a
-- prefix's last holding exactly chunk_size entries, entries canonical, under
-- their prefix and strictly ascending across chunks (the taxonomy match was
-- done per chunk on insert; chunks cannot change afterwards). Holds the
-- request row lock for the duration (~4 s per million entries, see
-- scripts/bench-freeze.sh), so appends and stamps cannot interleave.
-- Idempotent for the identical manifest; a different one is DL6K1; once
-- frozen the manifest and its chunks are immutable (triggers). With the
-- manifest it records destructive_difference: per table and per prefix what
-- appeared or vanished between the approved inventory and now
-- (community_deletion._inventory_difference), frozen like the manifest.
-- Stores adopted, not approved: a request frozen without a store identity
-- (freeze_inventory's is optional: a DBA's psql) took the stores of its
-- first executor step (verify_store_identity). When those stores now hold
-- nothing under any owned prefix while the approved inventory listed object
-- versions, they are almost surely not the stores it was taken from (a
-- mistyped bucket): deleting nothing there and proving it empty would be a
-- false proof of deletion. Refused as store_mismatch (DL4S1, before any
-- effect: the executor blocks; abort and submit again with the right
-- stores).
create or replace function community_deletion.freeze_destructive_manifest(
  request_id uuid,
  executor_id text,
  lease_generation bigint,
  fence_generation bigint,
  manifest jsonb)
  returns void
  language plpgsql
  volatile
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
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
  if cardinality(community_deletion._serving_writes_in_flight(v_request.community_id)) > 0 then
    raise exception 'request % (community %): serving-write leases are not released (live, or expired within settings.serving_lease_grace); the manifest cannot be frozen yet',
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

  if v_total = 0
     -- adopted: recorded by an executor step (its checkpoint), not at freeze
     and exists (select 1 from community_deletion.checkpoints c
                  where c.request_id = p_request_id and c.unit_key = 'store_identity_recorded')
     and exists (select 1 from pg_catalog.jsonb_array_elements(v_request.storage_manifest -> 'prefixes') p
                  where (p ->> 'object_count')::bigint > 0) then
    raise exception 'request % (community %): the stores the first executor step presented (%) hold nothing under the owned prefixes, but the approved inventory listed % object versions there; they are not the stores the inventory was taken from',
      p_request_id, v_request.community_id, community_deletion._describe_store_identity(v_request.store_identity),
      (select sum((p ->> 'object_count')::bigint) from pg_catalog.jsonb_array_elements(v_request.storage_manifest -> 'prefixes') p)
      using errcode = 'DL4S1',
            hint = 'The request was frozen without store_identity, so it adopted the first executor''s stores. Nothing was deleted: abort it and submit again with the right stores (deletions submit records them).';
  end if;

  update community_deletion.requests r
     set destructive_storage_manifest = v_manifest,
         destructive_storage_frozen_at = now(),
         destructive_difference = community_deletion._inventory_difference(
           v_request.community_id, v_request.inventory_manifest, v_manifest),
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
$$;
--! EndIncluded functions/freeze_destructive_manifest.sql
--! Included functions/_guard_registered_tables.sql
-- Raises protected_table_ddl (DL7C2) when DDL has weakened the guards of a
-- registered table (docs/security.md#table-owners): a write-fence trigger of
-- a scoped table, or the provenance guard of a provenance table, dropped,
-- renamed, disabled or set to fire on replicas only or always; or a
-- registered table made part of a partition or inheritance tree (the fence
-- does not cover statements addressed to a partition or child). Called at
-- the end of every DDL command (event trigger _110_guard_registered_tables),
-- so the command fails and nothing it did remains. Also refused: a
-- registered table renamed or moved to another schema — the registry, and
-- with it this guard, binds a table by name, so a renamed table could have
-- its fence disabled, be written and be renamed back unseen. That is: a
-- registered name no longer resolves while a table not registered under its
-- own name carries the engine's guards (the write fence, its early refusal
-- or TRUNCATE guard, the provenance guard). Tables that no longer exist are
-- otherwise the catalog check's business (a dropped table is drift, not
-- tampering). Security definer, executable by every role: the DDL may come
-- from any table owner, who cannot read the registry; it only answers.
create or replace function community_deletion._guard_registered_tables()
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
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
  if exists (select 1 from community_deletion.registered_tables r
              where r.kind in ('scoped', 'provenance')
                and community_deletion._registered_relation(r.schema_name, r.table_name) is null) then
    select v_problems || coalesce(pg_catalog.array_agg(pg_catalog.format(
             '%s: carries the guards of a registered table that is no longer under its registered name (renamed or moved)',
             community_deletion._table_label(g.schema_name, g.table_name)) order by g.schema_name, g.table_name), '{}')
      into v_problems
      from (select distinct n.nspname::text as schema_name, c.relname::text as table_name
              from pg_catalog.pg_trigger t
              join pg_catalog.pg_class c on c.oid = t.tgrelid
              join pg_catalog.pg_namespace n on n.oid = c.relnamespace
             where not t.tgisinternal
               and t.tgfoid in (pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__enforce_write_fence()'),
                                pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_write_early()'),
                                pg_catalog.to_regprocedure('community_deletion.tg_scoped_table__refuse_truncate()'),
                                pg_catalog.to_regprocedure('community_deletion.tg_provenance_table__refuse_inactive_community()'))
               and n.nspname <> 'pg_temp' and c.relpersistence <> 't') g
     where not exists (select 1 from community_deletion.registered_tables r
                        where r.schema_name = g.schema_name and r.table_name = g.table_name);
  end if;
  if pg_catalog.cardinality(v_problems) > 0 then
    raise exception 'community deletion: refused DDL on registered tables: %', pg_catalog.array_to_string(v_problems, '; ')
      using errcode = 'DL7C2',
            hint = 'The write fence and provenance guards of registered tables cannot be dropped, disabled or bypassed '
                   '(docs/security.md). To retire a table, drop it in a migration and update the registry.';
  end if;
end;
$$;
--! EndIncluded functions/_guard_registered_tables.sql
--! Included functions/_guard_registered_table_rewrite.sql
-- Refuses (protected_table_ddl, DL7C2) a command that is about to rewrite
-- p_table — ALTER TABLE … ALTER COLUMN … TYPE (with or without USING), ADD
-- COLUMN with a volatile default, and the other forms PostgreSQL carries
-- out by copying every row (event trigger _111_guard_table_rewrite,
-- table_rewrite) — when p_table is a registered scoped or provenance table,
-- or public.communities, and the command would change rows no trigger sees:
--   * a registered table, while a deletion is in flight (a request that is
--     not terminal whose community is not active: quiescing, fenced, or a
--     tombstone not yet proven): a rewrite's USING expression can change a
--     fenced community's rows, or move them to another community, and the
--     write fence never sees it;
--   * public.communities, while any community is not active (under
--     deletion, or a tombstone — for ever): a rewrite could revive a
--     tombstone or change a fence generation past the lifecycle guard.
-- Security definer, executable by every role: the DDL may come from any
-- table owner, who cannot read the registry or the requests; it only
-- answers.
create or replace function community_deletion._guard_registered_table_rewrite(p_table oid)
  returns void
  language plpgsql
  stable
  security definer
  set search_path = pg_catalog, pg_temp
  set row_security = off
as $$
declare
  v_label text;
  v_in_flight text;
begin
  if p_table = pg_catalog.to_regclass('public.communities')::oid then
    select pg_catalog.string_agg(pg_catalog.format('%s (%s)', c.host, c.deletion_state), ', ' order by c.host)
      into v_in_flight
      from (select c.host, c.deletion_state from public.communities c
             where c.deletion_state <> 'active' order by c.host limit 5) c;
    if v_in_flight is not null then
      raise exception 'community deletion: refused DDL: rewriting communities would change the rows of communities under deletion or tombstoned, past their lifecycle guard (%)',
        v_in_flight
        using errcode = 'DL7C2',
              hint = 'Change communities without a rewrite (ADD COLUMN with a constant default, a new table); a tombstone is permanent.';
    end if;
    return;
  end if;
  select community_deletion._table_label(r.schema_name, r.table_name) into v_label
    from community_deletion.registered_tables r
   where r.kind in ('scoped', 'provenance')
     and community_deletion._registered_relation(r.schema_name, r.table_name)::oid = p_table
   limit 1;
  if v_label is null then
    return;
  end if;
  select pg_catalog.string_agg(pg_catalog.format('request %s at %s for %s', f.id, f.stage, f.host), ', ' order by f.id)
    into v_in_flight
    from (select r.id, r.stage, c.host
            from community_deletion.requests r
            join public.communities c on c.id = r.community_id
           where not community_deletion._stage_is_terminal(r.stage) and c.deletion_state <> 'active'
           order by r.id limit 5) f;
  if v_in_flight is not null then
    raise exception 'community deletion: refused DDL on registered tables: %: the command rewrites every row of the table while a deletion is in flight (%)',
      v_label, v_in_flight
      using errcode = 'DL7C2',
            hint = 'A rewrite changes a fenced community''s rows without a write the fence sees. Run it once the deletion has finished (deletions list), or abort the deletion first.';
  end if;
end;
$$;
--! EndIncluded functions/_guard_registered_table_rewrite.sql
--! Included functions/tg_ddl__guard_table_rewrite.sql
-- Event trigger function (table_rewrite, _111_guard_table_rewrite): before
-- PostgreSQL rewrites a table, refuses it when the table is a registered one
-- (or communities) and the rewrite would change rows no trigger sees
-- (_guard_registered_table_rewrite, DL7C2). Runs as whoever issued the DDL
-- and calls only what PUBLIC may execute.
create or replace function community_deletion.tg_ddl__guard_table_rewrite()
  returns event_trigger
  language plpgsql
  volatile
  set search_path = pg_catalog, pg_temp
as $$
begin
  perform community_deletion._guard_registered_table_rewrite(pg_catalog.pg_event_trigger_table_rewrite_oid());
end;
$$;
--! EndIncluded functions/tg_ddl__guard_table_rewrite.sql
--! Included functions/_invoker_code_problems.sql
-- Code another role could have attached to relation p_rel that would run as
-- the engine owner (community_deletion_owner) when one of the engine's own
-- statements changes the table: p_event 'delete' (the purge of a scoped
-- table) or 'update' (a provenance table's community column nulled; the
-- lifecycle columns of public.communities). The engine's statements run
-- inside its security-definer functions, and PostgreSQL runs a trigger's
-- function, a rule's actions and the functions in the expressions an UPDATE
-- evaluates as the role executing the statement: a table owner's trigger
-- would read and write the control plane, tombstone another community or
-- remove its rows. A function is trusted when a superuser or
-- community_deletion_owner owns it (no other role can replace it or change
-- its owner); SECURITY DEFINER is not enough, its owner can turn it off at
-- any moment. Reported:
--   * every trigger firing on p_event (enabled or not: it can be enabled
--     later) whose function is not trusted;
--   * every rule on p_event (its actions run with the engine's privileges
--     and change what the statement does);
--   * for every event: every index expression or predicate, and every
--     expression of an extended statistics object, that calls an untrusted
--     function, directly or through an operator — the planner evaluates
--     them (an immutable function with constant arguments is folded) when
--     it plans any statement on the table, a DELETE or a SELECT of the
--     engine's as much as an UPDATE;
--   * for 'update' also: every CHECK constraint, generated column or
--     constraint of a column's domain (or of a domain that domain is based
--     on, at any depth) that calls an untrusted function;
--   * row-level security that applies to the engine owner
--     (_row_security_problem, same words): a policy's expressions run as the
--     role whose statement reads the table. The engine's security-definer
--     functions set row_security off, so such a statement fails (42501)
--     before any policy code runs; this names the cause first.
-- Foreign-key checks and actions are not code of this kind: PostgreSQL runs
-- them as the owner of the table they read or change. Returns the problems
-- in words, sorted; empty when there are none. The query is
-- _invoker_code_problems_of's.
-- PL/pgSQL, generic plan: planned once a session (docs/design.md, The catalog check's cost).
create or replace function community_deletion._invoker_code_problems(p_rel pg_catalog.regclass, p_event text)
  returns text[]
  language plpgsql
  stable
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
as $$
begin
  return coalesce((select x.problems from community_deletion._invoker_code_problems_of(array[p_rel], p_event) x), '{}');
end;
$$;
--! EndIncluded functions/_invoker_code_problems.sql
--! Included functions/_invoker_code_problems_of.sql
-- _invoker_code_problems for many relations at once (validate_catalog checks
-- every registered table in one query): one row per relation of p_rels with
-- code another role attached that would run as the engine owner when one of
-- the engine's own statements (p_event 'delete' or 'update') changes it,
-- the problems in words, sorted; relations without any have no row. What is
-- reported, and why, is _invoker_code_problems'.
-- PL/pgSQL, generic plan: planned once a session; no JIT (docs/design.md, The
-- catalog check's cost).
create or replace function community_deletion._invoker_code_problems_of(p_rels pg_catalog.regclass[], p_event text)
  returns table (rel pg_catalog.regclass, problems text[])
  language plpgsql
  stable
  rows 100
  set search_path = pg_catalog, pg_temp
  set plan_cache_mode = force_generic_plan
  set jit = off
as $$
begin
  return query
  with recursive rels as (
    select distinct x.rel::pg_catalog.oid as rel from pg_catalog.unnest(p_rels) x(rel)
  ),
  domains as (
    -- The domains of each relation's columns (an array column's element type
    -- too), and the domains those are based on.
    select a.attrelid as rel, t.oid, t.typbasetype
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_type ct on ct.oid = a.atttypid
      join pg_catalog.pg_type t on t.oid in (ct.oid, ct.typelem) and t.typtype = 'd'
     where a.attrelid in (select r.rel from rels r) and a.attnum > 0 and not a.attisdropped
    union
    select dm.rel, t.oid, t.typbasetype
      from domains dm
      join pg_catalog.pg_type t on t.oid = dm.typbasetype and t.typtype = 'd'
  ),
  -- The objects whose expressions run with the statement, each with its
  -- relation: for every event, the indexes and extended statistics objects
  -- (the planner folds their expressions and predicates when it plans any
  -- statement on the table); for 'update' also the CHECK constraints,
  -- generated columns and constraints of the columns' domains.
  objects as (
    select i.indrelid as rel, 'pg_catalog.pg_class'::pg_catalog.regclass::oid as classid, i.indexrelid as objid
      from pg_catalog.pg_index i
     where i.indrelid in (select r.rel from rels r)
    union all
    select s.stxrelid, 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass::oid, s.oid
      from pg_catalog.pg_statistic_ext s
     where s.stxrelid in (select r.rel from rels r)
    union all
    select c.conrelid, 'pg_catalog.pg_constraint'::pg_catalog.regclass::oid, c.oid
      from pg_catalog.pg_constraint c
     where p_event = 'update' and c.conrelid in (select r.rel from rels r) and c.contype = 'c'
    union all
    select ad.adrelid, 'pg_catalog.pg_attrdef'::pg_catalog.regclass::oid, ad.oid
      from pg_catalog.pg_attrdef ad
      join pg_catalog.pg_attribute a on a.attrelid = ad.adrelid and a.attnum = ad.adnum
     where p_event = 'update' and ad.adrelid in (select r.rel from rels r) and a.attgenerated <> ''
    union all
    select dm.rel, 'pg_catalog.pg_constraint'::pg_catalog.regclass::oid, c.oid
      from domains dm
      join pg_catalog.pg_constraint c on c.contypid = dm.oid
     where p_event = 'update'
  ),
  code as (
    select t.tgrelid as rel,
           pg_catalog.format('trigger %s runs %s', pg_catalog.quote_ident(t.tgname), t.tgfoid::pg_catalog.regprocedure) as what,
           t.tgfoid as fn, false as always
      from pg_catalog.pg_trigger t
     where t.tgrelid in (select r.rel from rels r) and not t.tgisinternal
       and (t.tgtype::integer & case p_event when 'delete' then 8 when 'update' then 16 else 0 end) <> 0
    union all
    select r.ev_class, pg_catalog.format('rule %s on %s', pg_catalog.quote_ident(r.rulename), pg_catalog.upper(p_event)), null, true
      from pg_catalog.pg_rewrite r
     where r.ev_class in (select x.rel from rels x) and r.rulename <> '_RETURN'
       and r.ev_type = case p_event when 'delete' then '4' when 'update' then '2' end
    union all
    select s.rel::pg_catalog.oid, s.problem, null, true
      from community_deletion._row_security_problem_of(p_rels) s
     where s.problem is not null
    union all
    select o.rel,
           pg_catalog.format('%s calls %s', pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid),
                             f.fn::pg_catalog.regprocedure), f.fn, false
      from (select distinct ob.rel, ob.classid, ob.objid from objects ob) o
      join pg_catalog.pg_depend d on d.classid = o.classid and d.objid = o.objid
      cross join lateral (select case when d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass::oid then d.refobjid
                                      else (select op.oprcode::oid from pg_catalog.pg_operator op where op.oid = d.refobjid) end as fn) f
     where d.refclassid in ('pg_catalog.pg_proc'::pg_catalog.regclass::oid, 'pg_catalog.pg_operator'::pg_catalog.regclass::oid)
  )
  select c.rel::pg_catalog.regclass, pg_catalog.array_agg(distinct c.what)
    from code c
    -- Each function's owner looked up by its oid, row by row (a join would
    -- hash all of pg_proc for a handful of lookups).
    cross join lateral (select (select pr.proowner from pg_catalog.pg_proc pr where pr.oid = c.fn) as owner) p
   where c.always
      or (p.owner is not null
          and p.owner <> (select r.oid from pg_catalog.pg_roles r where r.rolname = 'community_deletion_owner')
          and not (select r.rolsuper from pg_catalog.pg_roles r where r.oid = p.owner))
   group by c.rel;
end;
$$;
--! EndIncluded functions/_invoker_code_problems_of.sql
--! Included functions/schema_version.sql
-- The engine schema's version: the number of the last migration that changed
-- engine objects. A driver built for another version refuses to run against
-- this database (src/engine.ts, SCHEMA_VERSION); `deletions migrate` and
-- `deletions inspect` report it. Every migration that changes engine objects
-- replaces this function with its own number.
create or replace function community_deletion.schema_version()
  returns integer
  language sql
  immutable
  parallel safe
  set search_path = pg_catalog, pg_temp
as $$
  select 32
$$;
--! EndIncluded functions/schema_version.sql
--! Included engine/triggers.sql
-- Every trigger and event trigger the engine attaches, except the write-fence
-- triggers on the registered scoped tables (register_scoped_table attaches
-- those; scoped_table_fences.sql re-attaches them all). Re-runnable: each
-- trigger is dropped and created again, inside the migration's transaction.

-- Control plane: frozen evidence, forward-only stages, no deletes, no TRUNCATE.
drop trigger if exists _100_protect_frozen_fields on community_deletion.requests;
create trigger _100_protect_frozen_fields
  before update on community_deletion.requests
  for each row execute function community_deletion.tg_requests__protect_frozen_fields();

drop trigger if exists _110_refuse_delete on community_deletion.requests;
create trigger _110_refuse_delete
  before delete on community_deletion.requests
  for each row execute function community_deletion.tg_requests__refuse_delete();

drop trigger if exists _120_refuse_truncate on community_deletion.requests;
create trigger _120_refuse_truncate
  before truncate on community_deletion.requests
  for each statement execute function community_deletion.tg_control_plane__refuse_truncate();

drop trigger if exists _500_freeze_destructive_manifest on community_deletion.requests;
create trigger _500_freeze_destructive_manifest
  before update on community_deletion.requests
  for each row
  when (old.destructive_storage_manifest is distinct from new.destructive_storage_manifest
        or old.destructive_storage_frozen_at is distinct from new.destructive_storage_frozen_at)
  execute function community_deletion.tg_requests__freeze_destructive_manifest();

drop trigger if exists _900_stage_moves_forward on community_deletion.requests;
create trigger _900_stage_moves_forward
  after update of stage on community_deletion.requests
  for each row when (old.stage is distinct from new.stage)
  execute function community_deletion.tg_requests__stage_moves_forward();

drop trigger if exists _100_check_approval on community_deletion.approvals;
create trigger _100_check_approval
  before insert on community_deletion.approvals
  for each row execute function community_deletion.tg_approvals__check_approval();

drop trigger if exists _110_refuse_change on community_deletion.approvals;
create trigger _110_refuse_change
  before update or delete on community_deletion.approvals
  for each row execute function community_deletion.tg_approvals__refuse_change();

drop trigger if exists _120_refuse_truncate on community_deletion.approvals;
create trigger _120_refuse_truncate
  before truncate on community_deletion.approvals
  for each statement execute function community_deletion.tg_control_plane__refuse_truncate();

drop trigger if exists _100_protect on community_deletion.checkpoints;
create trigger _100_protect
  before update or delete on community_deletion.checkpoints
  for each row execute function community_deletion.tg_checkpoints__protect();

drop trigger if exists _120_refuse_truncate on community_deletion.checkpoints;
create trigger _120_refuse_truncate
  before truncate on community_deletion.checkpoints
  for each statement execute function community_deletion.tg_control_plane__refuse_truncate();

drop trigger if exists _100_guard_key_chunks on community_deletion.manifest_keys;
create trigger _100_guard_key_chunks
  before insert or update or delete on community_deletion.manifest_keys
  for each row
  execute function community_deletion.tg_manifest_keys__guard();

drop trigger if exists _101_forbid_truncate on community_deletion.manifest_keys;
create trigger _101_forbid_truncate
  before truncate on community_deletion.manifest_keys
  for each statement
  execute function community_deletion.tg_manifest_keys__forbid_truncate();

-- The host's tables: the lifecycle/tombstone guard on communities and the
-- read-state hard-delete guard on events.
drop trigger if exists _010_protect_lifecycle on public.communities;
create trigger _010_protect_lifecycle
  before insert or update or delete on public.communities
  for each row
  execute function community_deletion.tg_communities__protect_lifecycle();

drop trigger if exists _200_guard_read_state_delete on public.events;
create trigger _200_guard_read_state_delete
  before delete on public.events
  for each row
  when (old.kind = 30078 and old.d_tag like 'read-state:%')
  execute function community_deletion.tg_events__guard_read_state_delete();

-- The engine's event triggers, created only by a superuser (on a managed
-- server nobody is: the DDL lock is then explicit, community_deletion.ddl_lock(),
-- and catalog validation stands in for the guard — docs/managed.md):
--   * any DDL on non-temporary objects, by any tool, takes the
--     schema/destruction lock exclusively (see _ddl_tag_is_deferred.sql for
--     which event decides): _100, _101, _102;
--   * after any DDL, refuse it if it weakened the guards of a registered table
--     (a fence trigger dropped or disabled, a table made a partition or child):
--     _guard_registered_tables, DL7C2: _110;
--   * before a table rewrite, refuse it for a registered table while a
--     deletion is in flight, and for communities while any community is not
--     active (the rewrite changes rows no trigger sees):
--     _guard_registered_table_rewrite, DL7C2: _111.
do $cd_managed$
declare
  v_trigger record;
  v_superuser boolean := (select r.rolsuper from pg_catalog.pg_roles r where r.rolname = current_user);
begin
  for v_trigger in
    select * from (values
      ('_100_lock_schema_destruction', 'ddl_command_start', 'tg_ddl__lock_schema_destruction'),
      ('_101_lock_schema_destruction_created', 'ddl_command_end', 'tg_ddl__lock_schema_destruction_created'),
      ('_102_lock_schema_destruction_dropped', 'sql_drop', 'tg_ddl__lock_schema_destruction_dropped'),
      ('_110_guard_registered_tables', 'ddl_command_end', 'tg_ddl__guard_registered_tables'),
      ('_111_guard_table_rewrite', 'table_rewrite', 'tg_ddl__guard_table_rewrite')) t(name, event, fn)
  loop
    if v_superuser then
      execute format('drop event trigger if exists %I', v_trigger.name);
      execute format('create event trigger %I on %s execute function community_deletion.%I()', v_trigger.name, v_trigger.event, v_trigger.fn);
    else
      raise notice 'community deletion: event trigger % not created (not superuser; DDL lock: explicit)', v_trigger.name;
    end if;
  end loop;
end
$cd_managed$;
--! EndIncluded engine/triggers.sql
--! Included engine/grants.sql
-- Ownership and privileges of the engine (least privilege). Data-driven and
-- re-runnable: every function in schema community_deletion is owned by
-- community_deletion_owner, loses EXECUTE for PUBLIC and the engine roles,
-- and regains it only per the mapping below. A function missing from the
-- mapping is executable by its owner only (fail closed);
-- db/tests/roles/every_engine_function_is_mapped.test.sql fails until it is
-- mapped. Included last by every migration that adds or replaces engine
-- functions.
--
-- Why the engine is unforgeable: the security-definer functions run as
-- community_deletion_owner (NOLOGIN, no members), and the write fence and the
-- communities lifecycle guard admit the engine by current_user alone. No client
-- can become that role (superusers excepted, as always).
--
-- "public" in the mapping: the write-fence trigger runs as whichever role
-- writes, so the few functions on its path (lock key, isolation check, the
-- write decision, the caller's own serving grant) are executable by everyone.
-- They only answer questions and take a shared lock any writer takes anyway.
-- For the same reason every role has USAGE on the schema (names only: tables
-- and functions carry their own privileges).
grant usage on schema community_deletion to public;

do $$
declare
  v_fn record;
  v_role text;
  v_map jsonb := pg_catalog.jsonb_build_object(
    'community_deletion_operator', pg_catalog.jsonb_build_array(
      'submit', 'freeze_inventory', 'approve', 'abort', 'unblock',
      'inspect', 'request_status', 'request_checkpoints', 'list_requests', 'queue_status',
      'storage_taxonomy_rules', 'key_chunk_progress', 'schema_version',
      'validate_catalog', 'validate_serving_catalog',
      'serving_lease_stats', 'reap_serving_leases',
      'record_taxonomy_sweep', 'write_fence_implementation', 'plan'),
    'community_deletion_executor', pg_catalog.jsonb_build_array(
      'claim', 'verify_token', 'verify_store_identity', 'lease_state', 'heartbeat', 'release',
      'executor_stopped',
      'record_failure', 'block', 'block_preclaim',
      'begin_quiescing', 'fence',
      'append_key_chunk', 'clear_key_chunks', 'freeze_destructive_manifest',
      'mark_drained', 'next_key_chunk', 'stamp_key_chunk', 'key_chunk_progress',
      'mark_bindings_removed', 'purge_postgres', 'purge_postgres_batch', 'finish_postgres_purge', 'mark_cache_purged',
      'verify_postgres_absence', 'mark_logically_verified', 'mark_retention_pending',
      'inspect', 'storage_taxonomy_rules', 'validate_catalog',
      'serving_lease_stats', 'reap_serving_leases', 'write_fence_implementation', 'schema_version'),
    'community_deletion_app', pg_catalog.jsonb_build_array(
      'acquire_serving_lease', 'renew_serving_lease', 'verify_serving_lease',
      'release_serving_lease', 'guard_serving_write', 'validate_serving_catalog',
      'write_fence_implementation', 'schema_version'),
    'public', pg_catalog.jsonb_build_array(
      'community_write_allowed', 'assert_community_write_allowed', '_require_read_committed',
      '_community_lock_key', '_serving_write_granted', '_schema_destruction_lock_key',
      -- the DDL guard: every role's DDL runs it (it only answers)
      '_guard_registered_tables', '_guard_registered_table_rewrite',
      -- the explicit DDL lock (no event trigger on a managed server): every
      -- migrating role calls it, as every role's DDL runs the event trigger
      'ddl_lock',
      -- what is installed: `deletions migrate` asks as the migrating role,
      -- which holds none of the engine roles (they only answer)
      'schema_version', 'write_fence_implementation', 'installation_report',
      -- constants: the stage list (the view community_deletion.stages calls them as its reader)
      '_stages', '_stage_order', '_next_stage', '_stage_is_runnable', '_stage_is_terminal',
      '_stage_is_abortable', '_stage_is_fenced',
      -- the host reservation of the communities guard, which runs as whichever
      -- role inserts or renames a community (pure functions of their argument)
      '_host_key', '_without_invisible'));
begin
  for v_fn in
    select p.oid::pg_catalog.regprocedure as sig, p.proname::text as name
      from pg_catalog.pg_proc p
     where p.pronamespace = 'community_deletion'::pg_catalog.regnamespace
     order by 1
  loop
    execute pg_catalog.format('alter function %s owner to community_deletion_owner', v_fn.sig);
    execute pg_catalog.format('revoke all on function %s from public, community_deletion_operator, '
                              'community_deletion_executor, community_deletion_app', v_fn.sig);
    for v_role in select k from pg_catalog.jsonb_object_keys(v_map) k where v_map -> k ? v_fn.name loop
      execute pg_catalog.format('grant execute on function %s to %s', v_fn.sig,
                                case when v_role = 'public' then 'public' else pg_catalog.quote_ident(v_role) end);
    end loop;
  end loop;

  -- The engine's own tables. The owner (the security-definer code) reads and
  -- writes every one, never TRUNCATE, never DDL; operators read them (psql
  -- inspection); every change goes through the functions; the executor and
  -- the application get no table privileges at all.
  revoke all on all tables in schema community_deletion from public, community_deletion_operator,
    community_deletion_executor, community_deletion_app, community_deletion_owner;
  revoke all on all sequences in schema community_deletion from public, community_deletion_operator,
    community_deletion_executor, community_deletion_app, community_deletion_owner;
  grant select, insert, update, delete on all tables in schema community_deletion to community_deletion_owner;
  grant usage, select on all sequences in schema community_deletion to community_deletion_owner;
  grant select on all tables in schema community_deletion to community_deletion_operator;

  -- The host's tables. Start from nothing for the engine roles, in public and
  -- in every schema holding a registered table.
  revoke all on all tables in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  revoke all on all sequences in schema public from community_deletion_operator, community_deletion_executor,
    community_deletion_app, community_deletion_owner;
  -- The owner (the engine's security-definer code): communities (lifecycle
  -- columns, tombstone), every registered scoped table (counted, purged,
  -- proven absent) and provenance table (nulled, proven absent) — and nothing
  -- else of the host's.
  grant select, insert, update, delete on public.communities to community_deletion_owner;

  -- The application writer: communities except the engine-owned lifecycle
  -- columns (deletion_state, deletion_fence_generation, deleted_at) — column
  -- privileges refuse those outright (42501), and the lifecycle guard trigger
  -- refuses them for everyone else (DL8T1) — and its tenant data.
  grant select on public.communities to community_deletion_app;
  grant insert (id, host, name, signing_key, icon, settings, created_at, archived_at) on public.communities
    to community_deletion_app;
  grant update (host, name, signing_key, icon, settings, archived_at) on public.communities
    to community_deletion_app;
  for v_fn in
    select r.schema_name, r.kind, x.rel
      from community_deletion.registered_tables r
      cross join lateral (select community_deletion._registered_relation(r.schema_name, r.table_name) as rel) x
     where r.kind in ('scoped', 'provenance') and x.rel is not null
  loop
    execute pg_catalog.format('grant usage on schema %I to community_deletion_owner, community_deletion_app', v_fn.schema_name);
    execute pg_catalog.format('grant select, insert, update, delete on %s to community_deletion_app', v_fn.rel);
    execute pg_catalog.format('grant %s on %s to community_deletion_owner',
                              case v_fn.kind when 'scoped' then 'select, insert, update, delete' else 'select, update' end,
                              v_fn.rel);
  end loop;

  -- Operators read communities (psql inspection).
  grant select on public.communities to community_deletion_operator;
end;
$$;
--! EndIncluded engine/grants.sql
