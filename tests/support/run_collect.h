// Runs an emulation from a spec and collects every delivery (the engine's
// on_deliver hook), and checks that a finished run delivered every injected
// packet exactly once: shared by the engine tests and the topology tests
// that run their fabrics.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/run/runner.h"
#include "control/spec/spec_loader.h"

namespace fabemu {

// A ready fabric of topologies/ with --set overrides (progress line off).
inline Spec spec_of(const std::string& file, std::vector<std::string> sets) {
  sets.push_back("run.progress_s=0");
  return load_spec(std::string(FABEMU_SOURCE_DIR) + "/topologies/" + file, sets);
}

struct Delivery {
  uint64_t id;
  uint32_t src, dst;
  ps_t latency;
  uint32_t hops;
};

inline RunResult run_collect(const Spec& spec, std::vector<Delivery>* out) {
  auto mu = std::make_shared<std::mutex>();  // the hook runs on every worker core
  return run_emulation(spec, [out, mu](EngineConfig& c) {
    c.progress = nullptr;
    if (out)
      c.on_deliver = [out, mu](uint64_t id, uint32_t s, uint32_t d, ps_t lat, uint32_t hops) {
        std::lock_guard<std::mutex> g(*mu);
        out->push_back({id, s, d, lat, hops});
      };
  });
}

// Checks a finished run's deliveries: every injected packet exactly once.
inline void expect_exactly_once(const RunResult& r, const std::vector<Delivery>& got) {
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  ASSERT_TRUE(r.stats.drained) << "did not drain: deadlock or drain limit";
  std::vector<uint64_t> ids;
  ids.reserve(got.size());
  for (const auto& d : got) {
    ASSERT_NE(d.src, ~0u);
    ids.push_back(d.id);
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_TRUE(std::adjacent_find(ids.begin(), ids.end()) == ids.end()) << "a packet arrived twice";
  EXPECT_EQ(ids.size(), r.stats.injected_packets) << "a packet was lost";
  EXPECT_EQ(r.stats.delivered_packets, r.stats.injected_packets);
  // Per source, packet ids are consecutive from 0: none is missing.
  std::map<uint32_t, std::vector<uint64_t>> per_src;
  for (uint64_t id : ids) per_src[uint32_t(id >> 40)].push_back(id & ((1ull << 40) - 1));
  for (auto& [src, seqs] : per_src)
    for (size_t i = 0; i < seqs.size(); i++) ASSERT_EQ(seqs[i], i) << "source " << src;
}

// Deliveries of `units`-unit request packets whose latency is exactly the
// zero-load latency traced from the tables (none may be below it); check(d,
// want) sees each delivery with that latency.
template <class Check>
size_t count_at_zero_load(const Spec& s, const RunResult& r, const std::vector<Delivery>& got,
                          uint32_t units, Check&& check) {
  size_t exact = 0;
  for (const Delivery& d : got) {
    const ps_t want = zero_load_latency_ps(s, r.fabric, d.src, d.dst, units, TrafficClass::request);
    check(d, want);
    EXPECT_GE(d.latency, want) << "packet " << d.id << " beat the zero-load latency";
    exact += d.latency == want;
  }
  return exact;
}

inline void expect_exactly_once(const Spec& spec) {
  std::vector<Delivery> got;
  RunResult r = run_collect(spec, &got);
  expect_exactly_once(r, got);
}

}  // namespace fabemu
