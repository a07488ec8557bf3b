#!/usr/bin/env bash
# System test: a real-time run that cannot keep up still obeys its user
# (issue 12 item 1). The 4x4x4 torus at load 0.05 and time_scale 1 needs
# about a hundred times this machine's speed, so every run here is behind:
#  - run.duration_s is wall-clock time: a 0.3 s run ends within seconds;
#  - SIGINT ends an endless run within about a second, with its report;
#  - run.overload: stop ends the run with exit status 3 and says so in JSON;
#  - run.overload: shed refuses synthetic messages, counted as shed_overload;
#  - no DPDK runtime folder is left behind.
#
#   bash tests/system/realtime_overload.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: realtime_overload.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: realtime_overload.sh FABEMU_BINARY SOURCE_DIR}
command -v jq >/dev/null || { echo "realtime_overload: jq is missing (scripts/lib/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "realtime_overload: $*"; exit 1; }

common=(--set run.mode=realtime --set run.time_scale=1 --set traffic.load=0.05
        --set run.progress_s=0 --set run.workers=1)
topo="$src/topologies/t3e-4x4x4.yaml"

# 1. Wall-clock duration.
start=$(date +%s.%N)
status=0
"$fabemu" run "$topo" "${common[@]}" --set run.duration_s=0.3 --json "$tmp/d.json" \
  >"$tmp/out.txt" 2>"$tmp/err.txt" || status=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
[[ $status -eq 0 ]] || { cat "$tmp/err.txt"; fail "duration run: exit status $status"; }
(( $(echo "$took < 10" | bc) )) || fail "run.duration_s=0.3 took $took s of wall time"
grep -q "behind the wall clock" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "no overload warning"; }
jq -e '.run.overload.episodes >= 1 and .run.overload.max_behind_ns > 1e6' "$tmp/d.json" >/dev/null ||
  fail "JSON overload: $(jq -c .run.overload "$tmp/d.json")"
# What the sources generated over what they reached, not over the wall clock.
jq -e '.offered_load > 0.04 and .offered_load < 0.06' "$tmp/d.json" >/dev/null ||
  fail "offered load $(jq .offered_load "$tmp/d.json"), want about 0.05"
echo "realtime_overload: duration 0.3 s run ended after $took s wall, $(jq -c .run.overload "$tmp/d.json")"
# Behind the wall clock, the summary says so first, with the share of late
# events and what the worker carried; the report calls the timing unfaithful.
head -n 1 "$tmp/out.txt" | grep -q "^BEHIND     the emulation fell behind the wall clock: [0-9.]*% of events ran later than the 1.00 us bound .* its worker carried about [0-9]* messages/s" ||
  { head -n 3 "$tmp/out.txt"; fail "behind: the summary's first line does not say so"; }
jq -e '.realtime.faithful == false and .realtime.lateness_ns.over_bound_fraction > 0.5 and
       (.realtime.worker_busy | length) == 1 and .realtime.worker_busy[0] > 0.5 and
       .realtime.carried.message_capacity_per_s >= .realtime.carried.messages_per_s and
       .realtime.carried.messages_per_s > 0' "$tmp/d.json" >/dev/null ||
  fail "behind: JSON realtime $(jq -c '.realtime | del(.worker_lateness_ns)' "$tmp/d.json")"
echo "realtime_overload: $(head -n 1 "$tmp/out.txt" | cut -c1-160)..."

# 2. SIGINT on an endless run that is far behind.
"$fabemu" run "$topo" "${common[@]}" --set run.duration_s=0 --json "$tmp/i.json" \
  >"$tmp/out.txt" 2>"$tmp/err.txt" &
pid=$!
sleep 2
kill -s INT "$pid"
start=$(date +%s.%N)
status=0
wait "$pid" || status=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
[[ $status -eq 0 ]] || { cat "$tmp/err.txt"; fail "SIGINT: exit status $status (a real-time run ends on a signal normally)"; }
(( $(echo "$took < 3" | bc) )) || fail "SIGINT took $took s to end the run"
grep -q "^packets" "$tmp/out.txt" || fail "SIGINT: no summary"
jq -e '.delivered_packets > 0' "$tmp/i.json" >/dev/null || fail "SIGINT: nothing delivered in the report"
[[ -e /var/run/dpdk/fabemu_$pid ]] && fail "SIGINT: /var/run/dpdk/fabemu_$pid left behind"
echo "realtime_overload: SIGINT ended the run after $took s"

