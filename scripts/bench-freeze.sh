#!/usr/bin/env bash
# Benchmark: freeze a destructive manifest of N entries (default 1,000,000) in
# SQL and record how long it took and how much memory the backend needed.
# Not a test (no timing assertion); run by hand.
#
#   bash scripts/bench-freeze.sh [ENTRIES] [CHUNK_SIZE]
#
# It builds a throwaway database from the migrations (committed + current.sql),
# fences a request for a seeded community through the real API, appends the
# entries as key chunks through community_deletion.append_key_chunk (60 % _meta/, 30 %
# _uploads/, 10 % repos/), then calls community_deletion.freeze_destructive_manifest in a
# fresh backend and prints one JSON line on stdout:
#   entries, chunk_size, chunks, append_ms, freeze_ms,
#   backend_peak_rss_kb         VmHWM of the freezing backend (/proc; null when
#                               the server runs on another machine) — includes
#                               the shared_buffers pages it touched,
#   backend_rss_anon_kb_before/after   its private heap before/after the call,
#   backend_rss_shmem_kb_after         shared memory it has mapped,
#   temp_bytes                  temp files written (pg_stat_database delta),
#   work_mem, shared_buffers    the server's settings, left at their defaults.
# The freeze recomputes the chained per-chunk digests (docs/manifest-format.md)
# one chunk at a time, so memory stays at about one chunk whatever N is.
# Measured here (PostgreSQL 15, defaults: work_mem 4MB, shared_buffers 128MB),
# 1,000,000 entries / 100 chunks: freeze 3.7 s, private heap 9 MB, peak RSS
# 70 MB, no temp files; appending them took 35 s (the taxonomy regex per key).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
entries="${1:-1000000}"
chunk_size="${2:-10000}"
db="cd_bench_freeze_$$"
log() { printf '%s\n' "$*" >&2; }
trap 'drop_db "$db"' EXIT

log "== building $db"
drop_db "$db"
psql_admin -c "create database \"$db\"" >/dev/null
DATABASE_URL="$(db_url "$db")" "$GM" migrate >/dev/null
DATABASE_URL="$(db_url "$db")" "$GM" watch --once >/dev/null
export PGOPTIONS='-c client_min_messages=warning'
P=(psql -X -q -v ON_ERROR_STOP=1 -At -d "$db")
"${P[@]}" -c "select 'community_deletion.freeze_destructive_manifest'::regproc" >/dev/null ||
  { log "the engine functions are missing (current.sql did not apply)"; exit 1; }
"${P[@]}" -f db/tests/fixtures/helpers.sql -f db/tests/fixtures/destruction.sql >/dev/null

log "== fencing a request and appending $entries entries in chunks of $chunk_size"
read -r request owner generation fence community < <("${P[@]}" -F ' ' -c \
  "select request_id, owner, generation, fence_generation, community_id from tests.dx_fenced_request('bench.example', 1)")

