#include "dataplane/core/eal.h"

#include <errno.h>
#include <limits.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fabemu {

namespace {
bool g_started = false;
bool g_no_huge = true;
int g_memory_mb = 0;  // -m given to the EAL (no hugepages)
constexpr int kMinMemoryMb = 128;
constexpr int kDefaultMemoryMb = 4096;  // when the caller does not say

// The runtime folder, kept for a signal handler (no allocation there):
// written whole, then published by one atomic store, so that a signal in
// between never sees part of a path (such as /var/run/dpdk).
char g_runtime_dir_text[PATH_MAX] = "";
std::atomic<const char*> g_runtime_dir{nullptr};
static_assert(std::atomic<const char*>::is_always_lock_free, "read in a signal handler");

// The EAL's runtime folder (/var/run/dpdk/fabemu_<pid>) when it has made
// one: it makes it part way through starting, so a start that fails may
// leave it. Only this process's own folder is named.
std::string own_runtime_dir() {
  const std::string dir = rte_eal_get_runtime_dir();
  const std::string mine = "/fabemu_" + std::to_string(getpid());
  return dir.size() > mine.size() && dir.compare(dir.size() - mine.size(), mine.size(), mine) == 0
             ? dir
             : std::string();
}

// The runtime folders of fabemu processes that ended without removing
// theirs (killed with SIGKILL: a rank mpirun killed after another died, an
// out-of-memory kill), beside this process's own: fabemu_<pid> of a pid no
// process has.
void remove_dead_runtime_dirs(const std::string& own) {
  std::error_code ec;
  const std::filesystem::path base = std::filesystem::path(own).parent_path();
  for (const auto& entry : std::filesystem::directory_iterator(base, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("fabemu_", 0) != 0 || name.size() == 7 || name.size() > 17) continue;
    if (name.find_first_not_of("0123456789", 7) != std::string::npos) continue;
    const long pid = std::strtol(name.c_str() + 7, nullptr, 10);
    if (pid <= 0 || pid == getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue;
    std::filesystem::remove_all(entry.path(), ec);
  }
}

void remove_runtime_dir(const std::string& dir) {
  g_runtime_dir.store(nullptr);
  std::error_code ec;
  if (!dir.empty()) std::filesystem::remove_all(dir, ec);
}

// The EAL leaves its runtime folder behind; remove it when the process ends
// so runs do not pile them up.
void eal_cleanup_at_exit() {
  if (!g_started) return;
  const std::string dir = own_runtime_dir();
  rte_eal_cleanup();
  g_started = false;
  remove_runtime_dir(dir);
}
bool g_in_eal_init = false;
void exit_inside_eal_init() {
  if (!g_in_eal_init) return;
  std::fputs("fabemu: DPDK ended the process while starting (an EAL argument in run.eal or --eal "
             "that only prints, such as --help?); nothing ran\n",
             stderr);
  std::_Exit(1);
}
}  // namespace

bool eal_starting() { return g_in_eal_init; }

void eal_remove_runtime_dir_now() noexcept {
  // (Empty with --no-shconf.)
  if (const char* dir = g_runtime_dir.load(std::memory_order_acquire)) ::rmdir(dir);
}

bool eal_no_huge() { return g_no_huge; }

bool eal_hugepages_wanted() {
  const char* huge_env = std::getenv("FABEMU_HUGEPAGES");
  return !(huge_env && std::string(huge_env) == "0") && hugepages_free() > 0;
}

int eal_no_huge_memory_mb(int memory_mb) {
  const char* mem = std::getenv("FABEMU_DPDK_MEM_MB");
  if (mem && std::atoi(mem) > 0) return std::atoi(mem);
  return memory_mb > 0 ? std::max(memory_mb, kMinMemoryMb) : kDefaultMemoryMb;
}

long hugepages_free() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  long value = 0;
  while (in >> key >> value) {
    if (key == "HugePages_Free:") return value;
    in.ignore(256, '\n');
  }
  return 0;
}

int eal_lcores() { return g_started ? static_cast<int>(rte_lcore_count()) : 0; }

namespace {
std::vector<int> g_allowed;  // the process's CPUs before the EAL pinned its main thread

std::vector<int> affinity_now() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? cpu_list(set) : std::vector<int>{};
}
}  // namespace

std::vector<int> cpu_list(const cpu_set_t& set) {
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

std::vector<int> allowed_cpus() { return g_started ? g_allowed : affinity_now(); }

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) j++;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]) +
           (j > i ? "-" + std::to_string(cpus[j]) : "");
    i = j + 1;
  }
  return out;
}

