#!/usr/bin/env bash
# scripts/lib/replay_pcap.py, the host-trace maker of the replay benches:
# its trace (a pcap of 1000 frames 1 us apart), '-' for standard output, and
# its exit statuses as fabemu's: 0 ok, 1 the file could not be written, 2 a
# bad command line (with fabemu's error lines). Under a second.
# Usage: replay_pcap.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail
src=${2:?usage: replay_pcap.sh FABEMU_BINARY SOURCE_DIR}
tool=$src/scripts/lib/replay_pcap.py
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL $*"; exit 1; }
expect() {  # status, text stderr must hold, arguments...
  local want=$1 text=$2 status=0
  shift 2
  "$tool" "$@" >"$out/o" 2>"$out/e" || status=$?
  [[ $status -eq $want ]] && grep -qF -- "$text" "$out/e" ||
    fail "replay_pcap.py $* (exit $status, wanted $want and '$text'): $(cat "$out/e")"
  echo "OK   replay_pcap.py $*: exit $status"
}
"$tool" "$out/t.pcap" 64
python3 - "$out/t.pcap" <<'PY' || fail "the trace"
import struct, sys
d = open(sys.argv[1], "rb").read()
assert struct.unpack_from("<I", d)[0] == 0xA1B23C4D  # nanosecond pcap
n, off, times = 0, 24, []
while off < len(d):
    s, ns, cap, orig = struct.unpack_from("<IIII", d, off)
    assert cap == orig == 64
    times.append(s * 10**9 + ns)
    off += 16 + cap
    n += 1
assert n == 1000 and times[1] - times[0] == 1000, (n, times[:2])
PY
echo "OK   1000 frames of 64 bytes, 1 us apart"
"$tool" - 64 | cmp -s - "$out/t.pcap" || fail "'-' is not the same trace on standard output"
echo "OK   '-' writes the trace to standard output"
expect 2 "SIZE '5': give 0, or a frame size of 14 bytes or more" "$out/x.pcap" 5
expect 2 "OUT SIZE: give 2 arguments, not 1" "$out/x.pcap"
expect 2 "--hepl is not an option of replay_pcap: did you mean --help?" --hepl "$out/x.pcap" 64
expect 2 "the folder $out/none does not exist" "$out/none/x.pcap" 64
expect 1 "cannot write /dev/full: No space left on device" /dev/full 64
echo "replay_pcap: all checks passed"
