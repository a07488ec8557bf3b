// One DPDK EAL per process, started on demand for runs on virtual devices
// (no hugepages, no PCI): every process gets its own --file-prefix.
#pragma once
#include <string>
#include <vector>

namespace fabemu {

// Starts the EAL once with at least `lcores` lcores (capped at the CPUs this
// process may use). Later calls only check. Returns false with *err set when
// the EAL cannot start or has fewer lcores than asked for.
// Hugepages are used when the machine has free ones (FABEMU_HUGEPAGES=0
// turns them off); otherwise the EAL runs with --no-huge. The PCI bus is
// scanned only when `pci` is true (a port names a PCI device).
bool eal_ensure(int lcores, std::string* err, const std::vector<std::string>& extra_args = {},
                bool pci = false);

// Whether eal_ensure will use hugepages: the machine has free ones and
// FABEMU_HUGEPAGES is not 0.
bool eal_hugepages_wanted();

// Megabytes of ordinary memory the EAL takes without hugepages (-m):
// FABEMU_DPDK_MEM_MB, else 4096.
long eal_no_huge_memory_mb();

// True when the running EAL uses --no-huge (ordinary memory).
bool eal_no_huge();

// Free hugepages the kernel reports (all sizes), 0 when none.
long hugepages_free();

// The CPUs this process may run on (its affinity): eal_ensure makes one lcore
// of each, and a run has at most that many workers.
std::vector<int> eal_usable_cpus();

// Number of lcores the running EAL has (0 before eal_ensure).
int eal_lcores();

}  // namespace fabemu
