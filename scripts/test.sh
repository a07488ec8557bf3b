#!/usr/bin/env bash
# Install what is missing, build with warnings as errors, run every test
# (GoogleTest units and the system scripts) through ctest. The exit status
# is ctest's. Extra arguments go to ctest, e.g. scripts/test.sh -R Spec.
set -euo pipefail
# shellcheck source=scripts/lib/setup.sh
source "$(dirname "$0")/lib/setup.sh"

fabemu_install_packages
fabemu_build -DFABEMU_WERROR=ON
exec ctest --test-dir "$FABEMU_BUILD" --output-on-failure -j2 "$@"
