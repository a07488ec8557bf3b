#!/usr/bin/env bash
# The committed docs/figures are what the current code measures: each
# series' lowest load of the four sweeps (flattened butterfly Figures 4a,
# 4b, 6a, 6b) is run again and its figures compared with the committed
# points, exactly (virtual time is deterministic; only the host's wall_s may
# differ). When this fails after a change meant to move the figures, rerun
# scripts/figures.sh and commit docs/figures (docs/figures.md). The full
# check of every point is `scripts/figures.sh --check` (minutes).
# Usage: figures_rerun.sh FABEMU_BINARY SOURCE_DIR  (about 20 s)
set -euo pipefail
fabemu=${1:?usage: figures_rerun.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: figures_rerun.sh FABEMU_BINARY SOURCE_DIR}
bash "$src/scripts/figures.sh" --check --sample --fabemu "$fabemu"
