# Sourced by the system tests that read fabemu captures with tshark: checks
# of a table (tab-separated) with a packet's timestamp (frame.time_epoch)
# and emulated time (fabemu.time_ps) in columns TS and PS.

# out_of_time_order FILE PS: rows earlier than the row before them.
out_of_time_order() {
  awk -F'\t' -v c="$2" 'NR > 1 && $c < t { n++ } { t = $c } END { print n + 0 }' "$1"
}

# off_start FILE TS PS: rows whose timestamp is not the first row's start
# plus emulated time (to the microsecond a double's epoch seconds keep).
off_start() {
  awk -F'\t' -v ts="$2" -v ps="$3" '{ s = $ts - $ps / 1e12 } NR == 1 { s0 = s }
    (s - s0) > 2e-6 || (s0 - s) > 2e-6 { n++ } END { print n + 0 }' "$1"
}

# start_between FILE TS PS BEFORE AFTER: 1 when the start the timestamps
# count from lies between two wall-clock readings (date +%s.%N).
start_between() {
  awk -F'\t' -v ts="$2" -v ps="$3" -v b="$4" -v a="$5" \
    'NR == 1 { s = $ts - $ps / 1e12; print (s >= b - 1e-6 && s <= a) }' "$1"
}
