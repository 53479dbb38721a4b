#!/usr/bin/env bash
# A throwaway PostgreSQL on loopback for the tests, the loopback cluster and the bench.
#   eval "$(plugins/postgres-store/scripts/test-server.sh start)"   # prints the exports below
#   plugins/postgres-store/scripts/test-server.sh stop               # stops it and removes its files
# Debian's PostgreSQL (initdb, pg_ctl on the PATH, or under /usr/lib/postgresql/*/bin). It refuses to run as
# root: as root it runs as the `postgres` user (created with useradd --system when missing). The data directory
# is a fresh temporary one; fsync is off (test data only). Prints:
#   PRO_CONTEXT_TEST_DATABASE_URL=postgres://pro_context:<random password>@127.0.0.1:<port>/pro_context
#   PRO_CONTEXT_TEST_PG_DIR=<its directory>
set -euo pipefail
state_file="${PRO_CONTEXT_TEST_PG_STATE:-${TMPDIR:-/tmp}/pro-context-test-pg.state}"

pg_bin() {
  if command -v initdb >/dev/null 2>&1; then dirname "$(readlink -f "$(command -v initdb)")"; return; fi
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$found" ] || { echo "test-server.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
  echo "$found"
}

as_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$pg_user" -- "$@"; else "$@"; fi
}

start() {
  local bin dir port password
  bin=$(pg_bin)
  pg_user=$(id -un)
  if [ "$(id -u)" = 0 ]; then
    pg_user=postgres
    id -u "$pg_user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$pg_user"
  fi
  dir=$(mktemp -d "${TMPDIR:-/tmp}/pro-context-pg.XXXXXX")
  chmod 755 "$dir"
  password=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')
  printf '%s\n' "$password" > "$dir/pwfile"
  chown -R "$pg_user" "$dir"
  as_user "$bin/initdb" -D "$dir/data" -U pro_context --pwfile="$dir/pwfile" -A scram-sha-256 -E UTF8 \
    --no-sync >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
  rm -f "$dir/pwfile"
  port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
  as_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start -o \
    "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c shared_buffers=64MB" \
    >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
  PGPASSWORD="$password" "$bin/createdb" -h 127.0.0.1 -p "$port" -U pro_context pro_context
  printf 'bin=%s\ndir=%s\nuser=%s\n' "$bin" "$dir" "$pg_user" > "$state_file"
  echo "export PRO_CONTEXT_TEST_DATABASE_URL=postgres://pro_context:$password@127.0.0.1:$port/pro_context"
  echo "export PRO_CONTEXT_TEST_PG_DIR=$dir"
}

stop() {
  [ -f "$state_file" ] || return 0
  local bin dir
  bin=$(sed -n 's/^bin=//p' "$state_file")
  dir=$(sed -n 's/^dir=//p' "$state_file")
  pg_user=$(sed -n 's/^user=//p' "$state_file")
  as_user "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir" "$state_file"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
