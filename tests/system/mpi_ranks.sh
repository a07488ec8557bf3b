#!/usr/bin/env bash
# System test: fabemu under mpirun (control/mpi/). Two and four ranks of one
# job load rank 0's spec and check that every rank runs the same build and
# resolved the same spec; a rank with another --set, another build (the
# same program with another build id) or an unreadable spec stops every
# rank, each naming the difference; describe prints the partition over the
# job's ranks; a run over several ranks is refused plainly (the links
# between ranks are not built yet); mpirun -n 1 is an ordinary run.
#
#   bash tests/system/mpi_ranks.sh FABEMU_BINARY SOURCE_DIR
set -uo pipefail

fabemu=${1:?usage: mpi_ranks.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: mpi_ranks.sh FABEMU_BINARY SOURCE_DIR}
fabemu=$(realpath "$fabemu")
src=$(realpath "$src")
command -v mpirun >/dev/null || { echo "mpi_ranks: no mpirun (scripts/lib/setup.sh installs openmpi-bin)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "mpi_ranks: $*"; exit 1; }
topo="$src/topologies/t3e-4x4x4.yaml"
mpi=(mpirun --oversubscribe)
[[ $(id -u) -eq 0 ]] && mpi+=(--allow-run-as-root)

# A build without MPI refuses a job of several ranks, and nothing else.
if ! "${mpi[@]}" -n 2 "$fabemu" check "$topo" >"$tmp/out" 2>"$tmp/err"; then
  if grep -q "built without MPI" "$tmp/err"; then
    echo "mpi_ranks: this fabemu has no MPI: refuses a job of 2 ranks as it should"
    exit 77
  fi
  cat "$tmp/err"
  fail "check over 2 ranks failed"
fi
grep -q "ok (t3e 4x4x4: 64 routers.*) on 2 MPI ranks, every one running the same build and spec" \
  "$tmp/out" || fail "check over 2 ranks: $(cat "$tmp/out")"
[[ $(grep -c ": ok" "$tmp/out") -eq 1 ]] || fail "check: more than rank 0 printed the verdict"
echo "mpi_ranks: check over 2 ranks: $(cat "$tmp/out")"

# Rank 0's spec reaches every rank: the others run from a directory where
# the file's path means nothing.
cp "$topo" "$tmp/only-rank0.yaml"
(cd "$tmp" && "${mpi[@]}" -n 1 "$fabemu" check only-rank0.yaml : -n 3 --wdir / "$fabemu" check \
  only-rank0.yaml) >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "ranks 1-3 did not get rank 0's spec"; }
grep -q "on 4 MPI ranks" "$tmp/out" || fail "4 ranks: $(cat "$tmp/out")"
echo "mpi_ranks: ranks 1-3 ran rank 0's spec file (not on their path)"

# Another --set on one rank: every rank stops, naming it.
if "${mpi[@]}" -n 1 "$fabemu" check "$topo" : -n 1 "$fabemu" check "$topo" \
  --set traffic.load=0.2 >"$tmp/out" 2>"$tmp/err"; then
  fail "ranks with different --set options were accepted"
fi
[[ $(grep -c "the ranks resolved different specs: rank 0 (.*) resolved spec [0-9a-f]*, rank 1 (.*) resolved spec" "$tmp/err") -eq 2 ]] ||
  { cat "$tmp/err"; fail "a spec mismatch was not reported by both ranks"; }
echo "mpi_ranks: different --set on rank 1 stops both ranks"

# Another build on rank 1 (the same program with another build id).
if command -v objcopy >/dev/null; then
  objcopy --dump-section .note.gnu.build-id="$tmp/id" "$fabemu" "$tmp/discard" 2>/dev/null || fail "no build id in $fabemu"
  python3 - "$tmp/id" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[-1] ^= 0xff  # the last byte of the id itself
