// Checks shared by the fault tests (link_faults_test.cpp, the control
// socket's): every packet arrived once or was lost to a fault and counted.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/support/run_collect.h"

namespace fabemu {

// The 4x4x4 torus with link-level retry at BER 1e-3 and faults mid-run
// (two links and router 21 die), invariants on: --set values to add a
// router model or routing to.
inline std::vector<std::string> torus_retry_and_faults() {
  return {"link.retry=true", "link.ber=1e-3", "run.warmup_ns=2000", "run.measure_ns=20000",
          "run.check_invariants=true",
          "faults=[\"5us link=r0:p0 down\", \"8us router=21 down\", \"12us link=r1:p1 "
          "down\"]"};
}

inline uint64_t fault_losses(const RunStats& st) {
  return drops(st, DropReason::dead_port) + drops(st, DropReason::lost_in_flight) +
         drops(st, DropReason::lost_in_dead_router) + drops(st, DropReason::no_route) +
         drops(st, DropReason::duplicate);
}

// Every packet arrived once or was lost to a fault and counted: ids unique,
// deliveries plus counted losses equal injections (and the copies two-hop
// recovery sent again), nothing left undelivered.
inline void expect_once_or_counted(const RunResult& r, const std::vector<Delivery>& got) {
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  ASSERT_TRUE(r.stats.drained) << "did not drain";
  EXPECT_EQ(r.stats.invariant_failure, "");
  EXPECT_GT(r.stats.invariant_checks, 0u);
  std::vector<uint64_t> ids;
  for (const Delivery& d : got) ids.push_back(d.id);
  std::sort(ids.begin(), ids.end());
  EXPECT_TRUE(std::adjacent_find(ids.begin(), ids.end()) == ids.end()) << "a packet arrived twice";
  EXPECT_EQ(ids.size(), r.stats.delivered_packets);
  EXPECT_EQ(r.stats.delivered_packets + fault_losses(r.stats),
            r.stats.injected_packets + r.stats.recovery_resent);
  EXPECT_EQ(drops(r.stats, DropReason::undelivered_at_end), 0u);
}

inline const LinkStats& link_from(const RunStats& st, int32_t router, int16_t port) {
  for (const LinkStats& l : st.links)
    if (l.router == router && l.port == port) return l;
  ADD_FAILURE() << "no link from router " << router << " port " << port;
  return st.links.front();
}

}  // namespace fabemu
