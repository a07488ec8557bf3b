// Runs an emulation from a spec and collects every delivery (the engine's
// on_deliver hook), and checks that a finished run delivered every injected
// packet exactly once: shared by the engine tests and the topology tests
// that run their fabrics.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/run/runner.h"
#include "control/spec/spec_error.h"
#include "control/spec/spec_loader.h"

namespace fabemu {

// A ready fabric of topologies/ with --set overrides (progress line off).
inline Spec spec_of(const std::string& file, std::vector<std::string> sets) {
  sets.push_back("run.progress_s=0");
  return load_spec(std::string(FABEMU_SOURCE_DIR) + "/topologies/" + file, sets);
}

// The error loading topologies/FILE with `sets` raises; "" when it loads.
inline std::string spec_refusal(const std::string& file, std::vector<std::string> sets) {
  try {
    spec_of(file, std::move(sets));
  } catch (const SpecError& e) {
    return e.what();
  }
  return "";
}

struct Delivery {
  uint64_t id;
  uint32_t src, dst;
  ps_t latency;
  uint32_t hops;
};

// adjust_fabric: changes the built fabric before the run (run_emulation).
inline RunResult run_collect(const Spec& spec, std::vector<Delivery>* out,
                             const std::function<void(Fabric&)>& adjust_fabric = nullptr) {
  auto mu = std::make_shared<std::mutex>();  // the hook runs on every worker core
  return run_emulation(
      spec,
      [out, mu](EngineConfig& c) {
        c.progress = nullptr;
        if (out)
          c.on_deliver = [out, mu](uint64_t id, uint32_t s, uint32_t d, ps_t lat, uint32_t hops) {
            std::lock_guard<std::mutex> g(*mu);
            out->push_back({id, s, d, lat, hops});
          };
      },
      {}, nullptr, true, adjust_fabric);
}

// The statistics of the link leaving `router`'s port `port`.
inline const LinkStats& link_stats(const RunStats& st, int32_t router, int16_t port) {
  for (const LinkStats& l : st.links)
    if (l.router == router && l.port == port) return l;
  ADD_FAILURE() << "no link from router " << router << " port " << port;
  return st.links.front();
}

inline uint64_t drops(const RunStats& st, DropReason r) { return st.drops[static_cast<int>(r)]; }

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

// Runs spec collecting its deliveries into *got, and checks that every
// packet was delivered exactly once.
inline RunResult run_exactly_once(const Spec& spec, std::vector<Delivery>* got) {
  RunResult r = run_collect(spec, got);
  expect_exactly_once(r, *got);
  return r;
}

inline void expect_exactly_once(const Spec& spec) {
  std::vector<Delivery> got;
  run_exactly_once(spec, &got);
}

// A run with credit conservation checked at every event: no check fails,
// and there were checks.
inline void expect_credits_conserved(const Spec& spec) {
  Spec s = spec;
  s.run.check_invariants = true;
  const RunResult r = run_collect(s, nullptr);
  EXPECT_TRUE(r.stats.invariant_failure.empty()) << r.stats.invariant_failure;
  EXPECT_GT(r.stats.invariant_checks, 1000u);
}

// Zero-load latency of a 32-byte write (19 phits of 1.6 ns) over h
// inter-router hops on the yarc and flatfly profiles' links and routers:
// the injection wire, h + 1 routers (31.25 ns) each followed by a 10 ns
// wire, and the serialisation once (cut-through).
inline ps_t yarc_write_zero_load_ps(uint32_t hops) {
  return 10000 + (hops + 1) * (31250 + 10000) + 19 * 1600;
}

// The deliveries of a nearly idle run: none before its zero-load latency
// want(delivery), and at least 95% exactly at it (the others met another
// packet on the way).
template <class Want>
void expect_at_zero_load(const std::vector<Delivery>& got, Want&& want) {
  size_t exact = 0;
  for (const Delivery& d : got) {
    const ps_t w = want(d);
    ASSERT_GE(d.latency, w) << "packet " << d.id << " beat the zero-load latency";
    exact += d.latency == w;
  }
  EXPECT_GE(double(exact), 0.95 * double(got.size())) << exact << " of " << got.size();
}

}  // namespace fabemu