# Appends the entries prefix by prefix through the executor API and returns
# the storage summary, computing each prefix's chained digest as it goes
# (what the TypeScript enumerator does while streaming a listing).
append_ms=$( { "${P[@]}" <<SQL
\\timing on
do \$\$
declare
  v_c uuid := '$community';
  v_no integer := 0;
  v_prefixes text[] := community_deletion._owned_prefixes(v_c);
  v_share numeric[] := array[0.6, 0.3, 0.1];
  v_total integer := $entries;
  v_size integer := $chunk_size;
  v_count integer;
  v_done integer;
  v_chain text;
  v_entries jsonb;
  v_text text;
  v_summaries jsonb := '[]';
  i integer;
begin
  for i in 1..3 loop
    v_count := case when i = 3 then v_total - floor(v_total * 0.6)::integer - floor(v_total * 0.3)::integer
                    else floor(v_total * v_share[i])::integer end;
    v_done := 0;
    v_chain := '';
    while v_done < v_count loop
      select jsonb_agg(jsonb_build_object('key', k, 'version_id', 'null', 'kind', 'object') order by n),
             string_agg(k || E'\\tnull\\tobject\\n', '' order by n)
        into v_entries, v_text
        from (select n, v_prefixes[i] || case when v_prefixes[i] like 'repos/%'
                                              then 'repo-' || lpad(n::text, 9, '0') || '.json'
                                              else lpad(to_hex(n), 64, '0') || '.json' end as k
                from generate_series(v_done + 1, least(v_done + v_size, v_count)) n) s;
      perform community_deletion.append_key_chunk('$request', '$owner', $generation, $fence, v_no, v_prefixes[i], v_entries);
      v_chain := encode(sha256(convert_to(v_chain || v_text, 'UTF8')), 'hex');
      v_no := v_no + 1;
      v_done := least(v_done + v_size, v_count);
    end loop;
    v_summaries := v_summaries || jsonb_build_array(jsonb_build_object('prefix', v_prefixes[i],
      'object_count', v_count, 'total_bytes', v_count,
      'keys_digest', case when v_count = 0 then encode(sha256(''::bytea), 'hex') else v_chain end));
  end loop;
  create table public.bench_manifest (manifest jsonb);
  insert into public.bench_manifest values (jsonb_build_object('version', 1, 'chunk_size', v_size, 'prefixes', v_summaries));
end
\$\$;
SQL
} | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
# (bench_manifest only carries the summary to the freezing session; the
# database is dropped afterwards.)
manifest=$("${P[@]}" -c "select manifest from public.bench_manifest")
"${P[@]}" -c "drop table public.bench_manifest"
chunks=$("${P[@]}" -c "select count(*) from community_deletion.manifest_keys where request_id = '$request'")

log "== freezing ($chunks chunks) in a fresh backend"
temp_before=$("${P[@]}" -c "select temp_bytes from pg_stat_database where datname = current_database()")
# /proc/<pid>/status of the freezing backend, before and after the call:
# VmHWM is its peak resident set (it includes shared_buffers pages it touched),
# RssAnon its private heap (memory contexts; glibc keeps freed heap, so the
# value after the call approximates the call's private peak).
out=$("${P[@]}" <<SQL
select pg_backend_pid() as pid \\gset
\\setenv BENCH_PID :pid
\\! echo "before=\$(grep -E '^(VmHWM|RssAnon|RssShmem):' /proc/\$BENCH_PID/status 2>/dev/null | awk '{print \$2}' | xargs)"
\\timing on
select community_deletion.freeze_destructive_manifest('$request', '$owner', $generation, $fence, '$manifest');
\\timing off
\\! echo "after=\$(grep -E '^(VmHWM|RssAnon|RssShmem):' /proc/\$BENCH_PID/status 2>/dev/null | awk '{print \$2}' | xargs)"
SQL
)
freeze_ms=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out" | tail -1)
read -r hwm_before anon_before shmem_before < <(sed -n 's/^before=//p' <<<"$out"; echo)
read -r hwm_after anon_after shmem_after < <(sed -n 's/^after=//p' <<<"$out"; echo)
frozen=$("${P[@]}" -c "select destructive_storage_frozen_at is not null from community_deletion.requests where id = '$request'")
[ "$frozen" = "t" ] || { log "the manifest did not freeze"; exit 1; }
sleep 1  # the freezing backend has exited; let its statistics land
temp_after=$("${P[@]}" -c "select temp_bytes from pg_stat_database where datname = current_database()")
work_mem=$("${P[@]}" -c "show work_mem")
shared_buffers=$("${P[@]}" -c "show shared_buffers")
j() { [ -n "${1:-}" ] && printf '%s' "$1" || printf 'null'; }
printf '{"entries": %s, "chunk_size": %s, "chunks": %s, "append_ms": %s, "freeze_ms": %s, "backend_peak_rss_kb": %s, "backend_rss_anon_kb_before": %s, "backend_rss_anon_kb_after": %s, "backend_rss_shmem_kb_after": %s, "temp_bytes": %s, "work_mem": "%s", "shared_buffers": "%s"}\n' \
  "$entries" "$chunk_size" "$chunks" "$(j "$append_ms")" "$(j "$freeze_ms")" "$(j "$hwm_after")" "$(j "$anon_before")" \
  "$(j "$anon_after")" "$(j "$shmem_after")" "$(( ${temp_after:-0} - ${temp_before:-0} ))" "$work_mem" "$shared_buffers"
