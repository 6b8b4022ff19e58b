#!/usr/bin/env bash
# The whole test suite: pgTAP (each file in its own clone of a freshly migrated
# template database), the TypeScript tests (tap, against real PostgreSQL, Redis
# and S3), and the schema parity check. Ends with one line
# "N passed, N failed" covering every suite; exits non-zero on any failure.
#
#   npm test                 everything
#   npm test -- sql [FILE…]  pgTAP only (optionally some files; without files
#                            the fence suites run a second time on the PL/pgSQL
#                            fallback fence)
#   npm test -- sql-fallback the fence suites on the PL/pgSQL fallback only
#   npm test -- ts [FILE…]   TypeScript only
#   npm test -- parity       parity only
#   npm test -- sources      function sources equal the deployed functions only
#   npm test -- typecheck    tsc only
#
# DELETIONS_TEST_NATIVE_FENCE=if-installed skips db/tests/native_fence when the
# template's write fence is not the native library (scripts/matrix.sh sets it:
# PostgreSQL 16–18 from npm have no server headers to build db/native). The
# default, "require", runs it anyway, so a missing library fails the suite.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
what="${1:-all}"; [ $# -gt 0 ] && shift
passed=0 failed=0
# A phase header ("== ...") carries the seconds since the run started, so a
# slow CI run shows where its time went.
log() {
  case "$*" in
    "== "*) printf '%s  [+%ss]\n' "$*" "$SECONDS" >&2 ;;
    *) printf '%s\n' "$*" >&2 ;;
  esac
}

template="cd_test_tpl_$$"
native_fence_tests="${DELETIONS_TEST_NATIVE_FENCE:-require}"
case "$native_fence_tests" in require|if-installed) ;; *)
  log "DELETIONS_TEST_NATIVE_FENCE must be 'require' or 'if-installed', not '$native_fence_tests'"; exit 2 ;; esac
fence_impl=unknown
fallback_template="cd_test_tpl_plpgsql_$$"
# What the migrations alone build (no test fixtures): the template is a clone
# of it plus the fixtures. Exported as DELETIONS_MIGRATED_TEMPLATE once built,
# so parity.sh, function-sources.sh and the tests that need a freshly migrated
# database (test/helpers/migrated.ts, databaseAtLatest) clone it instead of
# running every migration again (about 8 s each).
migrated_template="cd_test_migrated_$$"
cleanup() { drop_db "$template"; drop_db "$fallback_template"; drop_db "$migrated_template"; }
trap cleanup EXIT

build_template() {
  log "== building template database $template from migrations"
  build_from_migrations "$migrated_template" || { log "migrations failed"; return 1; }
  psql_admin -c "create database \"$template\" template \"$migrated_template\"" >/dev/null || return 1
  export DELETIONS_MIGRATED_TEMPLATE="$migrated_template"
  psql -X -q -v ON_ERROR_STOP=1 -d "$template" -f "$ROOT/db/tests/fixtures/logins.sql" >/dev/null || return 1
  psql -X -q -v ON_ERROR_STOP=1 -d "$template" \
    -c 'create extension if not exists pgtap' -c 'create extension if not exists dblink' \
    -f "$ROOT/db/tests/fixtures/helpers.sql" >/dev/null || return 1
  fence_impl="$(psql -X -At -d "$template" -c 'select community_deletion.write_fence_implementation()')"
  if [ "$fence_impl" != native ]; then
    log "!! the write fence is '$fence_impl': the native library is not installed on this server."
    if [ "$native_fence_tests" = if-installed ]; then
      log "!! db/tests/native_fence is skipped (DELETIONS_TEST_NATIVE_FENCE=if-installed)."
    else
      log "!! Build and install it (needs postgresql-server-dev-15): make -C db/native install"
      log "!! (.ci/run does this); db/tests/native_fence will fail until then."
    fi
  fi
}