open(p, 'wb').write(bytes(b))
PY
  objcopy --update-section .note.gnu.build-id="$tmp/id" "$fabemu" "$tmp/fabemu-other" ||
    fail "objcopy could not write another build id"
  if "${mpi[@]}" -n 1 "$fabemu" check "$topo" : -n 1 "$tmp/fabemu-other" check "$topo" \
    >"$tmp/out" 2>"$tmp/err"; then
    fail "ranks with different builds were accepted"
  fi
  grep -q "the ranks run different fabemu builds: rank 0 (.*) runs build [0-9a-f]*, rank 1 (.*) runs build [0-9a-f]*; install the same build" "$tmp/err" ||
    { cat "$tmp/err"; fail "a build mismatch was not reported"; }
  rm -f "$tmp/fabemu-other" "$tmp/discard"
  echo "mpi_ranks: another build on rank 1 stops both ranks"
fi

# A spec rank 0 cannot read: every rank says so and stops.
if "${mpi[@]}" -n 2 "$fabemu" check "$tmp/missing.yaml" >"$tmp/out" 2>"$tmp/err"; then
  fail "a missing spec was accepted"
fi
[[ $(grep -c "cannot read the spec file" "$tmp/err") -eq 2 ]] || { cat "$tmp/err"; fail "missing spec"; }

# describe: the partition over the job's ranks (and --ranks without mpirun).
"${mpi[@]}" -n 2 "$fabemu" describe "$topo" --json "$tmp/d.json" >"$tmp/out" 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "describe over 2 ranks failed"; }
grep -q "partition *2 ranks x 1 worker, 384 router-to-router links" "$tmp/out" || fail "describe: $(cat "$tmp/out")"
grep -q "rank 1: 32 routers, 32 endpoints, 32 cut links out" "$tmp/out" || fail "describe: rank 1 line"
[[ $(jq -c '.partition.routers' "$tmp/d.json") == "[[32],[32]]" ]] || fail "describe JSON partition"
[[ $(jq '.partition.rank_cut_links' "$tmp/d.json") == 64 ]] || fail "describe JSON cut links"
"$fabemu" describe "$topo" --ranks 4 --set run.workers=2 >"$tmp/out" || fail "describe --ranks 4"
grep -q "rank 3: 16 routers (workers: 8 8), 16 endpoints" "$tmp/out" || fail "describe --ranks 4: $(grep -A6 partition "$tmp/out")"
echo "mpi_ranks: describe prints the partition"

# Runs over 1, 2 and 4 ranks give the same report, every section but the
# host's (performance, run, spec): 1500-byte messages of 24 packets on the
# 4x4x4 torus under load. mpirun -n 1 is the one-process run.
same() {  # $1 $2: reports; $3: what
  python3 - "$1" "$2" "$3" <<'PY' || fail "$3: the reports differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
bad = [k for k in a if k not in ("performance", "run", "spec") and a[k] != b.get(k)]
if bad:
    sys.exit(f"mpi_ranks: {sys.argv[3]}: sections differ: {bad}")
print(f"mpi_ranks: {sys.argv[3]}: every section equal")
PY
}
load=(--quiet --set run.workers=1 --set run.seed=7 --set "traffic.sizes=[64, 1500]"
      --set traffic.load=0.4 --set run.warmup_ns=2000 --set run.measure_ns=20000)
"$fabemu" run "$topo" "${load[@]}" --json "$tmp/r1.json" >/dev/null 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "one-process run failed"; }
for n in 1 2 4; do
  "${mpi[@]}" -n $n "$fabemu" run "$topo" "${load[@]}" --json "$tmp/m$n.json" >"$tmp/out" 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "run over $n ranks failed"; }
  same "$tmp/r1.json" "$tmp/m$n.json" "torus, $n rank(s) against one process"
done
[[ $(jq '.run.ranks' "$tmp/m4.json") == 4 ]] || fail "the report does not say 4 ranks"
[[ $(jq '.performance.workers | length' "$tmp/m4.json") == 4 ]] || fail "the report lacks the 4 ranks' workers"
# The rank-2 Clos on the YARC tiled router over 2 and 4 ranks, and on 2
# workers of one process.
clos=("$src/topologies/yarc-r2-1024.yaml" --quiet --set run.workers=1 --set run.seed=7
      --set topology.endpoints=64 --set router.model=yarc_tiled --set routing=updown
      --set "traffic.sizes=[64, 1500]" --set traffic.load=0.3 --set run.warmup_ns=2000
      --set run.measure_ns=10000)
