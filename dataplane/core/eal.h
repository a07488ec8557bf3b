// One DPDK EAL per process, started on demand for runs on virtual devices
// (no hugepages, no PCI): every process gets its own --file-prefix.
#pragma once
#include <sched.h>

#include <string>
#include <vector>

namespace fabemu {

// Starts the EAL once with at least `lcores` lcores (capped at the CPUs this
// process may use). Later calls only check. Returns false with *err set when
// the EAL cannot start or has fewer lcores than asked for.
// Hugepages are used when the machine has free ones (FABEMU_HUGEPAGES=0
// turns them off); otherwise the EAL runs with --no-huge. The PCI bus is
// scanned only when `pci` is true (a port names a PCI device).
// memory_mb: what the caller's run may use (0: a generous 4 GB); without
// hugepages the EAL gets that much (at least 128 MB; FABEMU_DPDK_MEM_MB
// overrides), and a later call that needs more than the running EAL has is
// refused with the reason.
bool eal_ensure(int lcores, std::string* err, const std::vector<std::string>& extra_args = {},
                bool pci = false, int memory_mb = 0);

// Whether eal_ensure will use hugepages: the machine has free ones and
// FABEMU_HUGEPAGES is not 0.
bool eal_hugepages_wanted();

// From a signal handler about to end the process at once: removes the EAL's
// runtime folder (empty, as the EAL runs with --no-shconf) with one
// async-signal-safe call. The normal end removes it at exit.
void eal_remove_runtime_dir_now() noexcept;

// True while rte_eal_init runs (the TSC probe's sleep is shortened then).
bool eal_starting();

// Megabytes of ordinary memory the EAL takes without hugepages (-m) for a
// run that may use memory_mb: FABEMU_DPDK_MEM_MB when set, else memory_mb
// (at least 128; 0: 4096).
int eal_no_huge_memory_mb(int memory_mb);

// True when the running EAL uses --no-huge (ordinary memory).
bool eal_no_huge();

// Free hugepages the kernel reports (all sizes), 0 when none.
long hugepages_free();

// Number of lcores the running EAL has (0 before eal_ensure).
int eal_lcores();

// The CPUs this process may run on (taskset, cgroup cpuset), as they were
// before the EAL pinned the main thread; ascending.
std::vector<int> allowed_cpus();

// The CPUs of a set, ascending.
std::vector<int> cpu_list(const cpu_set_t& set);

// "0-3,6" for {0, 1, 2, 3, 6}.
std::string cpu_list_text(const std::vector<int>& cpus);

}  // namespace fabemu
