#!/usr/bin/env bash
# Runs every bash block of README.md that calls the API, verbatim, against a fresh server started
# the way the README says (embedded database, first-start keys), and fails if any request fails.
# Needs `npm run build` first; uses port 3000 as the README does.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
DATA_DIR="$work/data" PORT=3000 node dist/main.js >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT

for _ in $(seq 1 60); do
  curl -sf http://localhost:3000/ready >/dev/null 2>&1 && break
  sleep 0.5
done
curl -sf http://localhost:3000/ready >/dev/null || { cat "$work/server.log"; echo "server did not start"; exit 1; }

# The keys exactly as the first start printed them.
eval "$(grep -E '^\s+export PARLEY_(KEY|ADMIN_KEY)=' "$work/server.log")"
export PARLEY_KEY PARLEY_ADMIN_KEY

# Every ```bash block that mentions curl, in README order, as one script (```sh blocks show
# failures on purpose and are not run).
node -e '
  const text = require("fs").readFileSync("README.md", "utf8");
  const blocks = [...text.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]).filter((b) => b.includes("curl "));
  process.stdout.write(blocks.join("\n"));
' >"$work/readme.sh"

# curl as written, but a non-2xx answer fails the run (the README text itself is unchanged).
cat >"$work/prelude.sh" <<'PRELUDE'
set -euo pipefail
curl() { command curl --fail-with-body "$@"; }
PRELUDE
bash -c "source '$work/prelude.sh'; source '$work/readme.sh'" >"$work/out.txt" 2>&1 || {
  cat "$work/out.txt"; echo; echo "README check failed"; exit 1;
}
echo "README check: $(grep -c 'curl ' "$work/readme.sh") curl lines ran verbatim and succeeded"
