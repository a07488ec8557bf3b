#!/usr/bin/env bash
# The main job: install what is missing, build, and emulate a fabric under
# synthetic load in virtual time (by default a Cray T3E 4x4x4 torus), then
# print the run's summary.
#
#   scripts/run.sh [FILE] [fabemu run options...]
#   scripts/run.sh topologies/yarc-r2-1024.yaml --set traffic.load=0.6 --json out/run.json
#   scripts/run.sh --set traffic.load=0.5          # default file, extra options
set -euo pipefail
# shellcheck source=scripts/lib/setup.sh
source "$(dirname "$0")/lib/setup.sh"

spec=$FABEMU_ROOT/topologies/t3e-4x4x4.yaml
if [[ $# -gt 0 && $1 != -* ]]; then
  spec=$1
  shift
fi

fabemu_install_packages
# The run needs the fabemu binary alone: the tests and benchmarks are
# scripts/test.sh's to build.
if [[ ! -x $FABEMU_BUILD/fabemu ]]; then
  echo "run.sh: first build of fabemu (the binary only, not the tests): about" \
    "5 minutes on 2 cores; later runs rebuild only what changed" >&2
fi
# shellcheck disable=SC2119  # no extra cmake arguments for a plain run
FABEMU_TARGETS=fabemu fabemu_build
exec "$FABEMU_BUILD/fabemu" run "$spec" "$@"
