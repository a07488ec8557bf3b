#!/usr/bin/env bash
# System test of spec validation through the real command line.
#
#   bash tests/system/bad_specs.sh FABEMU_BINARY SOURCE_DIR
#
# Every file in tests/system/bad_specs/ must make `fabemu check` exit 2 and
# print, on stderr, the substring its first line announces:
#   # expect: NAME.yaml:LINE:COL: field 'a.b'
# An optional "# args: ..." line adds arguments (e.g. --set) after the file.
# The shipped topologies must pass, and command-line mistakes must exit 2.
set -uo pipefail

fabemu=${1:?usage: bad_specs.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: bad_specs.sh FABEMU_BINARY SOURCE_DIR}
passed=0
failed=0
err=$(mktemp)
out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT

ok() { passed=$((passed + 1)); }
bad() {
  failed=$((failed + 1))
  echo "FAIL: $*"
}

# expect_status WANT DESCRIPTION -- COMMAND...: run, compare the exit status.
expect_status() {
  local want=$1 what=$2
  shift 3
  "$@" >"$out" 2>"$err"
  local got=$?
  if [[ $got -ne $want ]]; then
    bad "$what: exit $got, expected $want"
    sed 's/^/    stderr: /' "$err"
    return 1
  fi
  return 0
}

shopt -s nullglob
files=("$src"/tests/system/bad_specs/*.yaml)
if [[ ${#files[@]} -eq 0 ]]; then
  bad "no bad specs found in $src/tests/system/bad_specs"
fi
for f in "${files[@]}"; do
  name=$(basename "$f")
  expect=$(sed -n '1s/^# expect: //p' "$f")
  args=$(sed -n 's/^# args: //p' "$f")
  if [[ -z $expect ]]; then
    bad "$name: first line must be '# expect: SUBSTRING'"
    continue
  fi
  # shellcheck disable=SC2086  # args is a word list by design
  expect_status 2 "$name" -- "$fabemu" check "$f" $args || continue
  if grep -qF -- "$expect" "$err"; then
    ok
  else
    bad "$name: stderr lacks \"$expect\""
    sed 's/^/    stderr: /' "$err"
  fi
done

# Good files: every shipped topology checks clean.
for f in "$src"/topologies/*.yaml; do
  name=$(basename "$f")
  expect_status 0 "good $name" -- "$fabemu" check "$f" || continue
  if grep -qF "$f: ok (" "$out"; then ok; else bad "good $name: no 'ok (' line"; fi
done
# --set overrides a good file; each value is checked as it is applied.
expect_status 0 "--set override" -- "$fabemu" check "$src/topologies/t3e-4x4x4.yaml" \
  --set traffic.load=0.5 --set 'topology.dims=[8,8,8]' && ok
expect_status 2 "bad --set before a good one" -- "$fabemu" check \
  "$src/topologies/t3e-4x4x4.yaml" --set traffic.load=2 --set traffic.load=0.5 && ok

# run refuses what check refuses, before anything starts.
for f in memory_too_big long_packets tiny_wire; do
  expect_status 2 "run $f.yaml" -- "$fabemu" run "$src/tests/system/bad_specs/$f.yaml" && ok
done
# An error shows the start of a huge argument and the size, never all of it,
# and never raw bytes.
big=$(head -c 120000 /dev/zero | tr '\0' 7)
if expect_status 2 "a 120 kB --set value" -- "$fabemu" check "$src/topologies/t3e-4x4x4.yaml" \
  --set "traffic.load=$big"; then
  if [[ $(wc -c <"$err") -lt 1000 ]] && grep -qF "(120013 bytes)" "$err"; then ok; else
    bad "a 120 kB value: $(wc -c <"$err") bytes of error"
  fi
fi
binary=$(mktemp)
printf 'traffic:\n  pattern: "\x01\xff\x1b[31m"\n' >"$binary"
if expect_status 2 "raw bytes in a value" -- "$fabemu" check "$binary"; then
  if LC_ALL=C grep -q '[^[:print:][:space:]]' "$err"; then bad "raw bytes echoed"; else ok; fi
fi
rm -f "$binary"

# Command-line mistakes: exit 2 with a message; help exits 0.
expect_status 2 "unknown subcommand" -- "$fabemu" frobnicate && ok
expect_status 2 "no subcommand" -- "$fabemu" && ok
expect_status 2 "unknown flag" -- "$fabemu" check --frob "$src/topologies/t3e-4x4x4.yaml" && ok
# A misspelt long option gets the closest of that command's own.
if expect_status 2 "a misspelt option" -- "$fabemu" run "$src/topologies/t3e-4x4x4.yaml" --sett x=1; then
  if grep -qF -- "--sett is not an option of run: did you mean --set?" "$err"; then ok; else
    bad "misspelt --sett: no suggestion of --set"
  fi
fi
if expect_status 2 "a misspelt option of describe" -- "$fabemu" describe "$src/topologies/t3e-4x4x4.yaml" --jsn -; then
  if grep -qF -- "did you mean --json?" "$err"; then ok; else bad "misspelt --jsn: no suggestion"; fi
fi
if expect_status 2 "an option nothing is close to" -- "$fabemu" run "$src/topologies/t3e-4x4x4.yaml" --zzzzzz; then
  if grep -qF "did you mean" "$err"; then bad "--zzzzzz: a far-fetched suggestion"; else ok; fi
fi
expect_status 2 "missing FILE" -- "$fabemu" check && ok
expect_status 2 "missing file" -- "$fabemu" check "$src/no/such/spec.yaml" && ok
if expect_status 2 "a directory as FILE" -- "$fabemu" check "$src/topologies"; then
  if grep -qF "is a directory, not a spec file" "$err"; then ok; else bad "directory: no reason given"; fi
fi
expect_status 0 "--help" -- "$fabemu" --help && ok
if [[ $("$fabemu" --version) =~ ^fabemu\ [0-9.]+\ \(commit\ [^\)]+\)$ ]]; then ok; else
  bad "--version does not say its commit: $("$fabemu" --version)"
fi
expect_status 0 "check --help" -- "$fabemu" check --help && ok

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
