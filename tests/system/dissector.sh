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
#   bash tests/system/dissector.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: dissector.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: dissector.sh FABEMU_BINARY SOURCE_DIR}
command -v tshark >/dev/null || { echo "dissector: tshark is missing (scripts/lib/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lua=$src/pcap-tools/fabemu.lua
fail=0
passed=0

# tshark with the dissector loaded. tshark reports a Lua error on stderr and
# carries on without the dissector, so any Lua message fails the test.
ts() {
  tshark -X "lua_script:$lua" "$@" 2>"$tmp/stderr" || { cat "$tmp/stderr"; echo "FAIL: tshark $*"; exit 1; }
  if grep -qi "lua" "$tmp/stderr"; then
    cat "$tmp/stderr"
    echo "FAIL: the dissector did not load or run cleanly"
    exit 1
  fi
}

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
)
table() {  # CAPTURE TABLE: the fields above, tab-separated, a header line first
  local args=() f
  for f in "${fields[@]}"; do args+=(-e "$f"); done
  ts -2 -r "$1" -T fields -E header=y "${args[@]}" >"$2"
}

# expect TABLE PACKET FIELD=VALUE...: the packet's fields have these values
# (several occurrences of a field are comma-separated, absent is empty).
expect() {
  local t=$1 n=$2 kv name want got
  shift 2
  for kv in "$@"; do
    name=${kv%%=*}
    want=${kv#*=}
    got=$(awk -F'\t' -v f="$name" -v n="$n" '
      NR == 1 { for (i = 1; i <= NF; i++) if ($i == f) c = i; next }
      $1 == n { print c ? $c : "<no such column>" }' "$t")
    if [[ $got == "$want" ]]; then
      passed=$((passed + 1))
    else
      echo "FAIL: $(basename "$t") packet $n: $name is '$got', expected '$want'"
      fail=1
    fi
  done
}

# count CAPTURE FILTER EXPECTED WHAT [tshark options]: packets matching a
# display filter.
count() {
  local file=$1 filter=$2 want=$3 what=$4
  shift 4
  ts -r "$file" -Y "$filter" -T fields -e frame.number "$@" >"$tmp/count"
  local got
  got=$(wc -l <"$tmp/count")
  if [[ $got == "$want" ]]; then
    passed=$((passed + 1))
  else
    echo "FAIL: $(basename "$file"): $what: $got packets match '$filter', expected $want"
    fail=1
  fi
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
  "_ws.col.Info=YARC 19 phits ep3->ep12 vc0 link 0"
# 0x00..0x1f as a 22-bit stream: 0x000102 >> 2, then the next 22 bits, ...
expect "$y" 1 fabemu.yarc.payload_bits=0x000040,0x203040,0x14181c,0x08090a,0x02c303,0x10e0f1,0x004448,0x131415,0x0585c6,0x0191a1,0x2c7074,0x1e1f00
# YARC 4: a response, adaptive, no hash phit: head, T0..T3, 3 payload, EOP.
expect "$y" 4 fabemu.flags.response=1 fabemu.vc=1 fabemu.link=1 fabemu.yarc.phits=9 \
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
    icmp.checksum.status=1
done
expect "$y" 7 fabemu.frame.segment=3,6,7
expect "$y" 10 fabemu.frame.segment=2,5,10
count "$tmp/yarc.pcapng" icmp 2 "both copies of the frame reassembled in one pass"
count "$tmp/yarc.pcapng" "fabemu.mismatch || fabemu.malformed" 0 "no header/encoding disagreement"
count "$tmp/yarc.pcapng" "fabemu.crc.bad" 1 "one bad CRC"

# T3E 1: Get request, 2 header flits, sideband 3 on flit 1.
expect "$t" 1 fabemu.profile=2 fabemu.units=2 fabemu.encoded_bytes=18 fabemu.link=7 fabemu.vc=2 \
  fabemu.t3e.flits=2 fabemu.t3e.head=1,0 fabemu.t3e.tail=0,1 fabemu.t3e.header=1,1 \
  fabemu.t3e.class=0,0 fabemu.t3e.sideband=0,3 fabemu.t3e.dst=21 fabemu.t3e.command=2 \
  fabemu.t3e.payload_bytes=0 fabemu.t3e.header_flits=2 fabemu.t3e.route_tag=0x01020304 \
  fabemu.t3e.src=5 fabemu.t3e.msg_seq=1193046 fabemu.t3e.seg=0 fabemu.t3e.nseg=1 \
  fabemu.payload= fabemu.payload_len=0 fabemu.crc.status= \
  "_ws.col.Info=T3E 2 flits ep5->ep21 vc2 link 7"
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
count "$tmp/t3e.pcapng" icmp 1 "the frame reassembled in one pass"
count "$tmp/t3e.pcapng" "fabemu.mismatch" 1 "one header/encoding disagreement"
count "$tmp/t3e.pcapng" "fabemu.malformed" 0 "no malformed encoding"

echo "dissector: $passed checks passed"
exit $fail
