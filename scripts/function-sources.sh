#!/usr/bin/env bash
# Function-source check: db/functions must be exactly what the migrations
# deployed. An edit to a function file that no migration includes is inert
# (the database keeps the old body) and nothing else would notice.
#
#   scripts/function-sources.sh [FUNCTIONS_DIR [ENGINE_DIR]]
#
# Builds a database from the committed migrations plus current.sql (or clones
# $DELETIONS_MIGRATED_TEMPLATE, scripts/lib.sh migrated_db), then:
#   1. every file FUNCTIONS_DIR/<name>.sql defines exactly one function,
#      community_deletion.<name>, and nothing else;
#   2. every function in schema community_deletion has such a file (except the
#      three that install_write_fence() generates from other sources);
#   3. ENGINE_DIR/functions.sql includes exactly the files of FUNCTIONS_DIR;
#   4. re-running every file in a copy of that database changes no function
#      definition (pg_get_functiondef): the sources equal the deployed code.
# Exit 0 when all hold, 1 on any difference (printed), 2 on setup failure.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
functions_dir="$(cd "${1:-$ROOT/db/functions}" && pwd)"
engine_dir="$(cd "${2:-$ROOT/db/engine}" && pwd)"
db="cd_sources_$$"
work="$(mktemp -d)"
trap 'drop_db "$db"; rm -rf "$work"' EXIT
status=0
fail() { echo "function sources: FAIL — $*" >&2; status=1; }

# Functions install_write_fence() creates (native: LANGUAGE c; otherwise
# copies of _write_fence_plpgsql / _refuse_write_early_plpgsql).
generated='tg_scoped_table__enforce_write_fence tg_scoped_table__refuse_write_early _native_community_lock_key'

# 1. One function per file, named after it: comments, then the one
#    create or replace function, then nothing but comments. One awk pass over
#    every file (a process per file made this check take tens of seconds).
while IFS= read -r problem; do fail "$problem"; done < <(
  awk '
    function verdict() {
      if (file == "") return
      if (defined != 1 || !named)
        printf "%s must define exactly one function, community_deletion.%s (create or replace)\n", base, name
      else if (outside != 0)
        printf "%s holds statements besides its function (put triggers, grants and data in db/engine or a migration)\n", base
    }
    FNR == 1 {
      verdict()
      file = FILENAME; base = FILENAME; sub(/.*\//, "", base); name = base; sub(/\.sql$/, "", name)
      defined = 0; named = 0; outside = 0; inside = 0; after = 0
    }
    tolower($0) ~ /^create[ \t]+(or[ \t]+replace[ \t]+)?function[ \t]/ { defined++ }
    tolower($0) ~ ("^create[ \t]+or[ \t]+replace[ \t]+function[ \t]+community_deletion\\." tolower(name) "[ \t]*\\(") { named = 1 }
    /^create / { inside = 1 }
    !inside && !/^[ \t]*(--.*)?$/ { outside++ }
    inside && /^\$\$;[ \t]*$/ { inside = 0; after = 1; next }
    after && !/^[ \t]*(--.*)?$/ { outside++ }
    END { verdict() }
  ' "$functions_dir"/*.sql)

# 3. The include index lists exactly the files.
diff <(ls "$functions_dir" | grep '\.sql$' | LC_ALL=C sort) \
     <(sed -n 's|^--!include functions/\(.*\.sql\)$|\1|p' "$engine_dir/functions.sql" | LC_ALL=C sort) >"$work/index.diff" ||
  fail "$engine_dir/functions.sql does not list exactly the files of $functions_dir (< files, > index):
$(cat "$work/index.diff")"

migrated_db "$db" || { echo "function sources: migrations failed to apply" >&2; exit 2; }
snapshot() {
  psql -X -At -v ON_ERROR_STOP=1 -d "$db" -c "
    select p.oid::regprocedure::text || ' ' || md5(pg_get_functiondef(p.oid))
      from pg_proc p where p.pronamespace = 'community_deletion'::regnamespace order by 1"
}
snapshot >"$work/deployed.txt" || exit 2

# 2. Every deployed function has its file.
while read -r sig _; do
  name="${sig%%(*}"; name="${name#community_deletion.}"
  case " $generated " in *" $name "*) continue ;; esac
  [ -f "$functions_dir/$name.sql" ] || fail "$sig is deployed but has no source file $functions_dir/$name.sql"
done <"$work/deployed.txt"

# 4. Re-running the sources changes nothing: every file in one psql session
#    (without ON_ERROR_STOP: a file that fails is reported by name and the
#    rest still run; psql prefixes each error with the file's path).
files=("$functions_dir"/*.sql)
psql -X -q -d "$db" -c 'set check_function_bodies = off' "${files[@]/#/--file=}" >"$work/run.log" 2>&1
for f in "${files[@]}"; do
  error="$(grep -m1 -F "psql:$f:" "$work/run.log" | grep -m1 ERROR)"
  [ -z "$error" ] || fail "$(basename "$f") does not apply over the deployed function (an un-migrated signature change?): line ${error#psql:"$f":}"
done
snapshot >"$work/sources.txt" || exit 2
if ! diff "$work/deployed.txt" "$work/sources.txt" >"$work/defs.diff"; then
  changed="$(grep -E '^[<>]' "$work/defs.diff" | awk '{print $2}' | sort -u)"
  fail "these functions differ from what the migrations deployed — include their files in db/migrations/current.sql (then commit the migration):
$(printf '  %s\n' $changed)"
fi
[ "$status" = 0 ] && echo "function sources: OK ($(wc -l <"$work/deployed.txt") deployed functions, every source file matches)"
exit "$status"
