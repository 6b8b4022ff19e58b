#!/usr/bin/env bash
# Regenerates schema.sql from a scratch database built by the migrations
# (render_schema in lib.sh: roles, catalog, configuration data). The output
# goes to a temp file first so a failure never leaves a truncated schema.sql
# behind.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out="${1:-$ROOT/schema.sql}"
name="cd_dump_$$"
trap 'drop_db "$name"' EXIT
build_from_migrations "$name"
tmp="$(mktemp "${out}.XXXXXX")"
render_schema "$name" > "$tmp" || { rm -f "$tmp"; exit 1; }
mv "$tmp" "$out"
echo "wrote $out" >&2
