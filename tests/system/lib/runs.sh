# Sourced by the system tests that start fabemu runs in the background:
# `pids+=("$pid")` for each, and at exit every one still running is killed
# and what a killed run leaves (its DPDK runtime folder) removed, with the
# test's folder $tmp.

# need TEST TOOL...: skip the test (exit 77) when a tool is missing.
need() {
  local t=$1 tool
  shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$t: $tool is missing (scripts/lib/setup.sh installs it)"; exit 77; }
  done
}

pids=()
cleanup_runs() {
  for p in "${pids[@]}"; do
    kill -9 "$p" 2>/dev/null || true
    rm -rf "/var/run/dpdk/fabemu_$p"
  done
  rm -rf "$tmp"
}
trap cleanup_runs EXIT

# no_leftovers TEST WHAT PID: the run PID left no DPDK runtime folder.
no_leftovers() {
  if [[ -e /var/run/dpdk/fabemu_$3 ]]; then
    echo "$1: $2: /var/run/dpdk/fabemu_$3 left behind"; exit 1
  fi
}
