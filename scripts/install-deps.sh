#!/usr/bin/env bash
# Installs exactly what package-lock.json pins, with `npm ci`. The lock lists every platform's
# optional builds (scripts/check-lock.js checks it first and names what is missing); a lock that
# lacks some is completed with scripts/complete-lock.sh (README "Dependencies").
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/check-lock.js
npm ci --no-audit --no-fund "$@"
