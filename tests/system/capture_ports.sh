#!/usr/bin/env bash
# System test of port taps (issue 11): frames of a pcap file enter the T3E
# 4x4x4 torus at endpoint 0 through a net_pcap port and leave at endpoint 42.
# With --capture port=a, port=b and endpoint=0 the capture file must hold
# every frame as the host sent it (inbound on port:a) and as the host
# received it (outbound on port:b), byte for byte, and the fabric packets
# carrying them on endpoint 0's injection link, as many as the JSON counts.
#
#   bash tests/system/capture_ports.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

fabemu=${1:?usage: capture_ports.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: capture_ports.sh FABEMU_BINARY SOURCE_DIR}
command -v python3 >/dev/null || { echo "capture_ports: python3 is missing (scripts/lib/setup.sh installs it)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=30
python3 - "$tmp/in.pcap" "$n" <<'PY'
import struct, sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i in range(n):
        body = bytes.fromhex("020000000002" "020000000001") + struct.pack(">H", 0x88b5)
        body += bytes((i + k) & 255 for k in range(46 + i * 40))
        f.write(struct.pack("<IIII", 1, i * 1000, len(body), len(body)) + body)
PY
python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<IHHiIII",0xa1b2c3d4,2,4,0,0,65535,1))' "$tmp/empty.pcap"

"$fabemu" run "$src/topologies/t3e-4x4x4.yaml" --quiet --json "$tmp/run.json" \
  --set run.mode=realtime --set traffic.load=0 --set run.duration_s=1 \
  --set "ports=[{name: a, device: \"net_pcap0,rx_pcap=$tmp/in.pcap,tx_pcap=$tmp/out_a.pcap\", endpoint: 0},
                {name: b, device: \"net_pcap1,rx_pcap=$tmp/empty.pcap,tx_pcap=$tmp/out_b.pcap\", endpoint: 42}]" \
  --capture port=a --capture port=b --capture endpoint=0 --capture-file "$tmp/cap.pcapng"

python3 - "$tmp" "$n" "$src/tests/support" <<'PY'
import json, sys
tmp, n = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, sys.argv[3])
from capture_files import pcap_records, pcapng_records

fail = 0
def check(ok, what):
    global fail
    print(("ok: " if ok else "FAIL: ") + what)
    fail |= not ok

sent = [f for _, f in pcap_records(f"{tmp}/in.pcap")]
ifs, records = pcapng_records(f"{tmp}/cap.pcapng")
pkts = [(name, flags, data, orig) for name, _, flags, data, orig in records]
run = json.load(open(f"{tmp}/run.json"))
check("port:a" in ifs and "port:b" in ifs, f"interfaces port:a and port:b ({ifs})")
a_in = [p[2] for p in pkts if p[0] == "port:a" and p[1] == 1]
b_out = [p[2] for p in pkts if p[0] == "port:b" and p[1] == 2]
check(a_in == sent, f"port:a inbound holds the {n} frames the host sent, byte for byte ({len(a_in)})")
check(b_out == sent, f"port:b outbound holds the {n} frames the host received ({len(b_out)})")
check(not [p for p in pkts if p[0] == "port:a" and p[1] != 1], "nothing left through port:a")
inj = [p for p in pkts if p[0] == "ep0>r0.p6"]
links = run["links"]
want = [l["packets"] for l in links if l["from"] == {"endpoint": 0}][0]
check(len(inj) == want and want > n, f"ep0>r0.p6 holds the {want} packets the JSON counts ({len(inj)})")
check(all(p[2][12:14] == b"\x88\xb5" and p[2][16] & 0x10 for p in inj),
      "each is an 0x88B5 frame flagged as a frame segment")
check(run["capture"]["drops"] == 0 and run["capture"]["written"] == len(pkts),
      f"the JSON counts {run['capture']['written']} written, {run['capture']['drops']} dropped")
sys.exit(fail)
PY
