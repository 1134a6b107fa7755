#!/usr/bin/env bash
# The test files that read data beside the repository (../shared: the full Spider dev data, DuckDB's
# sqllogictests). On a fresh clone they run their shipped-subset part and skip the rest with a one-line
# reason; .ci/run runs them once more in the checkout, where ../shared exists, for the full-data part.
# Found by what they use (tests/helpers/paths.ts, tests/helpers/spider-layout.ts, tests/structure/helpers.ts),
# so a new such file is picked up without editing a list.
set -euo pipefail
cd "$(dirname "$0")/.."
grep -rlE "fullSpiderDir|FULL_SPIDER_SKIP|\.\./shared|spider-layout|spiderDataSets|describeSpider" tests --include='*.test.ts' | sort
