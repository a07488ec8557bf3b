#!/usr/bin/env bash
# System test: where a run's workers go (issue 12 item 3). Without run.cores
# a worker may run on every CPU the process is allowed (so two runs on one
# machine do not both sit on CPU 0); run.cores pins each worker to its CPU;
# taskset narrows both; a CPU the process may not use is refused.
# Reads the worker thread's affinity from /proc while the run lasts and
# from the JSON report.
#
#   bash tests/system/placement.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: placement.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: placement.sh FABEMU_BINARY SOURCE_DIR}
command -v jq >/dev/null || { echo "placement: jq is missing (scripts/lib/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "placement: $*"; exit 1; }

allowed=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)
last=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | tail -1 | sed 's/.*-//')
topo="$src/topologies/t3e-4x4x4.yaml"
# A light real-time run that lasts long enough to look at (worker 0 is the
# main thread, so its affinity is the process's main task's).
light=(--set run.mode=realtime --set run.time_scale=1000 --set traffic.load=0.01
       --set run.duration_s=1.5 --set run.progress_s=0 --quiet)

# $1: expected list; the rest: the command's prefix (e.g. taskset -c 1) and options.
check() {
  local want=$1; shift
  "$@" --json "$tmp/r.json" &
  local pid=$!
  sleep 1
  local seen
  seen=$(awk '/^Cpus_allowed_list/ {print $2}' "/proc/$pid/task/$pid/status")
  wait "$pid" || fail "run failed: $*"
  [[ $seen == "$want" ]] || fail "worker 0 allowed CPUs '$seen', want '$want' ($*)"
  local reported
  reported=$(jq -r '.performance.workers[0].cpus' "$tmp/r.json")
  [[ $reported == "$want" ]] || fail "report says worker 0 had CPUs '$reported', want '$want'"
  echo "placement: worker 0 on CPUs $seen: $*"
}

check "$allowed" "$fabemu" run "$topo" "${light[@]}"
check "$last" "$fabemu" run "$topo" "${light[@]}" --set "run.cores=[$last]"
check "$last" taskset -c "$last" "$fabemu" run "$topo" "${light[@]}"

# A CPU outside the allowed set is refused before anything runs.
if [[ $last -gt 0 ]]; then
  status=0
  taskset -c 0 "$fabemu" run "$topo" "${light[@]}" --set "run.cores=[$last]" 2>"$tmp/err.txt" || status=$?
  [[ $status -ne 0 ]] || fail "run.cores=[$last] under taskset -c 0 was accepted"
  grep -q "may not use" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "no reason given"; }
  echo "placement: refused: $(head -1 "$tmp/err.txt")"
fi
# One CPU per worker.
status=0
"$fabemu" check "$topo" --set run.workers=1 --set 'run.cores=[0, 1]' 2>"$tmp/err.txt" || status=$?
[[ $status -eq 2 ]] || fail "two cores for one worker: exit status $status, want 2"
echo "placement: refused: $(head -1 "$tmp/err.txt")"

# An EAL argument that only prints must not make a run that did not run exit 0.
status=0
"$fabemu" run "$topo" --quiet --eal --help >"$tmp/out.txt" 2>"$tmp/err.txt" || status=$?
[[ $status -ne 0 ]] || fail "run --eal --help exited 0"
echo "placement: run --eal --help: exit status $status: $(tail -1 "$tmp/err.txt")"