# 3. run.overload: stop.
status=0
"$fabemu" run "$topo" "${common[@]}" --set run.duration_s=0 --set run.overload=stop \
  --json "$tmp/s.json" >"$tmp/out.txt" 2>"$tmp/err.txt" || status=$?
[[ $status -eq 3 ]] || { cat "$tmp/err.txt"; fail "overload stop: exit status $status, want 3"; }
grep -q "run.overload: stop" "$tmp/err.txt" || fail "overload stop: no message"
jq -e '.run.overload.stopped == true' "$tmp/s.json" >/dev/null || fail "overload stop: JSON not marked"
echo "realtime_overload: run.overload=stop ended the run with status 3 after $(jq .run.end_ns "$tmp/s.json") ns emulated"

# 4. run.overload: shed.
"$fabemu" run "$topo" "${common[@]}" --set run.duration_s=0.3 --set run.overload=shed \
  --json "$tmp/h.json" >"$tmp/out.txt" 2>"$tmp/err.txt"
shed=$(jq '.dropped_packets.reasons.shed_overload' "$tmp/h.json")
(( shed > 0 )) || fail "overload shed: nothing shed"
grep -q "shed_overload" "$tmp/out.txt" || fail "overload shed: the summary does not name shed_overload"
echo "realtime_overload: run.overload=shed refused $shed messages"

# 5. A run that falls far behind and cannot drain: the cause named is the
# host, not saturation or a deadlock, and no saturation verdict is given.
status=0
"$fabemu" run "$topo" "${common[@]}" --set traffic.load=0.5 --set run.duration_s=0.3 \
  --json "$tmp/b.json" >"$tmp/out.txt" 2>"$tmp/err.txt" || status=$?
if jq -e '.run.drained == false' "$tmp/b.json" >/dev/null; then
  [[ $status -eq 1 ]] || fail "behind and undrained: exit status $status, want 1"
  grep -q "because the host could not keep real time" "$tmp/err.txt" ||
    { cat "$tmp/err.txt"; fail "behind and undrained: the host is not named as the cause"; }
  grep -q "saturated far beyond capacity, or deadlocked" "$tmp/err.txt" &&
    fail "behind and undrained: still blamed on saturation or deadlock"
fi
grep -q "saturation not judged (the run fell behind the wall clock" "$tmp/out.txt" ||
  { cat "$tmp/out.txt"; fail "behind: the summary judges saturation"; }
jq -e '.saturation.judged == false and .saturation.saturated == false' "$tmp/b.json" >/dev/null ||
  fail "behind: JSON saturation $(jq -c .saturation "$tmp/b.json")"
echo "realtime_overload: a run $(jq .run.overload.max_behind_ns "$tmp/b.json") ns behind names the host (exit $status)"

# 6. A run that keeps up (time scale 10,000: a host stall of 5 ms is 0.5 us
# of emulated time, under the 1 us bound): faithful, no BEHIND line.
"$fabemu" run "$topo" "${common[@]}" --set run.time_scale=10000 --set traffic.load=0.01 \
  --set run.duration_s=0.3 --json "$tmp/f.json" >"$tmp/out.txt" 2>"$tmp/err.txt"
grep -q "^BEHIND" "$tmp/out.txt" && { head -n 2 "$tmp/out.txt"; fail "keeping up: the summary says it fell behind"; }
jq -e '.realtime.faithful == true and .realtime.lateness_ns.over_bound_fraction <= 0.01 and
       .realtime.worker_busy[0] < 1' "$tmp/f.json" >/dev/null ||
  fail "keeping up: JSON realtime $(jq -c '.realtime | del(.worker_lateness_ns)' "$tmp/f.json")"
echo "realtime_overload: at time scale 10000 the run kept its timing: $(jq -c '[.realtime.lateness_ns.over_bound_fraction, .realtime.worker_busy]' "$tmp/f.json")"
