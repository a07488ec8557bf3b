#include "dataplane/core/eal.h"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fabemu {

namespace {
bool g_started = false;
bool g_no_huge = true;

// The EAL leaves its runtime folder (/var/run/dpdk/<prefix>) behind; remove
// it when the process ends so runs do not pile them up.
void eal_cleanup_at_exit() {
  if (!g_started) return;
  const std::string dir = rte_eal_get_runtime_dir();
  rte_eal_cleanup();
  g_started = false;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}
}  // namespace

bool eal_no_huge() { return g_no_huge; }

bool eal_hugepages_wanted() {
  const char* huge_env = std::getenv("FABEMU_HUGEPAGES");
  return !(huge_env && std::string(huge_env) == "0") && hugepages_free() > 0;
}

long eal_no_huge_memory_mb() {
  const char* mem = std::getenv("FABEMU_DPDK_MEM_MB");
  const long mb = mem ? std::atol(mem) : 0;
  return mb > 0 ? mb : 4096;
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

std::vector<int> eal_usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; c++)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

int eal_lcores() { return g_started ? static_cast<int>(rte_lcore_count()) : 0; }

bool eal_ensure(int lcores, std::string* err, const std::vector<std::string>& extra_args,
                bool pci) {
  if (g_started) {
    if (static_cast<int>(rte_lcore_count()) < lcores) {
      *err = "DPDK runs with " + std::to_string(rte_lcore_count()) + " lcore(s) but " +
             std::to_string(lcores) + " workers were asked for";
      return false;
    }
    return true;
  }
  // Use every CPU this process may run on (at least the ones asked for), so a
  // later run in the same process can use more workers.
  const std::vector<int> cpus = eal_usable_cpus();
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
  if (no_huge) {
    args.insert(args.end(), {"--no-huge", "-m", std::to_string(eal_no_huge_memory_mb())});
  }
  if (!pci) args.push_back("--no-pci");
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (rte_eal_init(static_cast<int>(args.size()), argv.data()) < 0) {
    *err = std::string("DPDK EAL failed to start: ") + rte_strerror(rte_errno) +
           " (set FABEMU_DPDK_MEM_MB to change its memory; no hugepages are needed)";
    return false;
  }
  g_started = true;
  g_no_huge = no_huge;
  std::atexit(eal_cleanup_at_exit);
  return true;
}

}  // namespace fabemu
