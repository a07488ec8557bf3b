#!/usr/bin/env bash
# System test of the Spider micropackets in a capture (pcap-tools/FORMAT.md
# "Spider micropackets"), beside tests/system/dissector.sh: a short
# `profile: spider` run with every link tapped and messages of 1 to 600
# bytes (2 to 16 micropackets, and messages cut into several). tshark with
# pcap-tools/fabemu.lua decodes every record as Spider micropackets, with no
# expert info (nothing malformed, no CRC bad or stomped, the header micropacket
# agreeing with the fabemu header); each message's micropacket count is the
# header's units and what its payload bytes need; the tail bit is on the last
# micropacket only, the LLP sequence numbers count the micropackets sent on
# the link; per link, the packets and micropackets are the run's JSON counts;
# and `fabemu pcap` summarises the file with every micropacket's CRC good.
#
#   bash tests/system/dissector_spider.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: dissector_spider.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: dissector_spider.sh FABEMU_BINARY SOURCE_DIR}
command -v tshark >/dev/null || { echo "dissector_spider: tshark is missing (scripts/lib/setup.sh installs it)"; exit 77; }
command -v jq >/dev/null || { echo "FAIL: jq is missing (scripts/lib/setup.sh installs it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lua=$src/pcap-tools/fabemu.lua
fail=0
passed=0
source "$src/tests/system/lib/tshark_checks.sh"  # ts, same

printf 'profile: spider\n' >"$tmp/spider.yaml"
"$fabemu" run "$tmp/spider.yaml" --quiet --json "$tmp/run.json" --set run.warmup_ns=500 \
  --set run.measure_ns=8000 --set 'traffic.sizes=[1, 100, 240, 600]' \
  --set traffic.cc_adapt=0.5 --set traffic.vector_fraction=0.5 \
  --capture all --capture-file "$tmp/run.pcapng"

# Columns: 1 link, 2 profile, 3 units, 4 micropackets, 5 header dst, 6
# encoding dst, 7 header src, 8 encoding src, 9 payload bytes in the
# header micropacket, 10 tail bits, 11 CRC status per micropacket, 12
# sequence numbers, 13 expert messages, 14 reassembled payload length
# (frames only: empty), 15 the message's CRC status, 16 vector-routed, 17
# the congestion-control bits.
ts -r "$tmp/run.pcapng" -T fields -e fabemu.link -e fabemu.profile -e fabemu.units \
  -e fabemu.spider.micropackets -e fabemu.dst -e fabemu.spider.dst -e fabemu.src \
  -e fabemu.spider.src -e fabemu.spider.payload_bytes -e fabemu.spider.tail \
  -e fabemu.spider.crc_status -e fabemu.spider.seq -e _ws.expert.message -e fabemu.payload_len \
  -e fabemu.crc.status -e fabemu.spider.vector -e fabemu.spider.cc >"$tmp/run.tsv"
rows=$(wc -l <"$tmp/run.tsv")
((rows > 500)) || { echo "FAIL: only $rows packets captured"; fail=1; }
same "packets not dissected as Spider micropackets" "$(awk -F'\t' '$1 == "" || $2 != 3' "$tmp/run.tsv" | wc -l)" 0
same "packets whose micropackets differ from the header's units" \
  "$(awk -F'\t' '$3 != $4' "$tmp/run.tsv" | wc -l)" 0
same "packets whose micropackets are not 1 + their payload's 16-byte blocks" \
  "$(awk -F'\t' '$4 != 1 + int(($9 + 15) / 16)' "$tmp/run.tsv" | wc -l)" 0
same "packets whose encoding's destination or source differs from the header's" \
  "$(awk -F'\t' '$5 != $6 || $7 != $8' "$tmp/run.tsv" | wc -l)" 0
same "packets with expert info (first: $(awk -F'\t' '$13 != "" { print $13; exit }' "$tmp/run.tsv"))" \
  "$(awk -F'\t' '$13 != ""' "$tmp/run.tsv" | wc -l)" 0
same "packets whose payload is not the header micropacket's length or CRC not good" \
  "$(awk -F'\t' '$14 != $9 || $15 != 1' "$tmp/run.tsv" | wc -l)" 0
# Half the messages vector-routed, half with CC bit 0 (traffic.cc_adapt,
# traffic.vector_fraction): each kind between a quarter and three quarters.
for col in 16 17; do
  same "column $col: share of packets with it set, in quarters" \
    "$(awk -F'\t' -v c=$col '$c == "True" || $c == "1" { k++ } END { q = int(4 * k / NR); print (q >= 1 && q <= 2) ? "1-2" : q }' "$tmp/run.tsv")" "1-2"
done
# Tail bit on the last micropacket only; every CRC good (1).
same "packets with a tail bit elsewhere than on the last micropacket" \
  "$(awk -F'\t' '{ n = split($10, t, ","); for (i = 1; i <= n; i++) if ((t[i] == "1") != (i == n)) { print; break } }' "$tmp/run.tsv" | wc -l)" 0
same "micropackets whose CRC is not good" \
  "$(awk -F'\t' '{ n = split($11, c, ","); for (i = 1; i <= n; i++) if (c[i] != 1) k++ } END { print k + 0 }' "$tmp/run.tsv")" 0
same "sizes seen (micropackets)" "$(cut -f4 "$tmp/run.tsv" | sort -n | uniq | tr '\n' ' ')" "2 8 9 16 "
# LLP sequence numbers: consecutive mod 16 along each link, across packets.
same "links whose LLP sequence numbers skip" \
  "$(awk -F'\t' '{ n = split($12, s, ","); for (i = 1; i <= n; i++) { if (($1 in next_seq) && s[i] != next_seq[$1]) bad[$1] = 1; next_seq[$1] = (s[i] + 1) % 16 } } END { print length(bad) }' "$tmp/run.tsv")" 0
# Per link, packets and micropackets as the run's JSON counts them.
awk -F'\t' '{ p[$1]++; u[$1] += $3 } END { for (l in p) print l, p[l], u[l] }' "$tmp/run.tsv" | sort -n >"$tmp/cap"
jq -r '.links | to_entries[] | select(.value.packets > 0) | "\(.key) \(.value.packets) \(.value.units)"' \
  "$tmp/run.json" | sort -n >"$tmp/json"
same "links whose captured packets or micropackets differ from the JSON's (<capture >json)" \
  "$(diff "$tmp/cap" "$tmp/json" | grep -c '^[<>]')" 0

# The analyzer: every micropacket counted, every CRC good.
"$fabemu" pcap "$tmp/run.pcapng" --json "$tmp/pcap.json" >"$tmp/pcap.txt"
units=$(awk -F'\t' '{ u += $3 } END { print u }' "$tmp/run.tsv")
same "fabemu pcap: profile" "$(jq -r '[.links[].profile | select(. != "")] | unique | join(",")' "$tmp/pcap.json")" "spider micropackets"
same "fabemu pcap: fabric packets" "$(jq '.fabric_packets' "$tmp/pcap.json")" "$rows"
same "fabemu pcap: micropackets good/stomped/bad" \
  "$(jq -r '[.links[].micropackets | .good, .stomped, .bad] as $v | [([range(0; $v | length; 3) | $v[.]] | add), ([range(1; $v | length; 3) | $v[.]] | add), ([range(2; $v | length; 3) | $v[.]] | add)] | join("/")' "$tmp/pcap.json")" \
  "$units/0/0"
same "fabemu pcap: summary line" "$(grep -c "^Spider micropackets: $units good, 0 stomped, 0 bad CRCs" "$tmp/pcap.txt")" 1

echo "dissector_spider: $passed checks passed"
exit $fail
