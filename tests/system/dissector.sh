#!/usr/bin/env bash
# System test of the Wireshark dissector pcap-tools/fabemu.lua, run by
# tshark as Debian packages it:
#
# 1. Fixture captures written by tests/support/make_capture.py: YARC and T3E
#    packets encoded by hand from the codec headers' bit layouts (a bad CRC,
#    its retransmission, an ok-field error, truncated packets, a header that
#    disagrees with its encoding, and an Ethernet/IPv4/ICMP frame split into
#    segments, carried twice on different links). Every header field and
#    every phit/flit field is asserted with the value the script wrote.
#
# 2. Real captures, every link tapped (--capture all): a T3E 4x4x4 run (two
#    workers), a YARC rank-2 Clos run (1024 endpoints) and a flattened
#    butterfly run. Every packet is dissected, with
#    its phit/flit count equal to the header's units, the destination in the
#    encoding equal to the header's, no expert info (so every YARC CRC is
#    good, nothing malformed or disagreeing), and per link exactly the
#    packets the run's JSON counts (links[i].packets). The packets are in
#    time order, stamped with the run's wall-clock start plus emulated time,
#    and Wireshark's Source and Destination columns name their endpoints.
#
#    A YARC run with a snapshot length of 80 bytes: every packet flagged
#    truncated and decoded as far as it goes, its CRC unverified.
#
# 3. Real-time T3E and YARC runs where a net_pcap host at endpoint 0 sends N
#    ICMP echo requests (tests/support/make_capture.py --frames) to a port:
#    on every link the frames crossed, the dissector puts each frame back
#    together from its segments, and Wireshark's ICMP dissector reads all N
#    with their lengths and good checksums.
#
#   bash tests/system/dissector.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: dissector.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: dissector.sh FABEMU_BINARY SOURCE_DIR}
command -v tshark >/dev/null || { echo "dissector: tshark is missing (scripts/lib/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$src/tests/system/lib/capture_time.sh"
source "$src/tests/system/lib/tshark_checks.sh"  # ts, same
lua=$src/pcap-tools/fabemu.lua
fail=0
passed=0


# Every field the checks below read, one column each; -2 (two passes) so that
# segments know the packet their frame was reassembled in.
fields=(
  frame.number fabemu.version fabemu.profile fabemu.flags fabemu.flags.retry fabemu.flags.bad_crc
  fabemu.flags.truncated fabemu.flags.last fabemu.flags.frame fabemu.flags.response
  fabemu.flags.measured fabemu.vc fabemu.link fabemu.link_seq fabemu.units fabemu.encoded_bytes
  fabemu.time_ps fabemu.src fabemu.dst fabemu.packet_id fabemu.packet_id.src
  fabemu.packet_id.count fabemu.msg_seq fabemu.seg fabemu.nseg
  fabemu.payload fabemu.payload_len fabemu.crc.status fabemu.crc.computed
  fabemu.yarc.phits fabemu.yarc.sideband fabemu.yarc.dest fabemu.yarc.v fabemu.yarc.h
  fabemu.yarc.a fabemu.yarc.r fabemu.yarc.hlen fabemu.yarc.hash_reserved fabemu.yarc.hash
  fabemu.yarc.src fabemu.yarc.pkt_flags fabemu.yarc.pkt_flags.frame fabemu.yarc.msg_seq
  fabemu.yarc.seg fabemu.yarc.nseg fabemu.yarc.id fabemu.yarc.payload_bits
  fabemu.yarc.eop_reserved fabemu.yarc.pad fabemu.yarc.ok fabemu.yarc.crc
  fabemu.t3e.flits fabemu.t3e.head fabemu.t3e.tail fabemu.t3e.header fabemu.t3e.class
  fabemu.t3e.sideband fabemu.t3e.dst fabemu.t3e.command fabemu.t3e.payload_bytes
  fabemu.t3e.header_flits fabemu.t3e.route_tag fabemu.t3e.src fabemu.t3e.msg_seq fabemu.t3e.seg
  fabemu.t3e.nseg fabemu.t3e.addr fabemu.t3e.word
  fabemu.frame.reassembled_in fabemu.frame.segment fabemu.frame.length
  ip.src ip.dst icmp.type icmp.seq icmp.checksum.status _ws.col.Info _ws.expert.message
  _ws.col.Source _ws.col.Destination
  fabemu.crc.bad fabemu.mismatch fabemu.malformed fabemu.truncated
)
table() {  # CAPTURE TABLE: the fields above, tab-separated, a header line first
  local args=() f
  for f in "${fields[@]}"; do args+=(-e "$f"); done
  ts -2 -r "$1" -T fields -E header=y "${args[@]}" >"$2"
}

# expect TABLE PACKET FIELD=VALUE...: the packet's fields have these values
# (several occurrences of a field are comma-separated, absent is empty).
expect() {
  local t=$1 n=$2 out
  shift 2
  # One awk for all pairs: prints a line per mismatch, then the number of
  # pairs that matched.
  out=$(awk -F'\t' -v n="$n" -v name="$(basename "$t")" '
    BEGIN { for (i = 1; i < ARGC - 1; i++) pair[i] = ARGV[i]; np = ARGC - 2; ARGV[1] = ARGV[ARGC - 1]; ARGC = 2 }
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $1 == n {
      for (i = 1; i <= np; i++) {
        k = index(pair[i], "="); f = substr(pair[i], 1, k - 1); want = substr(pair[i], k + 1)
        got = (f in col) ? $col[f] : "<no such column>"
        if (got == want) ok++
        else printf "FAIL: %s packet %s: %s is '\''%s'\'', expected '\''%s'\''\n", name, n, f, got, want
      }
      seen = 1
    }
    END { if (!seen) printf "FAIL: %s has no packet %s\n", name, n; print ok + 0 }' "$@" "$t")
  passed=$((passed + ${out##*$'\n'}))
  if [[ $out == *FAIL* ]]; then
    echo "${out%$'\n'*}"
    fail=1
  fi
}


# rows TABLE FIELD: packets in which FIELD is present (expert info prints 1).
rows() {
  awk -F'\t' -v f="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == f) c = i; next }
    c && $c != "" { k++ } END { print k + 0 }' "$1"
}

############################################################ fixtures ###

python3 "$src/tests/support/make_capture.py" "$tmp"
y=$tmp/yarc.tsv
t=$tmp/t3e.tsv
table "$tmp/yarc.pcapng" "$y"
table "$tmp/t3e.pcapng" "$t"

# YARC 1: a 32-byte write, 19 phits: head, hash, T0..T3, 12 payload, EOP.
expect "$y" 1 fabemu.version=1 fabemu.profile=1 fabemu.flags=0x48 fabemu.flags.measured=1 \
  fabemu.flags.last=1 fabemu.flags.retry=0 fabemu.flags.frame=0 fabemu.vc=0 fabemu.link=0 \
  fabemu.link_seq=0 fabemu.units=19 fabemu.encoded_bytes=57 fabemu.time_ps=1000000 fabemu.src=3 \
  fabemu.dst=12 fabemu.packet_id=0x000003000000002a fabemu.packet_id.src=3 \
  fabemu.packet_id.count=42 fabemu.msg_seq=77 fabemu.seg=0 fabemu.nseg=1 \
  fabemu.yarc.phits=19 fabemu.yarc.dest=12 fabemu.yarc.v=0 fabemu.yarc.h=1 fabemu.yarc.a=0 \
  fabemu.yarc.r=0 fabemu.yarc.hlen=4 fabemu.yarc.hash_reserved=0x000000 fabemu.yarc.hash=0x001234 \
  fabemu.yarc.src=3 fabemu.yarc.pkt_flags=0x000003 fabemu.yarc.msg_seq=77 fabemu.yarc.seg=0 \
  fabemu.yarc.nseg=1 fabemu.yarc.id=0x00002a \
  fabemu.yarc.sideband=2,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0 \
  fabemu.yarc.eop_reserved=0x000000 fabemu.yarc.pad=1 fabemu.yarc.ok=0 fabemu.yarc.crc=0x00058d \
  fabemu.crc.computed=0x058d fabemu.crc.status=1 fabemu.payload_len=32 \
  fabemu.payload=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f \
  "_ws.col.Info=YARC 19 phits ep3->ep12 vc0 link 0" _ws.col.Source=ep3 _ws.col.Destination=ep12
# 0x00..0x1f as a 22-bit stream: 0x000102 >> 2, then the next 22 bits, ...
expect "$y" 1 fabemu.yarc.payload_bits=0x000040,0x203040,0x14181c,0x08090a,0x02c303,0x10e0f1,0x004448,0x131415,0x0585c6,0x0191a1,0x2c7074,0x1e1f00
# YARC 4: a response, adaptive, no hash phit: head, T0..T3, 3 payload, EOP.
expect "$y" 4 _ws.col.Source=ep12 _ws.col.Destination=ep3 \
  fabemu.flags.response=1 fabemu.vc=1 fabemu.link=1 fabemu.yarc.phits=9 \
  fabemu.yarc.dest=3 fabemu.yarc.v=1 fabemu.yarc.h=0 fabemu.yarc.a=1 fabemu.yarc.hlen=4 \
  fabemu.yarc.hash= fabemu.yarc.src=12 fabemu.yarc.msg_seq=500 fabemu.yarc.pad=0 \
  fabemu.crc.status=1 fabemu.payload=0102030405060708 fabemu.payload_len=8
# Bad CRC (one payload bit flipped on the wire), then its good retransmission.
expect "$y" 8 fabemu.flags.bad_crc=1 fabemu.crc.status=0 fabemu.yarc.crc=0x00959e \
  fabemu.crc.computed=0xd22e "_ws.expert.message=Bad CRC: carried 0x959e, computed 0xd22e" \
  "_ws.col.Info=YARC 19 phits ep3->ep12 vc0 link 0 [bad CRC]"
expect "$y" 9 fabemu.flags.retry=1 fabemu.crc.status=1 fabemu.yarc.crc=0x00959e \
  "_ws.expert.message=Link-level retransmission"
# Soft error marked in the ok field, CRC resealed: good CRC, ok 2, a warning.
expect "$y" 11 fabemu.yarc.ok=2 fabemu.crc.status=1 fabemu.payload_len=16 \
  "_ws.expert.message=EOP ok field marks an error"
# Truncated to 6 of 19 phits: the phits there are decoded, the CRC unverified.
expect "$y" 12 fabemu.flags.truncated=1 fabemu.yarc.phits=19 fabemu.yarc.dest=12 \
  fabemu.yarc.id=0x00002d fabemu.yarc.sideband=0,0,0,0,0,0 fabemu.crc.status=2 \
  fabemu.yarc.crc= fabemu.payload= "_ws.expert.message=18 of 57 encoded bytes captured" \
  "_ws.col.Info=YARC 19 phits ep3->ep12 vc0 link 3 [truncated]"
# The frame's segments (33, 33, 32 bytes), once on link 0 and once on link
# 2: each copy is reassembled on its own link into the 98-byte ICMP echo.
expect "$y" 2 fabemu.flags.frame=1 fabemu.seg=0 fabemu.nseg=3 fabemu.yarc.pkt_flags.frame=1 \
  fabemu.yarc.seg=0 fabemu.yarc.nseg=3 fabemu.payload_len=33 fabemu.frame.reassembled_in=10 \
  "_ws.col.Info=YARC 19 phits ep3->ep12 vc0 seg 1/3 link 0"
expect "$y" 3 fabemu.frame.reassembled_in=7
expect "$y" 5 fabemu.seg=1 fabemu.yarc.seg=1 fabemu.frame.reassembled_in=10
expect "$y" 6 fabemu.frame.reassembled_in=7
for n in 7 10; do
  expect "$y" $n fabemu.seg=2 fabemu.flags.last=1 fabemu.payload_len=32 fabemu.yarc.pad=1 \
    fabemu.frame.length=98 ip.src=10.0.0.1 ip.dst=10.0.0.2 icmp.type=8 icmp.seq=7 \
    icmp.checksum.status=1 _ws.col.Source=10.0.0.1 _ws.col.Destination=10.0.0.2
done
expect "$y" 7 fabemu.frame.segment=3,6,7
expect "$y" 10 fabemu.frame.segment=2,5,10
same "yarc: packets with a bad CRC" "$(rows "$y" fabemu.crc.bad)" 1
same "yarc: truncated packets" "$(rows "$y" fabemu.truncated)" 1
same "yarc: header/encoding disagreements" "$(rows "$y" fabemu.mismatch)" 0
same "yarc: malformed encodings" "$(rows "$y" fabemu.malformed)" 0
# tshark's default single pass reassembles the same frames.
ts -r "$tmp/yarc.pcapng" -Y icmp -T fields -e frame.number >"$tmp/icmp"
same "yarc: ICMP frames reassembled in one pass" "$(tr '\n' ' ' <"$tmp/icmp")" "7 10 "

# T3E 1: Get request, 2 header flits, sideband 3 on flit 1.
expect "$t" 1 fabemu.profile=2 fabemu.units=2 fabemu.encoded_bytes=18 fabemu.link=7 fabemu.vc=2 \
  fabemu.t3e.flits=2 fabemu.t3e.head=1,0 fabemu.t3e.tail=0,1 fabemu.t3e.header=1,1 \
  fabemu.t3e.class=0,0 fabemu.t3e.sideband=0,3 fabemu.t3e.dst=21 fabemu.t3e.command=2 \
  fabemu.t3e.payload_bytes=0 fabemu.t3e.header_flits=2 fabemu.t3e.route_tag=0x01020304 \
  fabemu.t3e.src=5 fabemu.t3e.msg_seq=1193046 fabemu.t3e.seg=0 fabemu.t3e.nseg=1 \
  fabemu.payload= fabemu.payload_len=0 fabemu.crc.status= \
  "_ws.col.Info=T3E 2 flits ep5->ep21 vc2 link 7" _ws.col.Source=ep5 _ws.col.Destination=ep21
# T3E 3: single-word Put, 3 header flits (address = packet id) and 1 word.
expect "$t" 3 fabemu.t3e.flits=4 fabemu.t3e.command=6 fabemu.t3e.header_flits=3 \
  fabemu.t3e.payload_bytes=8 fabemu.t3e.addr=0x0000050000000003 \
  fabemu.packet_id=0x0000050000000003 fabemu.t3e.word=0xdeadbeefcafef00d \
  fabemu.payload=deadbeefcafef00d fabemu.t3e.tail=0,0,0,1 fabemu.t3e.header=1,1,1,0
# T3E 4: Get response, 1 header flit (no source flit), response class.
expect "$t" 4 fabemu.flags.response=1 fabemu.t3e.flits=2 fabemu.t3e.class=1,1 \
  fabemu.t3e.command=3 fabemu.t3e.header_flits=1 fabemu.t3e.dst=5 fabemu.t3e.src= \
  fabemu.payload_len=8
# T3E 6: vector Get response, 10 flits, 8 words.
expect "$t" 6 fabemu.t3e.flits=10 fabemu.t3e.command=5 fabemu.payload_len=64 \
  fabemu.t3e.word=0x0001020304050607,0x08090a0b0c0d0e0f,0x1011121314151617,0x18191a1b1c1d1e1f,0x2021222324252627,0x28292a2b2c2d2e2f,0x3031323334353637,0x38393a3b3c3d3e3f
# T3E 7: truncated to 2 of 10 flits.
expect "$t" 7 fabemu.flags.truncated=1 fabemu.t3e.flits=10 fabemu.t3e.head=1,0 fabemu.t3e.dst=6 \
  fabemu.t3e.src=5 fabemu.payload= "_ws.expert.message=18 of 90 encoded bytes captured"
# T3E 8: the header says destination 43, the encoding 42.
expect "$t" 8 fabemu.dst=43 fabemu.t3e.dst=42 \
  "_ws.expert.message=destination is 42 in the encoding, 43 in the fabemu header"
# T3E 9: corrupted on the link by the header's flag alone (no CRC in flits).
expect "$t" 9 fabemu.flags.bad_crc=1 fabemu.crc.status= \
  "_ws.expert.message=Corrupted on this link (bad CRC flag in the fabemu header)" \
  "_ws.col.Info=T3E 2 flits ep5->ep42 vc0 link 7 [bad CRC]"
# The frame in 2 segments (64 + 34 bytes: 10 and 7 flits).
expect "$t" 2 fabemu.t3e.flits=10 fabemu.t3e.payload_bytes=64 fabemu.t3e.seg=0 fabemu.t3e.nseg=2 \
  fabemu.frame.reassembled_in=5
expect "$t" 5 fabemu.t3e.flits=7 fabemu.t3e.payload_bytes=34 fabemu.t3e.seg=1 fabemu.t3e.nseg=2 \
  fabemu.payload_len=34 fabemu.frame.length=98 fabemu.frame.segment=2,5 ip.src=10.0.0.1 \
  icmp.type=8 icmp.checksum.status=1
expect "$t" 8 fabemu.mismatch=1
expect "$t" 9 fabemu.crc.bad=1
same "t3e: header/encoding disagreements" "$(rows "$t" fabemu.mismatch)" 1
same "t3e: malformed encodings" "$(rows "$t" fabemu.malformed)" 0
same "t3e: truncated packets" "$(rows "$t" fabemu.truncated)" 1
ts -r "$tmp/t3e.pcapng" -Y icmp -T fields -e frame.number >"$tmp/icmp"
same "t3e: ICMP frames reassembled in one pass" "$(tr '\n' ' ' <"$tmp/icmp")" "5 "

####################################################### real captures ###

command -v jq >/dev/null || { echo "FAIL: jq is missing (scripts/lib/setup.sh installs it)"; exit 1; }

# real NAME PROFILE SPEC [run options]: runs SPEC with every link tapped and
# checks the capture against itself and the run's JSON.
real() {
  local name=$1 profile=$2 spec=$3 unit
  shift 3
  unit=$([[ $profile == 1 ]] && echo yarc.phits || echo t3e.flits)
  local before after
  before=$(date +%s.%N)
  "$fabemu" run "$src/topologies/$spec" --quiet --json "$tmp/$name.json" "$@" \
    --capture all --capture-file "$tmp/$name.pcapng"
  after=$(date +%s.%N)
  ts -r "$tmp/$name.pcapng" -T fields -e fabemu.link -e fabemu.profile -e fabemu.units \
    -e "fabemu.$unit" -e fabemu.dst -e fabemu.yarc.dest -e fabemu.t3e.dst -e fabemu.crc.status \
    -e _ws.expert.message -e _ws.col.Source -e _ws.col.Destination -e fabemu.src \
    -e frame.time_epoch -e fabemu.time_ps >"$tmp/$name.tsv"
  local rows
  rows=$(wc -l <"$tmp/$name.tsv")
  ((rows > 1000)) || { echo "FAIL: $name: only $rows packets captured"; fail=1; }
  # Columns: 1 link, 2 profile, 3 units, 4 phits/flits, 5 header dst,
  # 6/7 encoding dst, 8 CRC status, 9 expert messages, 10/11 Source and
  # Destination columns, 12 header src, 13 timestamp, 14 emulated time.
  same "$name: packets not dissected as profile $profile" \
    "$(awk -F'\t' -v p="$profile" '$1 == "" || $2 != p' "$tmp/$name.tsv" | wc -l)" 0
  same "$name: packets whose units differ from the encoding's length" \
    "$(awk -F'\t' '$3 != $4' "$tmp/$name.tsv" | wc -l)" 0
  same "$name: packets whose encoding destination differs from the header's" \
    "$(awk -F'\t' '$5 != $6 $7' "$tmp/$name.tsv" | wc -l)" 0
  if [[ $profile == 1 ]]; then
    same "$name: packets without a good CRC" "$(awk -F'\t' '$8 != 1' "$tmp/$name.tsv" | wc -l)" 0
  fi
  same "$name: packets with expert info (first: $(awk -F'\t' '$9 != "" { print $9; exit }' "$tmp/$name.tsv"))" \
    "$(awk -F'\t' '$9 != ""' "$tmp/$name.tsv" | wc -l)" 0
  same "$name: packets whose Source and Destination columns are not their endpoints" \
    "$(awk -F'\t' '$10 != "ep" $12 || $11 != "ep" $5' "$tmp/$name.tsv" | wc -l)" 0
  same "$name: packets earlier than the one before them" "$(out_of_time_order "$tmp/$name.tsv" 14)" 0
  same "$name: packets whose timestamp is not the run's start plus emulated time" \
    "$(off_start "$tmp/$name.tsv" 13 14)" 0
  same "$name: the run's start in the timestamps is between the times before and after it" \
    "$(start_between "$tmp/$name.tsv" 13 14 "$before" "$after")" 1
  # Per link: "link packets" for every link with traffic, from both sides.
  cut -f1 "$tmp/$name.tsv" | sort -n | uniq -c | awk '{ print $2, $1 }' >"$tmp/$name.cap"
  jq -r '.links | to_entries[] | select(.value.packets > 0) | "\(.key) \(.value.packets)"' \
    "$tmp/$name.json" | sort -n >"$tmp/$name.run"
  same "$name: links whose captured packets differ from the JSON's count (<capture >json)" \
    "$(diff "$tmp/$name.cap" "$tmp/$name.run" | grep -c '^[<>]')" 0
}

# Two workers: the writer merges their records into one time order.
real t3e 2 t3e-4x4x4.yaml --set run.workers=2 --set run.warmup_ns=1000 --set run.measure_ns=5000
real yarc 1 yarc-r2-1024.yaml --set run.workers=1 --set traffic.load=0.02 \
  --set run.warmup_ns=500 --set run.measure_ns=2000
# The flatfly profile carries YARC phits too (UGAL: minimal and non-minimal routes).
real flatfly 1 flatfly-4x3.yaml --set routing=ugal --set vcs.count=3 \
  --set run.warmup_ns=500 --set run.measure_ns=2000

# A snapshot length of 80 bytes keeps 18 of the encoding (6 phits): every
# packet flagged truncated, decoded as far as captured (the head phit's
# destination), the CRC unverified and nothing reported malformed.
"$fabemu" run "$src/topologies/yarc-r2-1024.yaml" --quiet --set run.workers=1 \
  --set traffic.load=0.02 --set run.warmup_ns=200 --set run.measure_ns=500 \
  --set capture.snaplen=80 --capture all --capture-file "$tmp/cut.pcapng"
ts -r "$tmp/cut.pcapng" -T fields -e fabemu.flags.truncated -e fabemu.crc.status \
  -e fabemu.yarc.dest -e fabemu.dst -e fabemu.malformed -e fabemu.mismatch >"$tmp/cut.tsv"
same "cut: packets captured" "$(($(wc -l <"$tmp/cut.tsv") > 100))" 1
same "cut: packets not truncated, unverified and decoded" \
  "$(awk -F'\t' '$1 != 1 || $2 != 2 || $3 != $4 || $5 != "" || $6 != ""' "$tmp/cut.tsv" | wc -l)" 0

# Host frames through the fabric: N ICMP echo requests of 60 + 37 seq bytes.
n=20
python3 "$src/tests/support/make_capture.py" --frames "$tmp/in.pcap" $n
head -c 24 "$tmp/in.pcap" >"$tmp/empty.pcap"  # the file header alone: port b sends nothing

# frames NAME SPEC ENDPOINT LINKS: a real-time run where port a at endpoint 0
# sends the frames to port b at ENDPOINT over at least LINKS links, every
# link tapped; each link reassembles each frame.
frames() {
  local name=$1 spec=$2 ep=$3 min_links=$4 links
  "$fabemu" run "$src/topologies/$spec" --quiet --json "$tmp/$name.json" \
    --set run.mode=realtime --set traffic.load=0 --set run.duration_s=1 \
    --set "ports=[{name: a, device: \"net_pcap0,rx_pcap=$tmp/in.pcap,tx_pcap=$tmp/$name.a.pcap\", endpoint: 0},
                  {name: b, device: \"net_pcap1,rx_pcap=$tmp/empty.pcap,tx_pcap=$tmp/$name.b.pcap\", endpoint: $ep}]" \
    --capture all --capture-file "$tmp/$name.pcapng" 2>"$tmp/$name.err" || { cat "$tmp/$name.err"; exit 1; }
  same "$name: frames port b sent to its host" "$(jq '.ports[1].tx_frames' "$tmp/$name.json")" $n
  # Real time: packets and the ports' frames, one time order.
  ts -r "$tmp/$name.pcapng" -T fields -e frame.time_epoch >"$tmp/$name.times"
  same "$name: records earlier than the one before them" "$(out_of_time_order "$tmp/$name.times" 1)" 0
  # Fabric packets (the port taps' own frames are not): link, frame flag,
  # and for a reassembled frame its ICMP seq, length and checksum status.
  ts -r "$tmp/$name.pcapng" -Y fabemu -T fields -e fabemu.link -e fabemu.flags.frame -e icmp.seq \
    -e fabemu.frame.length -e icmp.checksum.status >"$tmp/$name.all"
  links=$(awk -F'\t' '$2 == 1 { print $1 }' "$tmp/$name.all" | sort -u | wc -l)
  awk -F'\t' -v OFS='\t' '$3 != "" { print $1, $3, $4, $5 }' "$tmp/$name.all" >"$tmp/$name.tsv"
  ((links >= min_links)) || { echo "FAIL: $name: frame segments on only $links links"; fail=1; }
  same "$name: links with frame segments but not $n reassembled frames" \
    "$(cut -f1 "$tmp/$name.tsv" | sort -n | uniq -c | awk -v n=$n '$1 != n' | wc -l)/$(cut -f1 "$tmp/$name.tsv" | sort -u | wc -l)" \
    "0/$links"
  same "$name: reassembled frames with a wrong sequence set, length or checksum" \
    "$(awk -F'\t' -v n=$n '$3 != 60 + 37 * $2 || $4 != 1 || $2 >= n' "$tmp/$name.tsv" | wc -l)" 0
  same "$name: distinct frames reassembled" "$(cut -f2 "$tmp/$name.tsv" | sort -u | wc -l)" $n
}

frames t3e-port t3e-4x4x4.yaml 42 8   # 6 router-to-router hops, injection, ejection
frames yarc-port yarc-r1-32.yaml 17 2  # one router: injection and ejection

echo "dissector: $passed checks passed"
exit $fail
