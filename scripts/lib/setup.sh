# shellcheck shell=bash
# Shared set-up for scripts/run.sh and scripts/test.sh (sourced, not run):
# install the Debian packages that are missing, then configure and build
# fabemu in build/. Safe to repeat: nothing is installed or rebuilt twice.
#
# Environment: FABEMU_BUILD (build directory, default <repo>/build),
# FABEMU_BUILD_TYPE (default RelWithDebInfo), FABEMU_JOBS (parallel jobs),
# FABEMU_TARGETS (what to build, space-separated; default everything).

FABEMU_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FABEMU_BUILD=${FABEMU_BUILD:-$FABEMU_ROOT/build}

fabemu_packages=(
  build-essential cmake ninja-build pkg-config
  libdpdk-dev dpdk-dev libtbb-dev libyaml-cpp-dev libgtest-dev libbenchmark-dev libpcap-dev
  nlohmann-json3-dev libfmt-dev libcli11-dev
  iproute2 iperf3 ethtool iputils-ping time jq python3 curl
  tshark  # tests/system/dissector.sh runs pcap-tools/fabemu.lua in it
  python3-matplotlib  # fabemu pcap --plot (pcap-tools/fabemu-pcap)
  python3-jsonschema  # tests/system/json_schema.sh checks reports against docs/report.schema.json
  openmpi-bin libopenmpi-dev  # several ranks: mpirun -n R fabemu run (control/mpi/)
)

# Installs only what dpkg does not report as installed; runs apt-get update
# only then, and uses sudo only when not already root.
fabemu_install_packages() {
  local missing=() p
  for p in "${fabemu_packages[@]}"; do
    dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing+=("$p")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    return 0
  fi
  echo "setup: installing ${missing[*]}" >&2
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
}

# Parallel jobs: one per core, but no more than one per 2 GB of memory (the
# engine's template instances are large translation units).
fabemu_jobs() {
  if [[ -n ${FABEMU_JOBS:-} ]]; then
    echo "$FABEMU_JOBS"
    return
  fi
  local cores mem_gb
  cores=$(nproc 2>/dev/null || echo 2)
  mem_gb=$(awk '/MemAvailable/ { print int($2 / 1048576) }' /proc/meminfo 2>/dev/null || echo 4)
  local by_mem=$((mem_gb / 2))
  ((by_mem < 1)) && by_mem=1
  echo $((cores < by_mem ? cores : by_mem))
}

# Configures (first time: Ninja when available) and builds. Extra arguments
# go to cmake's configure step, e.g. -DFABEMU_WERROR=ON.
fabemu_build() {
  local gen=()
  # A build directory keeps its generator; only choose one the first time.
  if [[ ! -f $FABEMU_BUILD/CMakeCache.txt ]] && command -v ninja >/dev/null; then
    gen=(-G Ninja)
  fi
  cmake -S "$FABEMU_ROOT" -B "$FABEMU_BUILD" "${gen[@]}" \
    -DCMAKE_BUILD_TYPE="${FABEMU_BUILD_TYPE:-RelWithDebInfo}" "$@"
  local targets=()
  # shellcheck disable=SC2206  # FABEMU_TARGETS is a space-separated list
  [[ -n ${FABEMU_TARGETS:-} ]] && targets=(--target ${FABEMU_TARGETS})
  cmake --build "$FABEMU_BUILD" -j "$(fabemu_jobs)" "${targets[@]}"
}
