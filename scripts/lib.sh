# Shared shell helpers for the test, dump and parity scripts.
# PostgreSQL connection: PGHOST/PGPORT/PGUSER (default 127.0.0.1:5432 postgres).
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GM="$ROOT/node_modules/.bin/graphile-migrate"

db_url() { printf 'postgres://%s@%s:%s/%s' "$PGUSER" "$PGHOST" "$PGPORT" "$1"; }

psql_admin() { psql -X -q -v ON_ERROR_STOP=1 -d postgres "$@"; }

drop_db() { psql_admin -c "drop database if exists \"$1\" with (force)" >/dev/null 2>&1 || true; }

# current.sql holds work not yet committed as a migration; it counts only if it
# has something besides comments and blank lines (a "--!include" line is
# content: graphile-migrate expands it).
current_sql_has_content() {
  # (No `| grep -q`: under pipefail its early exit would SIGPIPE the first
  # grep on a long file and read as "empty".)
  [ -f "$ROOT/db/migrations/current.sql" ] &&
    [ -n "$(grep -v -E '^\s*(--([^!].*)?)?$' "$ROOT/db/migrations/current.sql")" ]
}

# Build database $1 from the migrations (committed, then current.sql if any).
build_from_migrations() {
  local name="$1"
  drop_db "$name"
  psql_admin -c "create database \"$name\"" >/dev/null
  (cd "$ROOT" && DATABASE_URL="$(db_url "$name")" "$GM" migrate >/dev/null) || return 1
  if current_sql_has_content; then
    (cd "$ROOT" && DATABASE_URL="$(db_url "$name")" "$GM" watch --once >/dev/null) || return 1
  fi
}