"$fabemu" run "${clos[@]}" --json "$tmp/c1.json" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; fail "clos"; }
for n in 2 4; do
  "${mpi[@]}" -n $n "$fabemu" run "${clos[@]}" --json "$tmp/c$n.json" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "clos over $n ranks failed"; }
  same "$tmp/c1.json" "$tmp/c$n.json" "clos (yarc_tiled), $n ranks against one process"
done
"$fabemu" run "${clos[@]/run.workers=1/run.workers=2}" --json "$tmp/cw.json" >/dev/null 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "clos on 2 workers"; }
same "$tmp/c1.json" "$tmp/cw.json" "clos (yarc_tiled), 2 workers against 1"
# The flatfly with UGAL over 2 ranks is exactly the same run as 2 workers
# of one process (its adaptive choices see where routers run).
ff=("$src/topologies/flatfly-32x2.yaml" --quiet --set run.seed=7 --set routing=ugal
    --set vcs.count=3 --set "traffic.sizes=[64, 1500]" --set traffic.load=0.3
    --set run.warmup_ns=2000 --set run.measure_ns=3000)
"$fabemu" run "${ff[@]}" --set run.workers=2 --json "$tmp/f1.json" >/dev/null 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "flatfly on 2 workers"; }
"${mpi[@]}" -n 2 "$fabemu" run "${ff[@]}" --set run.workers=1 --json "$tmp/f2.json" >/dev/null 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "flatfly over 2 ranks failed"; }
same "$tmp/f1.json" "$tmp/f2.json" "flatfly ugal, 2 ranks against 2 workers"
# Rank 0 prints the job's summary.
"${mpi[@]}" -n 2 "$fabemu" run "$topo" --set run.workers=1 --set run.measure_ns=2000 >"$tmp/out" 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "run over 2 ranks with its summary"; }
[[ $(grep -c "^speed .* (1 worker on each of 2 MPI ranks)" "$tmp/out") -eq 1 ]] ||
  fail "summary: $(cat "$tmp/out")"

# What the ranks do not carry yet is refused on every rank, before it starts.
if "${mpi[@]}" -n 2 "$fabemu" run "$topo" --quiet --set run.workers=1 --set link.retry=true \
  >"$tmp/out" 2>"$tmp/err"; then
  fail "link-level retry over 2 ranks started"
fi
grep -q "over 2 MPI ranks, link-level retry (link.retry) is not carried between ranks yet" "$tmp/err" ||
  { cat "$tmp/err"; fail "link.retry over ranks: no reason"; }
echo "mpi_ranks: what is not carried between ranks is refused"
# A rank killed with SIGKILL (mpirun kills the others when one dies) leaves
# its DPDK runtime folder; the next fabemu on the machine removes the
# folders of processes that are gone, and keeps those of live ones.
if [[ $(id -u) -eq 0 && -d /var/run/dpdk ]]; then
  gone=/var/run/dpdk/fabemu_$(($(cat /proc/sys/kernel/pid_max) + 7))  # no process has that pid
  alive=/var/run/dpdk/fabemu_$$
  made_alive=0
  [[ -e $alive ]] || { mkdir "$alive"; made_alive=1; }
  mkdir -p "$gone"
  "$fabemu" run "$topo" --quiet --set run.measure_ns=1000 >/dev/null 2>&1 || fail "a short run failed"
  [[ ! -e $gone ]] || fail "the runtime folder of a process that is gone was left: $gone"
  [[ -e $alive ]] || fail "the runtime folder of a live process was removed: $alive"
  ((made_alive)) && rmdir "$alive"
  echo "mpi_ranks: a killed process's DPDK runtime folder goes at the next run"
fi
ls /var/run/dpdk 2>/dev/null | grep -q . && echo "mpi_ranks: note: /var/run/dpdk has $(ls /var/run/dpdk)"
echo "mpi_ranks: ok"
