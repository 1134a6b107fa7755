#!/usr/bin/env bash
# A new user's first steps, scripted: a fresh clone of the committed HEAD in a temporary folder
# with nothing beside it (no ../shared), `npm ci`, `npm start` serves the app, and the tests that
# once needed ../shared/data/spider-dev pass or skip with their reason. A representative subset:
# the test files that read Spider data or DuckDB's test files, plus the CLI smoke, not the whole `npm test` (which
# .ci/run has just run in the real checkout).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/sql-verdict-fresh-XXXXXX")"
server=""
cleanup() {
  if [ -n "$server" ]; then kill -- "-$server" 2>/dev/null || kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

git clone -q "$repo" "$work/sql-verdict"
cd "$work/sql-verdict"
unset SPIDER_DEV_DIR
if [ -e ../shared ]; then echo "fresh-clone-check: $work/shared exists; the check needs nothing beside the clone" >&2; exit 1; fi

echo "fresh-clone-check: npm ci in $work/sql-verdict"
npm ci --no-audit --no-fund --prefer-offline >"$work/npm-ci.log" 2>&1 || { cat "$work/npm-ci.log"; exit 1; }

# npm start = vite build && vite preview on 4173; a free port instead, so a running dev server does not clash.
port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
set -m
npm start -- --port "$port" >"$work/start.log" 2>&1 &
server=$!
set +m
for _ in $(seq 1 240); do
  if node -e 'fetch(process.argv[1]).then(async (r) => { if (!r.ok) process.exit(1); require("fs").writeFileSync(process.argv[2], await r.text()); }, () => process.exit(1))' "http://localhost:$port/" "$work/index.html" 2>/dev/null; then break; fi
  sleep 1
done
grep -q '<div id="app"' "$work/index.html" || { echo "fresh-clone-check: npm start did not serve the app"; cat "$work/start.log"; exit 1; }
echo "fresh-clone-check: npm start serves the app on port $port"

node bin/sql-verdict.mjs --version
CI=true npx vitest run --testTimeout=180000 \
  tests/structure/hardness.test.ts tests/structure/corpus-invariants.test.ts tests/structure/rules-execute.test.ts \
  tests/engines/fixture-formats.test.ts tests/pipeline/evaluate.test.ts \
  tests/cli/judge-cli.test.ts tests/cli/run-gate.test.ts tests/cli/query.test.ts \
  tests/cli/spider-official.test.ts tests/engines/duckdb-conformance.test.ts
echo "fresh-clone-check: passed"
