#!/usr/bin/env bash
# A new user's first steps, scripted: a fresh clone of the committed HEAD in a temporary folder
# with nothing beside it (no ../shared), `npm ci`, `npm start` serves the app, and the README's test
# command, `npm test`, passes there: the whole suite. Tests that need the full data beside the repo skip with
# a one-line reason here; .ci/run runs those files in the checkout as well (scripts/shared-data-tests.sh).
# Every step is bounded by `timeout`, so a hang ends the check with a message naming the step.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/sql-verdict-fresh-XXXXXX")"
server=""
cleanup() {
  if [ -n "$server" ]; then kill -- "-$server" 2>/dev/null || kill "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# A TERM (from .ci/run's timeout) still runs cleanup: the preview server is in its own process group.
trap 'exit 143' TERM INT
step() {
  local limit="$1" name="$2"
  shift 2
  local status=0
  timeout --kill-after=10s "$limit" "$@" || status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then echo "fresh-clone-check: $name did not finish within $limit" >&2; fi
  return "$status"
}

git clone -q "$repo" "$work/sql-verdict"
cd "$work/sql-verdict"
unset SPIDER_DEV_DIR DUCKDB_SQLLOGICTEST_DIR
if [ -e ../shared ]; then echo "fresh-clone-check: $work/shared exists; the check needs nothing beside the clone" >&2; exit 1; fi

echo "fresh-clone-check: npm ci in $work/sql-verdict"
step 10m "npm ci" npm ci --no-audit --no-fund --prefer-offline >"$work/npm-ci.log" 2>&1 || { cat "$work/npm-ci.log"; exit 1; }

# npm start = vite build && vite preview on 4173; a free port instead, so a running dev server does not clash.
port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
set -m
npm start -- --port "$port" >"$work/start.log" 2>&1 &
server=$!
set +m
for _ in $(seq 1 240); do
  if timeout 10 node -e 'fetch(process.argv[1]).then(async (r) => { if (!r.ok) process.exit(1); require("fs").writeFileSync(process.argv[2], await r.text()); }, () => process.exit(1))' "http://localhost:$port/" "$work/index.html" 2>/dev/null; then break; fi
  sleep 1
done
grep -q '<div id="app"' "$work/index.html" || { echo "fresh-clone-check: npm start did not serve the app"; cat "$work/start.log"; exit 1; }
echo "fresh-clone-check: npm start serves the app on port $port"

step 1m "sql-verdict --version" node bin/sql-verdict.mjs --version
# The preview server is stopped before the suite: the browser tests start their own.
kill -- "-$server" 2>/dev/null || kill "$server" 2>/dev/null || true
server=""
echo "fresh-clone-check: npm test in $work/sql-verdict (no ../shared)"
CI=true step "${FRESH_CLONE_TEST_LIMIT:-55m}" "npm test" npm test
echo "fresh-clone-check: passed"
