#!/usr/bin/env bash
# System test: every JSON report `fabemu run --json` writes matches
# docs/report.schema.json (issue 36 item 5). Short runs of every profile
# (t3e, yarc, flatfly, spider, custom) and topology family, both modes (virtual
# time; real time with a replayed host and a null port), and the reports
# with optional parts (slices, switch allocation, sample periods, link retry and lanes,
# faults and forward-progress time-outs, capture, ports, a stalled, an
# interrupted and an overloaded run) are each validated with jsonschema.
# Then the schema must be strict: a report with one key renamed, or one
# required key missing, fails it.
#
#   bash tests/system/json_schema.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: json_schema.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: json_schema.sh FABEMU_BINARY SOURCE_DIR}
schema=$src/docs/report.schema.json
tmp=$(mktemp -d)
source "$src/tests/system/lib/runs.sh"  # the interrupted run is killed if the test fails
need json_schema python3
python3 -c 'import jsonschema' 2>/dev/null ||
  { echo "json_schema: python3-jsonschema is missing (scripts/lib/setup.sh installs it)"; exit 77; }
topo=$src/topologies
short=(--set run.warmup_ns=1000 --set run.measure_ns=3000 --set run.progress_s=0)

# report NAME STATUS SPEC ARGS...: runs SPEC with ARGS into $tmp/NAME.json
# and expects exit status STATUS.
report() {
  local name=$1 want=$2 spec=$3 status=0
  shift 3
  "$fabemu" run "$spec" "$@" --quiet --json "$tmp/$name.json" >"$tmp/$name.out" 2>&1 || status=$?
  if [[ $status -ne $want ]]; then
    echo "json_schema: FAIL $name: exit status $status, want $want:"; cat "$tmp/$name.out"; exit 1
  fi
}

report t3e 0 "$topo/t3e-4x4x4.yaml" "${short[@]}"
report yarc 0 "$topo/yarc-r1-32.yaml" "${short[@]}"
report yarc_slices 0 "$topo/yarc-r1.5-288-slices.yaml" "${short[@]}" --set run.workers=1
report flatfly 0 "$topo/flatfly-4x3.yaml" "${short[@]}"
report flatfly_ugal 0 "$topo/flatfly-4x3.yaml" "${short[@]}" --set routing=ugal --set vcs.count=3
report hypercube 0 "$topo/hypercube-4.yaml" "${short[@]}"
report butterfly 0 "$topo/butterfly-32x2.yaml" "${short[@]}"
report custom 0 "$topo/t3e-4x4x4.yaml" "${short[@]}" --set profile=custom
report barrier 0 "$topo/t3e-4x4x4.yaml" "${short[@]}" --set traffic.phases=eureka \
  --set traffic.phase_messages=2
report spider 0 "$topo/spider-fhc-64.yaml" "${short[@]}" --set link.ber=1e-4 \
  --set router.deadlock_timeout_ns=100000 --set traffic.cc_adapt=0.5 --set traffic.vector_fraction=0.2
report islip 0 "$topo/flatfly-32x2-booksim.yaml" --set run.warmup_ns=500 --set run.measure_ns=1000 \
  --set run.progress_s=0 --set run.sample_period_ns=250
report retry_lanes 0 "$topo/yarc-r1.5-288.yaml" "${short[@]}" --set run.workers=1 --set link.retry=true \
  --set link.ber=1e-4 --set link.lane_degrade=true --set link.lane_retry_threshold=2
report faults 0 "$topo/t3e-4x4x4.yaml" "${short[@]}" --set router.forward_progress_ns=1000 \
  --set 'faults=["1us endpoint=5 stop", "2us link=r0:p0 down", "3us endpoint=5 start"]'
report stalled 1 "$topo/t3e-4x4x4.yaml" "${short[@]}" --set 'faults=["1us endpoint=5 stop"]'
report capture 0 "$topo/t3e-4x4x4.yaml" "${short[@]}" --capture all \
  --capture-file "$tmp/c.pcapng"

# A host replayed from a pcap file (one frame, 02:..:01 to 02:..:02): in
# virtual time, and in real time beside a null DPDK port.
python3 - "$tmp/h.pcap" <<'PY'
import struct, sys
frame = bytes.fromhex("020000000002" "020000000001") + struct.pack(">H", 0x88b5) + bytes(50)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    f.write(struct.pack("<IIII", 0, 0, len(frame), len(frame)) + frame)
PY
report replay 0 "$topo/t3e-4x4x4.yaml" "${short[@]}" \
  --set "ports=[{name: h, replay: \"$tmp/h.pcap\", endpoint: 0}]"
realtime=(--set run.mode=realtime --set run.progress_s=0 --set traffic.load=0.01)
report realtime 0 "$topo/t3e-4x4x4.yaml" "${realtime[@]}" --set run.duration_s=0.2 \
  --set "ports=[{name: h, replay: \"$tmp/h.pcap\", endpoint: 0},
                {name: n, device: net_null0, endpoint: 9}]"
