#!/usr/bin/env bash
# Regenerates schema.sql from a scratch database built by the migrations.
# pg_dump must be the server's major version; a fixed --restrict-key keeps the
# output stable; the dump goes to a temp file first so a failure never leaves a
# truncated schema.sql behind.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out="${1:-$ROOT/schema.sql}"
name="cd_dump_$$"
trap 'drop_db "$name"' EXIT
build_from_migrations "$name"
tmp="$(mktemp "${out}.XXXXXX")"
pg_dump --schema-only --restrict-key=communitydeletion \
  --exclude-schema=graphile_migrate -d "$(db_url "$name")" > "$tmp"
mv "$tmp" "$out"
echo "wrote $out" >&2
