#!/usr/bin/env bash
# Parity check: a database built from the migrations and one built from
# schema.sql (or the file given as $1) must have identical catalogs and
# identical configuration data (scripts/config-data.sql), and schema.sql must
# equal a fresh rendering of the migrations (render_schema; not stale).
# The migrations' database is cloned from $DELETIONS_MIGRATED_TEMPLATE when set
# (scripts/lib.sh migrated_db). Exit 0 on parity, 1 on any difference
# (printed), 2 on setup failure.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
schema_file="${1:-$ROOT/schema.sql}"
a="cd_parity_mig_$$" b="cd_parity_sql_$$"
work="$(mktemp -d)"
trap 'drop_db "$a"; drop_db "$b"; rm -rf "$work"' EXIT

[ -s "$schema_file" ] || { echo "parity: $schema_file is missing or empty" >&2; exit 2; }
migrated_db "$a" || { echo "parity: migrations failed to apply" >&2; exit 2; }
drop_db "$b"
psql_admin -c "create database \"$b\"" >/dev/null
if ! psql -X -q -v ON_ERROR_STOP=1 -d "$b" -f "$schema_file" >"$work/load.log" 2>&1; then
  echo "parity: FAIL — $schema_file does not load:" >&2; tail -5 "$work/load.log" >&2; exit 1
fi
psql -X -q -v ON_ERROR_STOP=1 -d "$a" -f "$ROOT/scripts/catalog-snapshot.sql" >"$work/migrations.txt" || exit 2
psql -X -q -v ON_ERROR_STOP=1 -d "$b" -f "$ROOT/scripts/catalog-snapshot.sql" >"$work/schema.txt" || exit 2
[ -s "$work/migrations.txt" ] || { echo "parity: empty catalog snapshot" >&2; exit 2; }
status=0
if ! diff -u --label migrations --label "$(basename "$schema_file")" "$work/migrations.txt" "$work/schema.txt" >"$work/catalog.diff"; then
  echo "parity: FAIL — catalogs differ (- migrations, + $(basename "$schema_file")):" >&2
  grep -E '^[-+][^-+]' "$work/catalog.diff" | head -40 >&2
  status=1
fi
psql -X -At -v ON_ERROR_STOP=1 -d "$a" -f "$ROOT/scripts/config-data.sql" >"$work/migrations-data.txt" || exit 2
psql -X -At -v ON_ERROR_STOP=1 -d "$b" -f "$ROOT/scripts/config-data.sql" >"$work/schema-data.txt" || exit 2
[ -s "$work/migrations-data.txt" ] || { echo "parity: the migrations left no configuration data" >&2; exit 2; }
if ! diff -u --label migrations --label "$(basename "$schema_file")" "$work/migrations-data.txt" "$work/schema-data.txt" >"$work/data.diff"; then
  echo "parity: FAIL — configuration data differs (- migrations, + $(basename "$schema_file")):" >&2
  grep -E '^[-+][^-+]' "$work/data.diff" | head -40 >&2
  status=1
fi
render_schema "$a" >"$work/fresh.sql" || exit 2
if ! diff -q "$work/fresh.sql" "$schema_file" >/dev/null; then
  echo "parity: FAIL — $(basename "$schema_file") is stale; run: npm run schema:dump" >&2
  diff -u "$schema_file" "$work/fresh.sql" | grep -E '^[-+][^-+]' | head -20 >&2
  status=1
fi
[ "$status" = 0 ] && echo "parity: OK ($(wc -l <"$work/migrations.txt") catalog facts and $(wc -l <"$work/migrations-data.txt") configuration rows identical, schema.sql current)"
exit "$status"
