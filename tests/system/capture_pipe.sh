#!/usr/bin/env bash
# System test of a capture to standard output (issue 36):
# `fabemu run ... --capture-file - | tshark -r -` (or `wireshark -k -i -`).
#
# 1. A two-worker T3E run piped whole into tshark: tshark reads exactly the
#    packets the run's JSON says were captured and written, in time order,
#    stamped with the run's wall-clock start plus emulated time, with the
#    packets' endpoints in the Source and Destination columns; the run's
#    summary is on standard error, nothing else on the pipe.
# 2. Live: a longer run read by `tshark -r - -c 20`, which stops after 20
#    packets while the run still writes. (`-r -` reads the pipe itself;
#    `-i -` would put dumpcap and a temporary file between, which once read
#    nothing under a loaded CI run: not what this test is about.) fabemu stops the capture with a
#    message, finishes the run and exits 0 (no SIGPIPE death, no hang).
# 3. What cannot share standard output is refused before the run (exit 2):
#    --json - with it, and a ring of files (capture.file_mb).
#
#   bash tests/system/capture_pipe.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: capture_pipe.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: capture_pipe.sh FABEMU_BINARY SOURCE_DIR}
command -v tshark >/dev/null || { echo "capture_pipe: tshark is missing (scripts/lib/setup.sh installs it)"; exit 77; }
command -v jq >/dev/null || { echo "capture_pipe: jq is missing (scripts/lib/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/system/lib/capture_time.sh"
lua=$src/pcap-tools/fabemu.lua
spec=$src/topologies/t3e-4x4x4.yaml
fail=0

same() {  # WHAT GOT WANT
  if [[ $2 == "$3" ]]; then
    echo "capture_pipe: ok   $1"
  else
    echo "capture_pipe: FAIL $1: got '$2', expected '$3'"
    fail=1
  fi
}

# tshark reports a Lua error on stderr and carries on without the dissector.
lua_clean() {
  if grep -qi lua "$1"; then
    cat "$1"
    echo "capture_pipe: FAIL the dissector did not load or run cleanly"
    fail=1
  fi
}

############################################################ 1. a pipe ###

before=$(date +%s.%N)
"$fabemu" run "$spec" --set run.workers=2 --set run.warmup_ns=1000 --set run.measure_ns=5000 \
  --json "$tmp/run.json" --capture all --capture-file - 2>"$tmp/run.err" |
  tshark -r - -X "lua_script:$lua" -T fields -e fabemu.time_ps -e frame.time_epoch \
    -e _ws.col.Source -e _ws.col.Destination -e fabemu.src -e fabemu.dst \
    >"$tmp/pipe.tsv" 2>"$tmp/tshark.err" || true
status=("${PIPESTATUS[@]}")
after=$(date +%s.%N)
same "fabemu and tshark exit 0" "${status[*]}" "0 0"
lua_clean "$tmp/tshark.err"
written=$(jq '.capture.written' "$tmp/run.json")
same "the run captured and wrote every record" "$(jq '.capture.records' "$tmp/run.json")" "$written"
((written > 1000)) || { echo "capture_pipe: FAIL only $written packets captured"; fail=1; }
same "tshark read the packets the run wrote" "$(wc -l <"$tmp/pipe.tsv")" "$written"
same "packets earlier than the one before them" "$(out_of_time_order "$tmp/pipe.tsv" 1)" 0
same "packets whose Source and Destination columns are not their endpoints" \
  "$(awk -F'\t' '$3 != "ep" $5 || $4 != "ep" $6' "$tmp/pipe.tsv" | wc -l)" 0
same "timestamps are one start plus emulated time" "$(off_start "$tmp/pipe.tsv" 2 1)" 0
same "the start is the run's, by the wall clock" \
  "$(start_between "$tmp/pipe.tsv" 2 1 "$before" "$after")" 1
grep -qE "^capture +$written packets and frames on 512 interface\(s\) in standard output" "$tmp/run.err" &&
  grep -qE "^fabric +t3e 4x4x4" "$tmp/run.err" && echo "capture_pipe: ok   the summary is on standard error" ||
  { cat "$tmp/run.err"; echo "capture_pipe: FAIL the summary is not on standard error"; fail=1; }

########################################################### 2. live ###

# About 10 MB of records; tshark is gone after 20 packets, long before.
timeout 600 "$fabemu" run "$spec" --set run.measure_ns=100000 --json "$tmp/live.json" \
  --capture all --capture-file - 2>"$tmp/live.err" |
  timeout 600 tshark -r - -c 20 -X "lua_script:$lua" -T fields -e fabemu.time_ps -e _ws.col.Source \
    >"$tmp/live.tsv" 2>"$tmp/tshark.err" || true
status=("${PIPESTATUS[@]}")
same "fabemu exits 0 after its reader went away, tshark after 20 packets" "${status[*]}" "0 0"
lua_clean "$tmp/tshark.err"
same "tshark read 20 packets live" "$(grep -c $'\tep' "$tmp/live.tsv" || true)" 20
grep -q $'\tep' "$tmp/live.tsv" || { head -5 "$tmp/live.tsv"; cat "$tmp/tshark.err"; }
grep -qE '^\[fabemu\] the capture stopped after [0-9]+ packets and frames: the reader of standard output went away \(broken pipe\); the run goes on$' \
  "$tmp/live.err" && echo "capture_pipe: ok   fabemu said the capture stopped" ||
  { cat "$tmp/live.err"; echo "capture_pipe: FAIL no message that the capture stopped"; fail=1; }
grep -qE '^capture .*then its reader closed the pipe' "$tmp/live.err" &&
  echo "capture_pipe: ok   the summary says so" ||
  { echo "capture_pipe: FAIL the summary's capture line does not say the reader went away"; fail=1; }
same "the run went on: more captured than written, the error in the report" \
  "$(jq '.capture.records > .capture.written and (.capture.error | test("went away"))' "$tmp/live.json")" true

###################################################### 3. refused ###

refused() {  # TEXT ARGS...: exit 2, TEXT on stderr, nothing on stdout
  local text=$1 st=0
  shift
  "$fabemu" run "$spec" "$@" >"$tmp/out" 2>"$tmp/err" || st=$?
  if [[ $st == 2 ]] && grep -qF -- "$text" "$tmp/err" && [[ ! -s $tmp/out ]]; then
    echo "capture_pipe: ok   refused: $*"
  else
    cat "$tmp/err"
    echo "capture_pipe: FAIL $* (exit $st, want 2 and '$text')"
    fail=1
  fi
}
refused "--json - and --capture-file - both go to standard output" \
  --json - --capture all --capture-file -
refused "capture.file_mb: a capture to standard output is one stream" \
  --set capture.file_mb=1 --capture all --capture-file -

exit $fail