# The same suites against the PL/pgSQL fallback fence: a clone of the template
# on which community_deletion.install_write_fence(false) replaced the native path.
build_fallback_template() {
  log "== building template database $fallback_template (PL/pgSQL write fence)"
  drop_db "$fallback_template"
  psql_admin -c "create database \"$fallback_template\" template \"$template\"" >/dev/null || return 1
  psql -X -q -At -v ON_ERROR_STOP=1 -d "$fallback_template" \
    -c 'select community_deletion.install_write_fence(false)' >/dev/null || return 1
}

# pgTAP: each file gets its own database cloned from the template, so files
# may commit, open concurrent sessions (dblink) and run in parallel.
run_sql_file() {
  local file="$1" db="cd_test_${$}_$2" out started=$EPOCHREALTIME
  psql_admin -c "create database \"$db\" template \"$template\"" >/dev/null || { echo "not ok - clone for $file"; return; }
  out="$(PGDATABASE="$db" DELETIONS_TEST_DB="$db" pg_prove --verbose --nocolor --ext .sql -d "$db" "$file" 2>&1)"
  local rc=$?
  drop_db "$db"
  printf '%s\n' "$out"
  # The file's wall time (clone, run, drop), for the slowest-files list.
  printf '## TIME %s %s\n' "$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')" "$file"
  # A file that died (SQL error, bad plan) without a failing assertion still fails.
  if [ "$rc" -ne 0 ] && ! grep -qE '^\s*not ok [0-9]+' <<<"$out"; then echo "## BROKEN $file (pg_prove exit $rc)"; fi
}
export -f run_sql_file drop_db psql_admin db_url
run_sql() {
  local files=("$@")
  if [ ${#files[@]} -eq 0 ]; then
    mapfile -t files < <(find db/tests -name '*.sql' -not -path '*/fixtures/*' -not -path '*/plpgsql_fence/*' | sort)
  fi
  if [ "$native_fence_tests" = if-installed ] && [ "$fence_impl" != native ]; then
    local kept=() f
    for f in "${files[@]}"; do [[ "$f" == db/tests/native_fence/* ]] || kept+=("$f"); done
    if [ ${#kept[@]} -ne ${#files[@]} ]; then
      log "== pgTAP: skipped $(( ${#files[@]} - ${#kept[@]} )) file(s) in db/tests/native_fence: they assert the native library, and the write fence on this server is '$fence_impl' (DELETIONS_TEST_NATIVE_FENCE=if-installed)"
    fi
    files=("${kept[@]}")
  fi
  if [ ${#files[@]} -eq 0 ]; then log "pgTAP: no test files found in db/tests"; failed=$((failed + 1)); return; fi
  log "== pgTAP: ${#files[@]} files on $template"
  local out; out="$(mktemp)"
  local i=0; for f in "${files[@]}"; do i=$((i + 1)); printf '%s\0%s\0' "$f" "$i"; done |
    template="$template" xargs -0 -n 2 -P "${PGTAP_JOBS:-2}" bash -c 'template='"$template"' run_sql_file "$0" "$1"' >"$out"
  local p f
  p=$(grep -cE '^\s*ok [0-9]+' "$out"); f=$(grep -cE '^\s*not ok [0-9]+' "$out")
  # A file that died before its plan completed (error, bad plan) shows up as a
  # "Dubious"/"Failed" summary or "Parse errors" line without not-ok lines.
  local broken; broken=$(grep -cE '^## BROKEN' "$out")
  if [ "$f" -gt 0 ] || [ "$broken" -gt 0 ]; then
    grep -E '^\s*not ok|^## BROKEN|Parse errors|ERROR|# +(Failed|got|expected|have|want|caught|wanted)' "$out" | head -80 >&2
  fi
  # Where the time went: the slowest files (a CI run must stay well under 30 minutes).
  log "slowest pgTAP files:"
  sed -nE 's/^## TIME ([0-9.]+) (.*)$/\1 \2/p' "$out" | sort -rn | head -6 | awk '{ printf "  %6.1f s  %s\n", $1, $2 }' >&2
  log "pgTAP: $p passed, $f failed, $broken broken files"
  passed=$((passed + p)); failed=$((failed + f + broken))
  rm -f "$out"
}

# The fence suites again, on the PL/pgSQL fallback fence.
FALLBACK_SUITES=(plpgsql_fence write_fence quiesce_fence serving_leases tombstone catalog abort security)
run_sql_fallback() {
  build_fallback_template || { log "building the fallback template failed"; failed=$((failed + 1)); return; }
  local files=() d
  for d in "${FALLBACK_SUITES[@]}"; do mapfile -t -O "${#files[@]}" files < <(find "db/tests/$d" -name '*.sql' | sort); done
  template="$fallback_template" run_sql "${files[@]}"
}

run_ts() {
  log "== TypeScript (tap)"
  local out; out="$(mktemp)"
  DELETIONS_TEST_TEMPLATE="$template" DATABASE_URL="$(db_url "$template")" \
    "$ROOT/node_modules/.bin/tap" --reporter=tap "$@" >"$out" 2>&1
  local rc=$?
  local p f
  read -r p f < <(awk -f "$ROOT/scripts/count-tap.awk" "$out")
  if [ "$rc" -ne 0 ] || [ "$f" -gt 0 ]; then
    grep -E 'not ok|# (fail|Failed)|Error|error:' "$out" | head -60 >&2
    if [ "$f" -eq 0 ]; then
      # tap failed without a failing assertion (a file that crashed, hung or
      # ended early): show the end of its output.
      echo "tap exited $rc without a failing assertion; the end of its output:" >&2
      tail -40 "$out" >&2
      f=1
    fi
  fi
  cp "$out" "${TMPDIR:-/tmp}/community-deletion-tap.log" && log "(the whole tap output: ${TMPDIR:-/tmp}/community-deletion-tap.log)"
  drop_orphan_test_databases
  # Where the time went: the slowest files (a CI run must stay well under 30 minutes).
  log "slowest tap files:"
  sed -nE 's/^(not )?ok [0-9]+ - (.*) # time=([0-9.]+)ms$/\3 \2/p' "$out" | sort -rn | head -8 |
    awk '{ printf "  %6.1f s  %s\n", $1 / 1000, $2 }' >&2
  log "tap: $p passed, $f failed (exit $rc)"
  passed=$((passed + p)); failed=$((failed + f))
  rm -f "$out"
}

# Test databases (test/helpers/db.ts: cd_t_<pid>_…) whose process is gone: a
# test file killed mid-run (timeout, SIGKILL) could not drop its own.
drop_orphan_test_databases() {
  local name pid
  psql_admin -Atc "select datname from pg_database where datname ~ '^cd_t_[0-9]+_'" 2>/dev/null | while read -r name; do
    pid="${name#cd_t_}"; pid="${pid%%_*}"
    kill -0 "$pid" 2>/dev/null || drop_db "$name"
  done
}

run_sources() {
  log "== function sources"
  if bash "$ROOT/scripts/function-sources.sh"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

run_typecheck() {
  log "== typecheck (tsc --noEmit)"
  if "$ROOT/node_modules/.bin/tsc" --noEmit -p "$ROOT" >&2; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

run_parity() {
  log "== schema parity"
  if bash "$ROOT/scripts/parity.sh"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

case "$what" in
  all) build_template || exit 1; run_sql; run_sql_fallback; run_ts; run_typecheck; run_parity; run_sources ;;
  sql) build_template || exit 1; run_sql "$@"
    # The fallback run re-runs the fence suites on the PL/pgSQL fence; when the
    # template's fence already is PL/pgSQL (no native library: PostgreSQL 16–18
    # in scripts/matrix.sh) the run above was exactly that.
    if [ $# -eq 0 ]; then
      if [ "$fence_impl" = native ]; then run_sql_fallback
      else log "== fence suites on the PL/pgSQL fallback: already run above (the template's fence is '$fence_impl')"; fi
    fi ;;
  sql-fallback) build_template || exit 1; run_sql_fallback ;;
  ts) build_template || exit 1; run_ts "$@" ;;
  parity) run_parity ;;
  sources) run_sources ;;
  typecheck) run_typecheck ;;
  *) log "usage: scripts/test.sh [all|sql|sql-fallback|ts|parity|sources|typecheck] [files…]"; exit 2 ;;
esac
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
