# Sourced by the system tests that read fabemu captures with tshark and the
# dissector: the caller sets $lua (pcap-tools/fabemu.lua), $tmp, fail=0 and
# passed=0.

# ts ARGS...: tshark with the dissector loaded. tshark reports a Lua error
# on stderr and carries on without the dissector, so any Lua message fails
# the test.
ts() {
  tshark -X "lua_script:$lua" "$@" 2>"$tmp/stderr" || { cat "$tmp/stderr"; echo "FAIL: tshark $*"; exit 1; }
  if grep -qi "lua" "$tmp/stderr"; then
    cat "$tmp/stderr"
    echo "FAIL: the dissector did not load or run cleanly"
    exit 1
  fi
}

# same WHAT GOT WANT: records a result computed outside the dissector.
same() {
  if [[ $2 == "$3" ]]; then
    passed=$((passed + 1))
  else
    echo "FAIL: $1: got '$2', expected '$3'"
    fail=1
  fi
}
