#!/usr/bin/env bash
# System test: multi-packet messages and Ethernet frames under load give
# exactly the recorded reports (every section equal, not within 1%): the
# T3E torus, the rank-2 Clos on the YARC tiled router and the flattened
# butterfly with UGAL, with replayed hosts and link-level retry
# (tests/golden/exact_runs.py says how and when to re-record). About 10 s.
#
#   bash tests/system/exact_golden.sh FABEMU_BINARY SOURCE_DIR
set -uo pipefail

fabemu=${1:?usage: exact_golden.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: exact_golden.sh FABEMU_BINARY SOURCE_DIR}

python3 "$src/tests/golden/exact_runs.py" --fabemu "$fabemu" --src "$src" \
  --check "$src/tests/golden/exact_reports.json"
