#include "tests/unit/eal_fixture.h"

#include <rte_eal.h>
#include <rte_lcore.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "dataplane/core/eal.h"
#include "dataplane/core/packet_meta.h"

namespace {

struct EalState {
  bool up = false;
  rte_mempool* pool = nullptr;
  std::string runtime_dir;
};

EalState& state() {
  static EalState s;
  return s;
}

void eal_teardown() {
  EalState& s = state();
  if (!s.up) return;
  // The pool goes first; the EAL itself (and its runtime folder) is shut
  // down by eal_ensure's own exit handler, registered before this one.
  if (s.pool != nullptr) rte_mempool_free(s.pool);
  s.pool = nullptr;
  s.up = false;
}

// One EAL serves every test in this process, whichever starts it, so size it
// for the largest fabric a test runs (the 1024-endpoint Clos needs about
// 850 MB) rather than for the first run's needs; the environment may say more.
const int kTestDpdkMemory = setenv("FABEMU_DPDK_MEM_MB", "1536", /*overwrite=*/0);

bool init_once() {
  // One EAL per process: go through the dataplane's own starter so that
  // tests which run the engine (eal_ensure from the runner) and tests that
  // only want mbufs share it, whichever comes first.
  const bool ours = fabemu::eal_lcores() == 0;
  std::string err;
  if (!fabemu::eal_ensure(1, &err)) {
    std::fprintf(stderr, "eal_fixture: %s\n", err.c_str());
    return false;
  }
  EalState& s = state();
  s.up = true;
  s.pool = rte_pktmbuf_pool_create("fabemu_test_pool", 8191, 256, fabemu::kMbufPrivSize,
                                   RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  if (s.pool == nullptr) std::fprintf(stderr, "eal_fixture: mbuf pool creation failed\n");
  if (ours) {
    s.runtime_dir = rte_eal_get_runtime_dir();
    std::atexit(eal_teardown);
  }
  return true;
}

}  // namespace

bool test_eal_init() {
  static const bool up = init_once();  // thread-safe, once per process
  return up;
}

rte_mempool* test_mempool() { return test_eal_init() ? state().pool : nullptr; }

rte_mbuf* test_mbuf() {
  rte_mempool* p = test_mempool();
  return p != nullptr ? rte_pktmbuf_alloc(p) : nullptr;
}