report overload 3 "$topo/t3e-4x4x4.yaml" "${realtime[@]}" --set traffic.load=0.3 \
  --set run.time_scale=1 --set run.duration_s=5 --set run.overload=stop

# Interrupted at a window edge by SIGINT (exit 130), what was measured reported.
"$fabemu" run "$topo/t3e-4x4x4.yaml" --set run.measure_ns=1e9 --set run.progress_s=0 \
  --quiet --json "$tmp/interrupted.json" >"$tmp/interrupted.out" 2>&1 &
pid=$!
pids+=("$pid")
sleep 2  # DPDK is started and the signals are caught by then
kill -s INT "$pid"
status=0
wait "$pid" || status=$?
[[ $status -eq 130 ]] || { echo "json_schema: FAIL interrupted: exit $status"; cat "$tmp/interrupted.out"; exit 1; }

# --json - writes the same report to standard output.
"$fabemu" run "$topo/t3e-4x4x4.yaml" "${short[@]}" --json - 2>/dev/null >"$tmp/stdout.json"

python3 - "$schema" "$tmp" <<'PY'
import copy, glob, json, os, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
validator = cls(schema)
failed = False
reports = {}
for path in sorted(glob.glob(os.path.join(sys.argv[2], "*.json"))):
    name = os.path.basename(path)[:-5]
    report = json.load(open(path))
    reports[name] = report
    errors = sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))
    for e in errors[:5]:
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print(f"json_schema: FAIL {name}: at {where}: {e.message[:300]}")
    failed |= bool(errors)
    if not errors:
        print(f"json_schema: ok   {name} ({report['fabric']['profile']}, {report['fabric']['topology']}, "
              f"{report['run']['mode']}, {report['fabric']['unit']}s)")

# The runs above are meant to reach these optional parts; a part no run
# reaches is not validated, so its absence is a failure of this test.
def reaches(r, keys):  # r[keys[0]][keys[1]]...; in a list, any element's
    if not keys:
        return True
    if isinstance(r, list):
        return any(reaches(x, keys) for x in r)
    return isinstance(r, dict) and keys[0] in r and reaches(r[keys[0]], keys[1:])
def has(name, *keys):
    if reaches(reports.get(name, {}), keys):
        return True
    print(f"json_schema: FAIL {name}: no {'.'.join(keys)} to validate")
    return False
expected = [("yarc_slices", "slices"), ("islip", "switch_allocation"), ("islip", "sample_periods"),
            ("retry_lanes", "link_retry"), ("retry_lanes", "link_lanes"),
            ("retry_lanes", "links", "retry"), ("retry_lanes", "links", "lanes"), ("faults", "faults"),
            ("faults", "forward_progress_timeouts"), ("faults", "links", "state"),
            ("stalled", "run", "stranded"), ("spider", "spider_arbiter"), ("spider", "out_of_order_packets"), ("capture", "capture"), ("replay", "ports"),
            ("barrier", "barrier"), ("barrier", "spec", "resolved", "barrier"),
            ("realtime", "realtime"), ("realtime", "run", "overload"), ("overload", "run", "overload")]
for e in expected:
    failed |= not has(*e)
for name, unit in [("t3e", "flit"), ("yarc", "phit"), ("flatfly", "phit"), ("spider", "micropacket")]:
    if reports[name]["fabric"]["unit"] != unit:
        print(f"json_schema: FAIL {name}: fabric.unit is {reports[name]['fabric']['unit']}, want {unit}")
        failed = True
if not reports["interrupted"]["run"]["interrupted"]:
    print("json_schema: FAIL interrupted: run.interrupted is false"); failed = True
if not reports["overload"]["run"]["overload"]["stopped"]:
    print("json_schema: FAIL overload: run.overload.stopped is false"); failed = True

# Strict enough to fail: a renamed key (the old per-profile name of a
# link's units, a top-level figure), a missing required key, a wrong type.
def broken(what, change):
    r = copy.deepcopy(reports["t3e"])
    change(r)
    if validator.is_valid(r):
        print(f"json_schema: FAIL the schema accepts a report with {what}")
        return True
    print(f"json_schema: ok   the schema refuses a report with {what}")
    return False
def rename(d, old, new):
    d[new] = d.pop(old)
failed |= broken("links[0].units renamed flits", lambda r: rename(r["links"][0], "units", "flits"))
failed |= broken("vcs[0].units renamed phits", lambda r: rename(r["vcs"][0], "units", "phits"))
failed |= broken("accepted_load renamed accepted", lambda r: rename(r, "accepted_load", "accepted"))
failed |= broken("latency_ns.p99 renamed p99_ns", lambda r: rename(r["latency_ns"], "p99", "p99_ns"))
failed |= broken("no schema_version", lambda r: r.pop("schema_version"))
failed |= broken("no spec.resolved", lambda r: r["spec"].pop("resolved"))
failed |= broken("delivered_packets a string", lambda r: r.update(delivered_packets="12"))
sys.exit(1 if failed else 0)
PY
echo "json_schema: all checks passed"
