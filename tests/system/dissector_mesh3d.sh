#!/usr/bin/env bash
# System test of the 3D mesh's packets in a capture (pcap-tools/FORMAT.md
# "3D mesh words"), beside tests/system/dissector_spider.sh: a short run of
# topologies/mesh3d-4x4x4.yaml with every link tapped and messages of 1 to
# 600 bytes (4 to 32 words, and messages cut into several). tshark with
# pcap-tools/fabemu.lua decodes every record as 3D mesh words, with no
# expert info (nothing malformed, no bad CRC, no transmit error, every state
# matching its complement, the header words agreeing with the fabemu
# header); each packet's words are the header's units and what its payload
# bytes need; the route is in XYZ dimension order (no faults), its hops are
# the router-to-router links the packet crossed, its state is Route 0
# HowFar 0 on the injection link and the end of the route on the ejection
# link; per link, the packets and words are the run's JSON counts; and
# `fabemu pcap` summarises the file with every CRC good.
#
#   bash tests/system/dissector_mesh3d.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: dissector_mesh3d.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: dissector_mesh3d.sh FABEMU_BINARY SOURCE_DIR}
command -v tshark >/dev/null || { echo "dissector_mesh3d: tshark is missing (scripts/lib/setup.sh installs it)"; exit 77; }
command -v jq >/dev/null || { echo "FAIL: jq is missing (scripts/lib/setup.sh installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lua=$src/pcap-tools/fabemu.lua
fail=0
passed=0
source "$src/tests/system/lib/tshark_checks.sh"  # ts, same

"$fabemu" run "$src/topologies/mesh3d-4x4x4.yaml" --quiet --json "$tmp/run.json" \
  --set run.warmup_ns=200 --set run.measure_ns=600 --set 'traffic.sizes=[1, 100, 290, 600]' \
  --capture all --capture-file "$tmp/run.pcapng"

# Columns: 1 link, 2 profile, 3 units, 4 words, 5 header dst, 6 encoding
# dst, 7 header src, 8 encoding src, 9 payload bytes in word 0, 10 CRC
# status, 11 transmit error, 12 complement matches, 13 expert messages, 14
# reassembled payload length, 15 the packet's CRC status, 16 Dir of the six
# segments, 17 route hops, 18 Route, 19 HowFar, 20 link name, 21 packet id,
# 22 retransmission flag.
ts -r "$tmp/run.pcapng" -T fields -e fabemu.link -e fabemu.profile -e fabemu.units \
  -e fabemu.mesh3d.words -e fabemu.dst -e fabemu.mesh3d.dst -e fabemu.src -e fabemu.mesh3d.src \
  -e fabemu.mesh3d.payload_bytes -e fabemu.mesh3d.crc_status -e fabemu.mesh3d.transmit_error \
  -e fabemu.mesh3d.state_ok -e _ws.expert.message -e fabemu.payload_len -e fabemu.crc.status \
  -e fabemu.mesh3d.dir -e fabemu.mesh3d.route_hops -e fabemu.mesh3d.route -e fabemu.mesh3d.how_far \
  -e frame.interface_name -e fabemu.packet_id -e fabemu.flags.retry >"$tmp/run.tsv"
rows=$(wc -l <"$tmp/run.tsv")
((rows > 500)) || { echo "FAIL: only $rows packets captured"; fail=1; }
same "packets not dissected as 3D mesh words" "$(awk -F'\t' '$1 == "" || $2 != 4' "$tmp/run.tsv" | wc -l)" 0
same "packets whose words differ from the header's units" \
  "$(awk -F'\t' '$3 != $4' "$tmp/run.tsv" | wc -l)" 0
same "packets whose words are not 3 + their payload's 10-byte words" \
  "$(awk -F'\t' '$4 != 3 + int(($9 + 9) / 10)' "$tmp/run.tsv" | wc -l)" 0
same "packets whose encoding's destination or source differs from the header's" \
  "$(awk -F'\t' '$5 != $6 || $7 != $8' "$tmp/run.tsv" | wc -l)" 0
same "packets with expert info (first: $(awk -F'\t' '$13 != "" { print $13; exit }' "$tmp/run.tsv"))" \
  "$(awk -F'\t' '$13 != ""' "$tmp/run.tsv" | wc -l)" 0
same "packets whose payload is not word 0's length, CRC not good or transmit error set" \
  "$(awk -F'\t' '$14 != $9 || $10 != 1 || $15 != 1 || ($11 != "0" && $11 != "False")' "$tmp/run.tsv" | wc -l)" 0
same "packets whose state does not match its complement" \
  "$(awk -F'\t' '$12 != "1" && $12 != "True"' "$tmp/run.tsv" | wc -l)" 0
same "sizes seen (words)" "$(cut -f4 "$tmp/run.tsv" | sort -n | uniq | tr '\n' ' ')" "4 5 13 32 "
# XYZ dimension order: the used segments' dimensions (Dir / 2) never go back.
same "routes not in XYZ order" \
  "$(awk -F'\t' '{ n = split($16, d, ","); last = -1; for (i = 1; i <= n && d[i] != 7; i++) { if (int(d[i] / 2) < last) { print; break } last = int(d[i] / 2) } }' "$tmp/run.tsv" | wc -l)" 0
# The state the captured link carries: the start on the injection link, the
# end of the route (the segment after the last, HowFar 0) on the ejection link.
same "injection links with a state other than Route 0 HowFar 0" \
  "$(awk -F'\t' '$20 ~ /^ep/ && ($18 != 0 || $19 != 0)' "$tmp/run.tsv" | wc -l)" 0
same "ejection links with a state other than the route's end" \
  "$(awk -F'\t' '$20 ~ />ep/ { n = split($16, d, ","); s = 0; while (s < n && d[s + 1] != 7) s++; if ($18 != s || $19 != 0) print }' "$tmp/run.tsv" | wc -l)" 0
# The route's hops are the router-to-router links the packet crossed (first
# copies only: a retransmission crosses the same link again).
same "packets whose route hops are not the router links they crossed" \
  "$(awk -F'\t' '$22 == "0" || $22 == "False" { hops[$21] = $17; if ($20 ~ /^r.*>r/) links[$21]++ } END { for (p in hops) if (hops[p] != links[p] + 0) k++; print k + 0 }' "$tmp/run.tsv")" 0
# Per link, packets and words as the run's JSON counts them.
awk -F'\t' '{ p[$1]++; u[$1] += $3 } END { for (l in p) print l, p[l], u[l] }' "$tmp/run.tsv" | sort -n >"$tmp/cap"
jq -r '.links | to_entries[] | select(.value.packets > 0) | "\(.key) \(.value.packets) \(.value.units)"' \
  "$tmp/run.json" | sort -n >"$tmp/json"
same "links whose captured packets or words differ from the JSON's (<capture >json)" \
  "$(diff "$tmp/cap" "$tmp/json" | grep -c '^[<>]')" 0

# The analyzer: every packet counted, every CRC good.
"$fabemu" pcap "$tmp/run.pcapng" --json "$tmp/pcap.json" >"$tmp/pcap.txt"
same "fabemu pcap: profile" "$(jq -r '[.links[].profile | select(. != "")] | unique | join(",")' "$tmp/pcap.json")" "mesh3d words"
same "fabemu pcap: fabric packets" "$(jq '.fabric_packets' "$tmp/pcap.json")" "$rows"
same "fabemu pcap: good/bad/unverified/transmit errors/state and header mismatches" \
  "$(jq -r '[.links[].mesh3d | select(. != null)] as $m | [("good", "bad", "unverified", "transmit_errors", "state_mismatches", "header_mismatches") as $k | [$m[][$k]] | add] | join("/")' "$tmp/pcap.json")" \
  "$rows/0/0/0/0/0"
same "fabemu pcap: summary line" "$(grep -c "^3D mesh packets: $rows good, 0 bad CRCs, 0 unverified" "$tmp/pcap.txt")" 1

echo "dissector_mesh3d: $passed checks passed"
exit $fail
