#!/usr/bin/env bash
# System test: the engine still produces the golden figures.
#
#   bash tests/system/golden.sh FABEMU_BINARY SOURCE_DIR
#
# Re-runs the fixed list of runs of tests/golden/engine_runs.py (one worker,
# fixed seed) and compares their figures with tests/golden/engine_figures.json,
# recorded before the engine restructure: 1% for the statistical figures
# (beyond saturation: the seed-to-seed spread; credit stalls 3%),
# exact for the zero-load minimum latency, the drained flag, credit
# conservation, exactly-once delivery and zero drops. Takes about a minute.
# Re-record (after an intended change of behaviour) with
#   python3 tests/golden/engine_runs.py --fabemu BIN --src . \
#     --record tests/golden/engine_figures.json
set -uo pipefail

fabemu=${1:?usage: golden.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: golden.sh FABEMU_BINARY SOURCE_DIR}

python3 "$src/tests/golden/engine_runs.py" --fabemu "$fabemu" --src "$src" \
  --check "$src/tests/golden/engine_figures.json"
