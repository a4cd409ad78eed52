#!/usr/bin/env bash
# Writes package-lock.json anew from package.json and the current lock in an empty folder, so that
# npm resolves every platform's optional builds from the registry instead of from this machine's
# node_modules (with node_modules present, npm locks only the builds installed here: npm/cli#4828).
# Versions already locked stay as they are. Run it after `npm install <package>` (README "Dependencies").
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp package.json package-lock.json "$work/"
[ -f .npmrc ] && cp .npmrc "$work/"
(cd "$work" && npm install --package-lock-only --ignore-scripts --no-audit --no-fund >/dev/null)
cp "$work/package-lock.json" package-lock.json
node scripts/check-lock.js
