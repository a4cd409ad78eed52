#!/usr/bin/env bash
# Parley as a cluster on loopback (docs/scaling.md): a fresh database on the existing PostgreSQL,
# three instances (ports 4801-4803), nginx on 4800 with deploy/nginx.conf, the fake upstream;
# bounded load with one instance kill -9'd and restarted mid-load; then every turn is checked.
#
#   scripts/cluster.sh            full run (60 s of load, 16 clients)
#   scripts/cluster.sh --short    CI's run (20 s, 8 clients), well under 2 minutes
#
# Needs: a build (dist/), nginx on PATH (Debian: apt-get install nginx), PostgreSQL reachable at
# PGHOST/PGPORT as PGUSER (default 127.0.0.1:5432, postgres). CLUSTER_* variables override the
# load settings (see scripts/cluster/run.js). Exit code 1 on any lost or duplicated turn, broken
# thread, or error other than the killed instance's in-flight calls.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--short" ]; then
  export CLUSTER_DURATION_S=${CLUSTER_DURATION_S:-20} CLUSTER_CLIENTS=${CLUSTER_CLIENTS:-8} \
    CLUSTER_KILL_AT_S=${CLUSTER_KILL_AT_S:-7} CLUSTER_DOWN_S=${CLUSTER_DOWN_S:-3}
fi
command -v nginx >/dev/null || { echo "cluster.sh: nginx is not installed (Debian: apt-get install nginx)" >&2; exit 2; }
[ -f dist/main.js ] || npm run build

PGHOST=${PGHOST:-127.0.0.1}
PGPORT=${PGPORT:-5432}
PGUSER=${PGUSER:-postgres}
export PGHOST PGPORT PGUSER
db="parley_cluster_$(date +%s)_$$"
createdb "$db"
trap 'dropdb --if-exists "$db" || true' EXIT
DATABASE_URL="postgres://$PGUSER@$PGHOST:$PGPORT/$db" node scripts/cluster/run.js
