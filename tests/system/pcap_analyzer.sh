#!/usr/bin/env bash
# System test of the capture analyzer (pcap-tools/fabemu-pcap, run through
# `fabemu pcap`) on captures with known packets from
# tests/support/analyzer_fixture.py: per-hop latency of packets crossing
# three links in two files (one big-endian), an out-of-order segment, a retry
# and a bad CRC, a sequence gap, port frames, utilisation bins, errors on bad
# files, and the plots when matplotlib is present. Then, when this fabemu can
# capture, a real capture of the T3E 4x4x4 against the run's JSON, and
# out-of-order deliveries in real flattened-butterfly captures.
#
#   bash tests/system/pcap_analyzer.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: pcap_analyzer.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: pcap_analyzer.sh FABEMU_BINARY SOURCE_DIR}
command -v jq >/dev/null || { echo "pcap_analyzer: jq is missing (scripts/lib/setup.sh installs it)"; exit 77; }
# Debian's interpreter, where python3-matplotlib is (as the analyzer's shebang).
python=/usr/bin/python3
[[ -x $python ]] || python=$(command -v python3) ||
  { echo "pcap_analyzer: python3 is missing (scripts/lib/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail=0
pass() { echo "ok: $1"; }
flunk() { echo "FAIL: $1"; fail=1; }
check() {  # JSON file, jq expression, expected value (compact JSON), what
  local got
  got=$(jq -c "$2" "$1")
  if [[ $got != "$3" ]]; then flunk "$4: $2 is $got, expected $3"; else pass "$4 ($got)"; fi
}
expect_fail() {  # expected status, text the error must contain, what, command...
  local want=$1 msg=$2 what=$3 status=0
  shift 3
  "$@" >"$tmp/out.txt" 2>"$tmp/err.txt" || status=$?
  if [[ $status != "$want" ]]; then
    flunk "$what: exit status $status, expected $want ($(head -c 300 "$tmp/err.txt"))"
  elif ! grep -qF -- "$msg" "$tmp/err.txt"; then
    flunk "$what: stderr lacks '$msg': $(head -c 300 "$tmp/err.txt")"
  else
    pass "$what"
  fi
}

"$python" "$src/tests/support/analyzer_fixture.py" "$tmp" >"$tmp/fixture.txt"
cut_offset=$(sed -n 's/^cut_offset=//p' "$tmp/fixture.txt")
a=$tmp/a.pcapng b=$tmp/b.pcapng

# --- Known packets, exact utilisation: 1000 ps per flit, 10 ns bins.
"$fabemu" pcap "$a" "$b" --unit-ps 1000 --bin-ns 10 --json "$tmp/f.json" --paths "$tmp/paths.jsonl" >"$tmp/f.txt"
j=$tmp/f.json
link() { echo ".links[] | select(.name == \"$1\")"; }
check "$j" '[.fabric_packets, .port_frames]' '[13,8]' "every fabric packet and port frame read"
check "$j" '[.files[] | .sections | map(.byte_order)]' '[["little"],["big","little"]]' "sections of both byte orders"
check "$j" '[.links[].name]' '["r0.p1>r1.p4","ep0>r0.p0","r1.p0>ep1"]' "links merged across files, in link id order"
check "$j" "$(link 'r0.p1>r1.p4') | [.id, .kind, .packets, .units]" '[0,"router",5,44]' "router link packets and flits"
check "$j" "$(link 'r1.p0>ep1') | [.id, .kind, .packets]" '[101,"ejection",4]' "big-endian file's link"
check "$j" "$(link 'r0.p1>r1.p4') | [.retries, .crc_errors]" '[1,1]' "retry and bad CRC counted on their link"
check "$j" '[.retries, .crc_errors]' '[1,1]' "retries and CRC errors in total"
check "$j" "$(link 'r0.p1>r1.p4') | .sequence | [.first, .last, .missing, .ranges]" '[0,6,2,[[4,5]]]' "sequence gap 4-5"
check "$j" "[.links[] | .sequence.missing] | add" '2' "no other gap"
check "$j" "$(link 'r0.p1>r1.p4') | .vcs | map([.vc, .packets, .units])" '[[0,2,20],[1,3,24]]' "per-VC packets and flits"
check "$j" "$(link 'ep0>r0.p0') | .vcs | map(.share)" '[0.8823529411764706,0.11764705882352941]' "per-VC share of flits"
check "$j" '.vcs | map([.vc, .packets, .units])' '[[0,9,84],[1,4,28]]' "per-VC totals"
# Held from the head leaving the link to the head leaving the next link, over
# the 89 ns span: ep0>r0.p0 VC 0 holds P1 12.345, P2 42 (its retry times the
# hop) and P3 10.5 ns, two at once from 1010 to 1012.345 ns.
check "$j" "$(link 'ep0>r0.p0') | .vcs | map(.held | [.packets, .mean, .max, .max_units])" \
  '[[3,0.7285955056179775,2,20],[1,0.449438202247191,1,4]]' "per-VC packets held on the injection link"
check "$j" "$(link 'r0.p1>r1.p4') | .vcs | map(.held | [.packets, .mean * 89000, .max])" \
  '[[2,32155,1],[2,29000,1]]' "per-VC packets held on the router link, the bad-CRC copy not"
check "$j" "$(link 'r1.p0>ep1') | .vcs | map(.held)" '[null]' "nothing held past an ejection link"
check "$j" '.utilisation | [.busy_time, .bin_ps, .start_ps, .bins, .first_ps, .span_ps]' \
  '["unit_ps",10000,1000000,9,1000000,89000]' "utilisation mode, bins, first head to last tail"
check "$j" "$(link 'ep0>r0.p0') | .utilisation | [.busy_ps, .peak, .bins.utilisation[0:5]]" '[34000,1,[1,1,1,0.4,0]]' "injection link busy 3 bins, then 4 flits"
check "$j" "$(link 'ep0>r0.p0') | .utilisation.bins | [.packets[0:4], .units[0:4]]" '[[1,1,1,1],[10,10,10,4]]' "packets and flits per bin"
check "$j" '.paths | [.packets, .delivered, .complete, .with_untapped_links, .router_hops]' '[4,4,4,0,{"1":4}]' "paths reconstructed across files"
check "$j" '.paths.examples[] | select(.packet_id == 1) | [.links, .time_ps]' \
  '[["ep0>r0.p0","r0.p1>r1.p4","r1.p0>ep1"],[1000000,1012345,1030000]]' "P1's path ordered by time"
check "$j" '.paths.examples[] | select(.packet_id == 1) | [.time_ps[1] - .time_ps[0], .time_ps[2] - .time_ps[1]]' \
  '[12345,17655]' "P1's per-hop latency exactly"
check "$j" '.paths.examples[] | select(.packet_id == 2) | .time_ps' '[1010000,1052000,1066000]' "retransmitted copy times the hop"
check "$j" '.paths | [.measured_router_hops, .measured_hops]' '[{"1":2},{"count":2,"mean":1,"max":1}]' "measured packets' hops"
check "$j" '.paths.hop_index | map([.hop, .count, .mean_ps, .p50_ps, .p99_ps, .max_ps])' \
  '[[1,4,26211.25,12345,42000,42000],[2,4,15288.75,14500,17655,17655]]' "latency per hop index"
check "$j" '.paths.per_link["r0.p1>r1.p4"] | [.count, .p50_ps, .max_ps]' '[4,14500,17655]' "latency per link"
check "$j" '.out_of_order | [.flows, .packets, .out_of_order, .flows_out_of_order]' '[1,4,1,1]' "one out-of-order delivery"
check "$j" '.out_of_order.per_flow[0] | [.source, .destination, .examples[0].packet_id, .examples[0].message, .examples[0].segment, .examples[0].after_segment]' \
  '[0,1,2,5,1,2]' "segment 1 after segment 2 of message 5"
check "$j" '.ports[] | select(.name == "h0") | [.in.frames, .in.bytes, .out.frames, .out.bytes, .capture_drops, .span_ps]' \
  '[3,1674,2,1574,7,1600000]' "port h0 frames in and out, statistics block drops"
check "$j" '.ports[] | select(.name == "h1") | [.out.frames, .out.bytes, .out.first_ps, .out.frames_per_s, .out.bits_per_s]' \
  '[3,192,1000000000000,1.5,768]' "port h1 with 1/1024 s timestamps"
jq -s '.' "$tmp/paths.jsonl" >"$tmp/paths.json"
check "$tmp/paths.json" 'map([.packet_id, .measured, .complete, .router_hops, .time_ps[1] - .time_ps[0]])' \
  '[[1,true,true,1,12345],[2,false,true,1,42000],[3,true,true,1,10500],[4,false,true,1,40000]]' "--paths: one line per packet"
grep -qF 'busy time = units x 1000 ps (--unit-ps)' "$tmp/f.txt" && pass "text says how busy time is known" ||
  flunk "text lacks the busy-time line"
grep -qE '^  1 +4 +26\.211 +12\.345 +42\.000 +42\.000$' "$tmp/f.txt" && pass "text per-hop table" ||
  flunk "text per-hop table: $(grep -A3 'Latency per hop' "$tmp/f.txt")"
grep -qF 'Out-of-order deliveries: 1 of 4 packets' "$tmp/f.txt" && pass "text out-of-order line" ||
  flunk "text out-of-order line missing"

# --- Without --unit-ps: estimated from the closest spacing per kind of link.
"$fabemu" pcap "$a" "$b" --json - >"$tmp/e.json"
check "$tmp/e.json" '.utilisation | [.busy_time, .unit_ps.injection, .unit_ps.router, .unit_ps.ejection]' \
  '["estimated",1000,1050,1500]' "estimated unit time per kind of link"
"$fabemu" pcap "$a" "$b" >"$tmp/e.txt"
grep -qF 'busy time ESTIMATED (no --unit-ps)' "$tmp/e.txt" && pass "text says the busy time is estimated" ||
  flunk "text lacks the estimate note"

# --- Errors.
expect_fail 2 "$tmp/none.pcapng: no such file" "missing file: a bad command line" "$fabemu" pcap "$tmp/none.pcapng"
expect_fail 2 "$tmp: is a directory" "a folder for a file: a bad command line" "$fabemu" pcap "$tmp"
expect_fail 2 "$tmp/none.pcapng: no such file" "a missing second file: nothing read" "$fabemu" pcap "$a" "$tmp/none.pcapng"
expect_fail 1 "classic pcap (libpcap) file, not pcapng" "classic pcap refused" "$fabemu" pcap "$tmp/classic.pcap"
echo "hello, this is text" >"$tmp/text.pcapng"
expect_fail 1 "not a pcapng file" "text file refused" "$fabemu" pcap "$tmp/text.pcapng"
expect_fail 1 "truncated block at offset $cut_offset" "truncated block and its offset" "$fabemu" pcap "$tmp/cut.pcapng"
expect_fail 2 "must be a positive number" "bad --bin-ns" "$fabemu" pcap "$a" --bin-ns -1
# The command line as fabemu's own (CLI11): a misspelt option gets the
# closest one, outputs that cannot be written stop it before anything is read.
expect_fail 2 "--jsn is not an option of pcap: did you mean --json?" "misspelt option: a suggestion" \
  "$fabemu" pcap "$a" --jsn "$tmp/x.json"
grep -qxF "Run with --help for more information." "$tmp/err.txt" && pass "misspelt option: CLI11's pointer to --help" ||
  flunk "misspelt option: no 'Run with --help' line: $(cat "$tmp/err.txt")"
expect_fail 2 "--json: 1 required OUT missing" "an option without its value" "$fabemu" pcap "$a" --json
expect_fail 2 "--json $tmp/nowhere/f.json: the folder $tmp/nowhere does not exist" \
  "an unwritable --json: exit 2 before reading" "$fabemu" pcap "$a" --json "$tmp/nowhere/f.json"
expect_fail 2 "--plot -: takes a folder" "--plot -: refused" "$fabemu" pcap "$a" --plot -
expect_fail 2 "only one output can be standard output" "two outputs on standard output" \
  "$fabemu" pcap "$a" --json - --paths -
[[ $("$fabemu" pcap --version) == "$("$fabemu" --version)" ]] && pass "fabemu pcap --version is fabemu's line" ||
  flunk "fabemu pcap --version: $("$fabemu" pcap --version 2>&1)"
expect_fail 1 "cannot write /dev/full: No space left on device" "a full disk: exit 1, said" \
  "$fabemu" pcap "$a" --json /dev/full
# '-' is standard output for --json and --paths, the text tables then on stderr.
"$fabemu" pcap "$a" "$b" --unit-ps 1000 --bin-ns 10 --json - 2>"$tmp/tables.txt" |
  "$python" -m json.tool >"$tmp/piped.json" && cmp -s <(jq -S . "$tmp/piped.json") <(jq -S . "$j") &&
  pass "--json - pipes the JSON alone" || flunk "--json -: not the same JSON as --json FILE"
grep -qF 'Out-of-order deliveries: 1 of 4 packets' "$tmp/tables.txt" && pass "--json -: the text tables on stderr" ||
  flunk "--json -: no text tables on stderr"
"$fabemu" pcap "$a" "$b" -q --paths - | jq -s 'map(.packet_id)' >"$tmp/piped-paths.json"
check "$tmp/piped-paths.json" '.' '[1,2,3,4]' "--paths - writes the paths to stdout"
expect_fail 1 "set FABEMU_PCAP_TOOL" "missing analyzer script" env FABEMU_PCAP_TOOL="$tmp/nothing" "$fabemu" pcap "$a"
# A reader that stops (`fabemu pcap ... | head`): no complaint, exit 0. The
# pipe's reading end is closed before the analyzer writes, whatever the timing.
closed_pipe() {  # command...: prints its exit status, then its stderr
  "$python" -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
print(p.returncode)
sys.stdout.write(p.stderr.decode(errors="replace"))' "$@"
}
for out in text json; do
  opt=(); [[ $out == json ]] && opt=(--json -)
  got=$(closed_pipe "$fabemu" pcap "$a" "$b" --quiet "${opt[@]}")
  [[ $got == 0 ]] && pass "a reader that stops ($out): exit 0, nothing said" ||
    flunk "a reader that stops ($out): exit status and stderr: $got"
done
# A long argument is cut in the message, as fabemu's own errors cut it.
long=$tmp/$(head -c 100000 /dev/zero | tr '\0' x)
expect_fail 2 "... (100" "a 100 kB path is cut" "$fabemu" pcap "$long"
[[ $(wc -c <"$tmp/err.txt") -lt 1000 ]] && pass "a 100 kB path: a short message" ||
  flunk "a 100 kB path: $(wc -c <"$tmp/err.txt") bytes of message"
expect_fail 2 "... (100" "a 100 kB unknown option is cut" "$fabemu" pcap "$a" "--x${long##*/}"
[[ $(wc -c <"$tmp/err.txt") -lt 2000 ]] && pass "a 100 kB option: a short message" ||
  flunk "a 100 kB option: $(wc -c <"$tmp/err.txt") bytes of message"
"$fabemu" pcap "$tmp/cut.pcapng" --partial --json "$tmp/p.json" >/dev/null 2>"$tmp/err.txt"
check "$tmp/p.json" '.fabric_packets' '9' "--partial keeps the blocks before the cut"
grep -qF "warning: $tmp/cut.pcapng: truncated block at offset $cut_offset" "$tmp/err.txt" &&
  pass "--partial warns" || flunk "--partial gave no warning: $(cat "$tmp/err.txt")"
"$fabemu" pcap --help >"$tmp/help.txt"
grep -qF 'Usage: fabemu pcap [OPTIONS] FILE...' "$tmp/help.txt" && grep -qF 'out of order' "$tmp/help.txt" &&
  pass "fabemu pcap --help" || flunk "fabemu pcap --help: $(head -5 "$tmp/help.txt")"
"$fabemu" --help | grep -qE '^ +pcap +Analyse capture files' && pass "fabemu --help lists pcap" ||
  flunk "fabemu --help does not list pcap"

# --- Plots: valid PNGs (signature, chunk CRCs, IHDR first, IEND last).
if "$python" -c 'import matplotlib' 2>/dev/null; then
  "$fabemu" pcap "$a" "$b" --unit-ps 1000 --plot "$tmp/plots" -q >/dev/null
  for png in utilisation latency_per_hop; do
    if "$python" - "$tmp/plots/$png.png" <<'EOF'; then pass "$png.png is a valid PNG"; else flunk "$png.png"; fi
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "signature"
off, kinds = 8, []
while off < len(data):
    n, kind = struct.unpack_from(">I4s", data, off)
    crc = struct.unpack_from(">I", data, off + 8 + n)[0]
    assert zlib.crc32(data[off + 4:off + 8 + n]) == crc, f"CRC of {kind}"
    kinds.append(kind)
    off += 12 + n
assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and b"IDAT" in kinds, kinds
w, h = struct.unpack_from(">II", data, 16)
assert w > 100 and h > 100, (w, h)
EOF
  done
else
  echo "skip: plots (python3-matplotlib is not installed)"
fi

# --- A real capture, when this fabemu has one: the T3E 4x4x4.
if "$fabemu" run --help 2>&1 | grep -q -- '--capture'; then
  r=$tmp/real
  mkdir -p "$r"
  "$fabemu" run "$src/topologies/t3e-4x4x4.yaml" --quiet --json "$r/run.json" \
    --set run.warmup_ns=2000 --set run.measure_ns=10000 \
    --capture all --capture-file "$r/cap.pcapng"
  mapfile -t caps < <(jq -r '.capture.files[]' "$r/run.json")
  "$fabemu" pcap "${caps[@]}" -q --json "$r/an.json" --paths "$r/paths.jsonl" >"$r/an.txt"
  check "$r/an.json" '.fabric_packets + .port_frames' "$(jq .capture.written "$r/run.json")" \
    "real capture: every record the writer wrote read back"
  check "$r/run.json" '.capture.drops' '0' "real capture: the writer dropped nothing"
  # The run's links by FORMAT.md's names, beside what the analyzer counted.
  jq -n --slurpfile run "$r/run.json" --slurpfile an "$r/an.json" '
    def end_name: if .endpoint != null then "ep\(.endpoint)" else "r\(.router).p\(.port)" end;
    ($an[0].links | map({(.name): .}) | add) as $seen
    | [$run[0].links | to_entries[]
       | ((.value.from | end_name) + ">" + (.value.to | end_name)) as $name
       | {name: $name, id: .key, run: .value.packets, capture: ($seen[$name].packets // 0),
          capture_id: ($seen[$name].id // .key)}]' >"$r/compare.json"
  check "$r/compare.json" 'length' "$(jq '.links | length' "$r/run.json")" "real capture: one entry per link of the run"
  check "$r/compare.json" 'map(select(.run != .capture)) | .[0:3]' '[]' "real capture: packets per link equal the run's JSON"
  check "$r/compare.json" 'map(select(.id != .capture_id)) | .[0:3]' '[]' "real capture: header link id is the JSON index"
  check "$r/compare.json" 'map(.capture) | add' "$(jq '[.links[].packets] | add' "$r/run.json")" "real capture: packet-hops in total"
  delivered=$(jq .delivered_packets "$r/run.json")
  check "$r/an.json" '.paths | [.complete, .delivered, .with_untapped_links]' "[$delivered,$delivered,0]" \
    "real capture: every delivered packet has a complete path"
  check "$r/an.json" '.paths.measured_hops | [.mean, .max]' "$(jq -c '[.hops.mean, .hops.max]' "$r/run.json")" \
    "real capture: measured packets' hops equal the run's mean and max"
  check "$r/an.json" '[.retries, .crc_errors, .sequence_gaps]' '[0,0,0]' "real capture: no retries, CRC errors or gaps"
  # Each path's router hops equal the torus distance between its first and
  # last router (direction-order routing is minimal; router id = (x*4+y)*4+z).
  if "$python" - "$r/paths.jsonl" <<'EOF'; then pass "real capture: every path's hops equal its route's hop count"; else flunk "real capture: path hops"; fi
import json, re, sys
def coord(r):
    return (r // 16, r // 4 % 4, r % 4)
bad = n = 0
for line in open(sys.argv[1]):
    p = json.loads(line)
    if not p["complete"]:
        continue
    a = int(re.match(r"ep\d+>r(\d+)", p["links"][0]).group(1))
    b = int(re.match(r"r(\d+)\.p\d+>ep", p["links"][-1]).group(1))
    want = sum(min(abs(x - y), 4 - abs(x - y)) for x, y in zip(coord(a), coord(b)))
    n += 1
    if p["router_hops"] != want or len(p["links"]) != want + 2:
        bad += 1
        if bad <= 3:
            print(f"packet {p['packet_id']}: {p['router_hops']} hops over {p['links']}, route has {want}")
print(f"{n} complete paths, {bad} with another hop count")
sys.exit(bad > 0 or n == 0)
EOF

  # Out-of-order deliveries on a 4-ary 3-flat under its worst-case pattern:
  # none with deterministic minimal routing (one path and VC per flow); some
  # with UGAL, which sends a flow's packets through different routers. The
  # count must equal one made from --paths: per flow, packets delivered after
  # a later packet id of the same source (ids count a source's packets).
  for routing in min ugal; do
    vcs=3
    [[ $routing == min ]] && vcs=2  # what each may use
    "$fabemu" run "$src/topologies/flatfly-4x3.yaml" --quiet --json "$r/ff-$routing.json" \
      --set routing=$routing --set vcs.count=$vcs \
      --set traffic.pattern=flatfly_worst --set traffic.load=0.4 \
      --set run.warmup_ns=1000 --set run.measure_ns=3000 \
      --capture all --capture-file "$r/ff-$routing.pcapng"
    "$fabemu" pcap "$r/ff-$routing.pcapng" -q --json "$r/ff-$routing.an.json" \
      --paths "$r/ff-$routing.paths" >/dev/null
    late=$("$python" -c '
import json, sys
flows = {}
for line in open(sys.argv[1]):
    p = json.loads(line)
    if p["delivered"]:
        flows.setdefault((p["source"], p["destination"]), []).append((p["time_ps"][-1], p["packet_id"]))
late = 0
for deliveries in flows.values():
    high = -1
    for _, pid in sorted(deliveries):
        late += pid < high
        high = max(high, pid)
print(late)' "$r/ff-$routing.paths")
    check "$r/ff-$routing.an.json" '.out_of_order.out_of_order' "$late" \
      "real capture: flatfly $routing out-of-order deliveries as counted from the paths"
    check "$r/ff-$routing.an.json" '.out_of_order.packets' "$(jq .delivered_packets "$r/ff-$routing.json")" \
      "real capture: flatfly $routing every delivered packet on an ejection link"
  done
  check "$r/ff-min.an.json" '.out_of_order.out_of_order' '0' "real capture: minimal routing delivers in order"
  check "$r/ff-ugal.an.json" '.out_of_order.out_of_order > 0' 'true' "real capture: UGAL reorders"
else
  echo "skip: real capture ($fabemu run has no --capture yet)"
fi

exit $fail
