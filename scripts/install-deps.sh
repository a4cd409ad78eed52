#!/usr/bin/env bash
# Installs exactly what package-lock.json pins. `npm ci` is tried first; the registry mirror this
# project is built against serves only the Linux builds of some optional platform packages (for
# example jest's resolver bindings), so the lock cannot list the other platforms' builds and
# `npm ci` may refuse it as incomplete. `npm install` then installs the same locked versions and
# only fills in what the lock could not list.
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! npm ci --no-audit --no-fund "$@" >"$log" 2>&1; then
  echo "npm ci refused the lock file ($(grep -m1 -o 'Missing: [^ ]*' "$log" || echo 'see npm ci'));" \
    "installing the locked versions with npm install" >&2
  npm install --no-audit --no-fund "$@"
else
  cat "$log"
fi
