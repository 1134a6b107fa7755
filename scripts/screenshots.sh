#!/usr/bin/env bash
# Regenerates every docs/screenshots/*.png the docs show. The pictures are taken by the browser
# tests that already drive those views (no browser is started just for a picture): with
# UPDATE_SCREENSHOTS=1 they write to docs/screenshots instead of test-results/.
#   scripts/screenshots.sh            all of them (builds first; ~15-25 min on 2 cores)
#   scripts/screenshots.sh analyst    only the files whose name contains "analyst"
# Which file makes which picture:
#   corpus-app.test.ts    home, run, results, case, playground
#   corpus-view.test.ts   corpus
#   gate-panel.test.ts    gate
#   app.test.ts           query
#   stef-page.test.ts     monitor
#   html-report.test.ts   html-report
#   analyst.test.ts       breakdowns, failure-filters, case-text-diff, editor-completion, compare-filters
#   layouts.test.ts       compare, results-dark, results-narrow
set -euo pipefail
cd "$(dirname "$0")/.."
files=(corpus-app corpus-view gate-panel app stef-page html-report analyst layouts)
if [ "$#" -gt 0 ]; then files=("$@"); fi
[ -n "${SKIP_BUILD:-}" ] || npm run build
paths=()
for f in "${files[@]}"; do paths+=("tests/browser/$f.test.ts"); done
# One file at a time: each starts its own browser and grades on two cores.
for p in "${paths[@]}"; do
  UPDATE_SCREENSHOTS=1 npx vitest run "$p"
done
git status --short docs/screenshots
