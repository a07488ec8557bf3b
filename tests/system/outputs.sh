#!/usr/bin/env bash
# System test: where `run` and `describe` write is checked before they work,
# and a write that fails is an error. A --json or capture file in a folder
# that does not exist, or that is a folder, is refused at once (exit 2, the
# path and the system's reason, nothing run); a JSON report that cannot be
# written (/dev/full: a full disk) fails the command (exit 1, said), where
# it used to exit 0 with nothing written.
#
#   bash tests/system/outputs.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: outputs.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: outputs.sh FABEMU_BINARY SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
spec=$src/topologies/t3e-4x4x4.yaml

# expect STATUS TEXT COMMAND...: the exit status, TEXT on stderr; with
# status 2 nothing on stdout (no run, no summary).
expect() {
  local want=$1 text=$2 status=0
  shift 2
  "$fabemu" "$@" >"$tmp/out.txt" 2>"$tmp/err.txt" || status=$?
  if [[ $status -ne $want ]] || { [[ -n $text ]] && ! grep -qF -- "$text" "$tmp/err.txt"; } ||
     { [[ $want -eq 2 ]] && [[ -s $tmp/out.txt ]]; }; then
    echo "outputs: FAIL $* (exit $status, want $want and '$text'):"; cat "$tmp/err.txt"; exit 1
  fi
  echo "outputs: ok   $* (exit $status)"
}

expect 2 "--json /nonexistent/x.json: the directory /nonexistent does not exist (No such file or directory)" \
  run "$spec" --json /nonexistent/x.json
expect 2 "--json $tmp: is a directory" run "$spec" --json "$tmp"
expect 2 "--capture-file /nonexistent/c.pcapng: the directory /nonexistent does not exist" \
  run "$spec" --capture all --capture-file /nonexistent/c.pcapng
expect 1 "cannot write the JSON report: /dev/full: No space left on device" \
  run "$spec" --quiet --json /dev/full
expect 2 "--json /nonexistent/x.json: the directory /nonexistent does not exist" \
  describe "$spec" --json /nonexistent/x.json
expect 1 "/dev/full: No space left on device" describe "$spec" --json /dev/full
# What can be written is; and no --json is no problem.
expect 0 "" run "$spec" --quiet --json "$tmp/r.json"
expect 0 "" describe "$spec"
expect 0 "" analyze cost --sizes 1K
[[ -s $tmp/r.json ]] || { echo "outputs: no report written"; exit 1; }
[[ -z $(find "$tmp" -name '.*partial*') ]] || { echo "outputs: a temporary file was left"; exit 1; }
echo "outputs: all checks passed"
