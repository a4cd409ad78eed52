#!/usr/bin/env bash
# Runs README.md's examples verbatim against a fresh server started the way the README says, with
# the keys its first start printed, and fails if any of them fails:
#   1. every ```bash block that calls curl or `npm run cli`, in README order, as one script (the
#      ```yaml block headed `# parley.yaml` is written to parley.yaml first; ```sh blocks show
#      failures on purpose and are not run);
#   2. every ```js block, as an ES module (SDK examples: langtail, openai, ...), with node.
# To add an example to the check, add such a block to the README; nothing here needs to change.
# Embedded database by default; with DATABASE_URL (an empty PostgreSQL database) on PostgreSQL.
# Needs `npm run build` first; uses port 3000 as the README does.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# Inside the checkout, so `npm run cli` finds the package and SDK imports find node_modules.
work=$(mktemp -d "$root/.readme-check.XXXXXX")
export DATA_DIR="$work/data"
PORT=3000 node dist/main.js >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$work"' EXIT
engine=${DATABASE_URL:+PostgreSQL}

for _ in $(seq 1 120); do
  curl -sf http://localhost:3000/ready >/dev/null 2>&1 && break
  kill -0 $server 2>/dev/null || break
  sleep 0.5
done
curl -sf http://localhost:3000/ready >/dev/null || { cat "$work/server.log"; echo "server did not start"; exit 1; }

# The keys exactly as the first start printed them.
eval "$(grep -E '^\s+export PARLEY_(KEY|ADMIN_KEY)=' "$work/server.log")"
export PARLEY_KEY PARLEY_ADMIN_KEY

node -e '
  const fs = require("fs");
  const [readme, dir] = process.argv.slice(1);
  const text = fs.readFileSync(readme, "utf8");
  const blocks = (lang) => [...text.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]);
  const yaml = blocks("yaml").find((b) => b.startsWith("# parley.yaml"));
  if (yaml) fs.writeFileSync(dir + "/parley.yaml", yaml);
  fs.writeFileSync(dir + "/readme.sh", blocks("bash").filter((b) => /curl |npm run cli/.test(b)).join("\n"));
  blocks("js").forEach((b, i) => fs.writeFileSync(`${dir}/example-${i + 1}.mjs`, b));
' README.md "$work"

# curl as written, but a non-2xx answer fails the run (the README text itself is unchanged).
cat >"$work/prelude.sh" <<'PRELUDE'
set -euo pipefail
curl() { command curl --fail-with-body "$@"; }
PRELUDE
# In a shell of their own, as a reader would run them: DATABASE_URL, which started the server, is not
# exported there (the CLI finds the server in DATA_DIR/server.json on either engine).
(cd "$work" && env -u DATABASE_URL bash -c "source prelude.sh; source readme.sh") >"$work/out.txt" 2>&1 || {
  cat "$work/out.txt"; echo; echo "README check failed (shell examples)"; exit 1;
}
ran="$(grep -c 'curl ' "$work/readme.sh") curl lines, $(grep -c 'npm run cli' "$work/readme.sh") CLI lines"

for example in "$work"/example-*.mjs; do
  [ -e "$example" ] || continue
  (cd "$work" && node "$example") >"$work/out.txt" 2>&1 || {
    cat "$example" "$work/out.txt"; echo; echo "README check failed ($(basename "$example"))"; exit 1;
  }
  ran="$ran, $(basename "$example")"
done
echo "README check${engine:+ on $engine}: $ran ran verbatim and succeeded"