bool eal_ensure(int lcores, std::string* err, const std::vector<std::string>& extra_args,
                bool pci, int memory_mb) {
  if (g_started) {
    if (g_no_huge && memory_mb > g_memory_mb) {
      *err = "DPDK runs in this process with " + std::to_string(g_memory_mb) +
             " MB but this run needs up to " + std::to_string(memory_mb) +
             " MB of packet buffers: set FABEMU_DPDK_MEM_MB to at least that";
      return false;
    }
    if (static_cast<int>(rte_lcore_count()) < lcores) {
      *err = "DPDK runs with " + std::to_string(rte_lcore_count()) + " lcore(s) but " +
             std::to_string(lcores) + " workers were asked for";
      return false;
    }
    return true;
  }
  // Use every CPU this process may run on (at least the ones asked for), so a
  // later run in the same process can use more workers.
  std::vector<int> cpus = affinity_now();
  if (cpus.empty()) cpus.push_back(0);
  if (static_cast<int>(cpus.size()) < lcores) {
    *err = "run.workers is " + std::to_string(lcores) + " but this process may use only " +
           std::to_string(cpus.size()) + " CPU(s); lower run.workers";
    return false;
  }
  std::string lcore_list;
  for (size_t i = 0; i < cpus.size(); i++)
    lcore_list += (i ? "," : "") + std::to_string(cpus[i]);
  const bool no_huge = !eal_hugepages_wanted();
  std::vector<std::string> args = {"fabemu",
                                   "--no-shconf",
                                   "--no-telemetry",
                                   "--file-prefix=fabemu_" + std::to_string(getpid()),
                                   "-l",
                                   lcore_list,
                                   "--log-level=error"};
  // Without hugepages the EAL describes its memory in 4 kB pages, and
  // setting up those descriptors costs time in proportion to -m (4 GB: about
  // 0.1 s): ask for what the run can use, not a fixed amount.
  const int mem_mb = eal_no_huge_memory_mb(memory_mb);
  if (no_huge) {
    args.insert(args.end(), {"--no-huge", "-m", std::to_string(mem_mb)});
  }
  if (!pci) args.push_back("--no-pci");
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // Arguments such as --help or --version make the EAL print and exit the
  // process; refuse them here so that a run that did not run cannot exit 0.
  for (const auto& a : extra_args)
    if (a == "-h" || a == "--help") {
      *err = "the EAL argument '" + a + "' (run.eal or --eal) makes DPDK print and exit " +
             "instead of running: remove it (DPDK's options: dpdk-testpmd --help)";
      return false;
    }
  // Any other way the EAL might end the process while it starts must not
  // look like success either.
  static bool hook = (std::atexit(exit_inside_eal_init), true);
  (void)hook;
  g_in_eal_init = true;
  const int rc = rte_eal_init(static_cast<int>(args.size()), argv.data());
  g_in_eal_init = false;
  if (rc < 0) {
    const int why = rte_errno;
    remove_runtime_dir(own_runtime_dir());
    *err = std::string("DPDK EAL failed to start: ") + rte_strerror(why) +
           " (set FABEMU_DPDK_MEM_MB to change its memory; no hugepages are needed)";
    return false;
  }
  g_allowed = cpus;
  g_memory_mb = mem_mb;
  g_started = true;
  g_no_huge = no_huge;
  const std::string dir = own_runtime_dir();
  if (!dir.empty() && dir.size() < sizeof(g_runtime_dir_text)) {
    std::memcpy(g_runtime_dir_text, dir.c_str(), dir.size() + 1);
    g_runtime_dir.store(g_runtime_dir_text, std::memory_order_release);
  }
  std::atexit(eal_cleanup_at_exit);
  if (!dir.empty()) remove_dead_runtime_dirs(dir);
  return true;
}

}  // namespace fabemu

// DPDK measures the TSC frequency by sleeping 100 ms between two readings
// (lib/eal/linux/eal_timer.c, get_tsc_freq) wherever the CPU does not state
// it (CPUID leaf 0x15; virtual machines, this one among them): two thirds of
// fabemu's start-up. While rte_eal_init runs, that one sleep is made 10 ms.
// The measurement divides the cycles by the time it measured itself
// (CLOCK_MONOTONIC_RAW) and rounds to 10 MHz, so it stays as exact; every
// other sleep, and every sleep after the EAL started, is left alone.
// (nanosleep is clock_nanosleep on CLOCK_REALTIME, which reports errors by
// its return value rather than errno.)
extern "C" int nanosleep(const struct timespec* req, struct timespec* rem) {
  constexpr long kTscProbeNs = 100'000'000, kShortProbeNs = 10'000'000;
  const struct timespec shorter { 0, kShortProbeNs };
  if (fabemu::eal_starting() && req && req->tv_sec == 0 && req->tv_nsec == kTscProbeNs)
    req = &shorter;
  const int rc = clock_nanosleep(CLOCK_REALTIME, 0, req, rem);
  if (rc == 0) return 0;
  errno = rc;
  return -1;
}
