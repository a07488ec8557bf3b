// The Cray T3E's virtual barrier/eureka networks (Scott & Thorson 1996,
// section 6): the BSU register and the local transitions of Figure 6, the
// spanning trees programmed from the topology, and runs whose processors
// meet at barriers between phases (traffic.phases): the zero-load barrier
// latency worked by hand, the paper's claim that a global barrier takes
// less than a remote memory reference (Figure 7's round trip), the highest
// priority under load (at most one flit's wait per hop), eurekas.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "control/analysis/t3e_figures.h"
#include "control/barrier/barrier_tree.h"
#include "control/spec/spec_error.h"
#include "control/spec/spec_refuse.h"
#include "dataplane/barrier/bsu.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

constexpr ps_t kHop = 40'000, kShell = 40'000;  // the spec's defaults, ps
constexpr ps_t kFlit = 13'333;                  // 5 phits of 2.67 ns

TEST(T3eBarrier, ARegisterSignalsUpWhenEveryChildHasJoined) {
  BsuRegister r;
  r.children = 0b1011;  // ports 0, 1 and 3
  r.parent = 4;
  EXPECT_EQ(r.on_signal(0, BarrierSignal::barrier, 100).to, BsuSend::To::none);
  EXPECT_EQ(r.on_signal(3, BarrierSignal::barrier, 300).to, BsuSend::To::none);
  const BsuSend up = r.on_signal(1, BarrierSignal::barrier, 200);
  EXPECT_EQ(up.to, BsuSend::To::parent);
  EXPECT_EQ(up.what, BarrierSignal::barrier);
  EXPECT_EQ(up.at, 300u) << "the latest join below goes up";
  EXPECT_EQ(r.arrived, 0u) << "ready for the next barrier";
  const BsuSend down = r.on_signal(4, BarrierSignal::barrier_done, 300);
  EXPECT_EQ(down.to, BsuSend::To::children);
  EXPECT_EQ(down.what, BarrierSignal::barrier_done);
}

TEST(T3eBarrier, TheRootCompletesTheBarrierAndOneEurekaPassesPerEpisode) {
  BsuRegister root;
  root.children = 0b11;
  root.parent = kBarrierRoot;
  root.on_signal(0, BarrierSignal::barrier, 5);
  const BsuSend done = root.on_signal(1, BarrierSignal::barrier, 9);
  EXPECT_EQ(done.to, BsuSend::To::children);
  EXPECT_EQ(done.what, BarrierSignal::barrier_done);
  EXPECT_EQ(done.at, 9u);
  // "When any child signals a eureka": the first one is broadcast, a second
  // of the same episode is not; the barrier that ends the episode re-arms it.
  const BsuSend eur = root.on_signal(1, BarrierSignal::eureka, 20);
  EXPECT_EQ(eur.to, BsuSend::To::children);
  EXPECT_EQ(eur.what, BarrierSignal::eureka_done);
  EXPECT_EQ(eur.at, 20u);
  EXPECT_EQ(root.on_signal(0, BarrierSignal::eureka, 21).to, BsuSend::To::none);
  root.on_signal(0, BarrierSignal::barrier, 30);
  root.on_signal(1, BarrierSignal::barrier, 31);
  EXPECT_EQ(root.on_signal(0, BarrierSignal::eureka, 40).to, BsuSend::To::children);
}

TEST(T3eBarrier, Figure6LocalTransitions) {
  BsuUnit u;  // (a) barriers: S_BAR -OP_BAR-> S_ARM -completion-> S_BAR
  EXPECT_TRUE(u.op_bar());
  EXPECT_EQ(u.state, BsuState::s_arm);
  EXPECT_FALSE(u.op_bar()) << "already armed";
  EXPECT_FALSE(u.eureka_done()) << "an armed unit ignores a eureka";
  EXPECT_TRUE(u.barrier_done());
  EXPECT_EQ(u.state, BsuState::s_bar);
  EXPECT_FALSE(u.barrier_done());
  // (b) eurekas: S_BAR -OP_EUR or notification-> S_EUR -OP_BAR-> S_ARM.
  EXPECT_TRUE(u.eureka_done());
  EXPECT_EQ(u.state, BsuState::s_eur);
  EXPECT_FALSE(u.op_eur());
  EXPECT_TRUE(u.op_bar());
  EXPECT_EQ(u.state, BsuState::s_arm);
  EXPECT_TRUE(u.barrier_done());
  EXPECT_TRUE(u.op_eur());
  EXPECT_EQ(u.state, BsuState::s_eur);
  u.state = BsuState::s_bar;
  EXPECT_TRUE(u.op_eur_b()) << "the combined OP_EUR and OP_BAR";
  EXPECT_EQ(u.state, BsuState::s_arm);
}

// The barrier network's own timing, on a host of two routers joined by
// port 1 (router 0, worker 0) and port 2 (router 1, worker 1), each with
// its processor at port 0.
struct FakeHost {
  ps_t t = 0;
  std::vector<Event> scheduled, remote;
  OutLink links[2][3];
  BarrierStats st;
  ps_t now() const { return t; }
  static constexpr EventKind kind(BarrierEvent k) { return EventKind(0x40 | uint8_t(k)); }
  void schedule(const Event& ev) { scheduled.push_back(ev); }
  const OutLink& out(uint32_t lr, uint32_t port) const { return links[lr][port]; }
  uint32_t local_of(int32_t router) const { return uint32_t(router); }
  uint16_t worker_id() const { return 0; }
  void send_remote(const Event& ev, uint16_t) { remote.push_back(ev); }
  BarrierStats& stats() { return st; }
};

TEST(T3eBarrier, APacketTakesTheLinksNextFlitThenItsHop) {
  BarrierConfig c;
  c.units = 2;
  c.hop_ps = kHop;
  c.endpoint_ps = kShell;
  c.children = {0b1, 0b1};  // router 0: its processor; router 1: its processor, parent port 2
  c.parent = {kBarrierRoot, 2};
  c.children[0] |= 0b10;    // router 0's child: router 1, at port 1
  FakeHost h;
  h.links[0][0].peer_endpoint = 0;
  h.links[1][0].peer_endpoint = 1;
  h.links[0][1] = OutLink{};
  h.links[0][1].peer_router = 1, h.links[0][1].peer_port = 2, h.links[0][1].peer_worker = 1;
  h.links[0][1].unit_ps = kFlit;
  h.links[1][2].peer_router = 0, h.links[1][2].peer_port = 1, h.links[1][2].peer_worker = 0;
  h.links[1][2].unit_ps = kFlit;
  h.links[0][1].peer_endpoint = h.links[1][2].peer_endpoint = -1;
  BarrierNetwork net;
  net.init(c, {0, 1});
  // Processor 1 joins BSU 1 at t = 100: its router's register has it a shell later.
  h.t = 100;
  net.from_processor(h, 1, 0, 1, BarrierSignal::barrier, 100);
  ASSERT_EQ(h.scheduled.size(), 1u);
  EXPECT_EQ(h.scheduled[0].t, 100 + kShell);
  // Router 1 passes it up; its link is mid-way through a packet, 3 ns to
  // the end of the flit on it: it goes then.
  h.t = h.scheduled[0].t;
  h.links[1][2].free_ps = h.t + 4 * kFlit + 3000;
  net.on_signal(h, h.scheduled[0]);
  ASSERT_EQ(h.scheduled.size(), 2u);
  EXPECT_EQ(h.scheduled[1].t, h.t + 3000 + kHop);
  EXPECT_EQ(h.scheduled[1].a, 0u);
  EXPECT_EQ(h.scheduled[1].port, 1u);
  EXPECT_EQ(h.scheduled[1].vc, 1u);
  // Router 0 waits for its own processor, then completes: down to both
  // children, router 1's across the ring to worker 1, on an idle link.
  h.t = h.scheduled[1].t;
  net.on_signal(h, h.scheduled[1]);
  EXPECT_EQ(h.st.barriers, 0u);
  h.t += 1000;
  net.from_processor(h, 0, 0, 1, BarrierSignal::barrier, h.t);
  h.t = h.scheduled.back().t;
  net.on_signal(h, h.scheduled.back());
  EXPECT_EQ(h.st.barriers, 1u);
  ASSERT_EQ(h.remote.size(), 1u);
  EXPECT_EQ(h.remote[0].t, h.t + kHop);
  EXPECT_EQ(static_cast<BarrierSignal>(h.remote[0].amount), BarrierSignal::barrier_done);
  EXPECT_EQ(h.remote[0].unit_ps, h.t - kShell) << "stamped with the last join";
  const Event& to_processor = h.scheduled.back();
  EXPECT_EQ(to_processor.kind, FakeHost::kind(BarrierEvent::notify));
  EXPECT_EQ(to_processor.t, h.t + kShell);
  // A dead link loses the packet, counted.
  h.links[1][2].dead = true;
  net.on_signal(h, h.scheduled[0]);
  EXPECT_EQ(h.st.signals_lost, 1u);
}

Fabric torus(int kx, int ky, int kz) {
  return build_spec_fabric(spec_of("t3e-4x4x4.yaml", {"topology.dims=[" + std::to_string(kx) +
                                                          "," + std::to_string(ky) + "," +
                                                          std::to_string(kz) + "]"}));
}

// A breadth-first tree: every router in it, each one's depth its distance
// from the root (on a torus the ring distances), every processor a child.
TEST(T3eBarrier, TreesAreBreadthFirstFromTheRoot) {
  for (const auto& d : std::vector<std::array<int, 3>>{{4, 4, 4}, {8, 8, 8}, {8, 32, 8}, {3, 5, 2}}) {
    const Fabric f = torus(d[0], d[1], d[2]);
    BarrierTree t;
    std::string err;
    ASSERT_TRUE(build_barrier_tree(f, -1, &t, &err)) << err;
    EXPECT_EQ(t.routers, f.routers.size());
    EXPECT_EQ(t.depth, uint32_t(d[0] / 2 + d[1] / 2 + d[2] / 2)) << d[0] << "x" << d[1] << "x" << d[2];
    uint32_t child_links = 0, processors = 0;
    for (size_t r = 0; r < f.routers.size(); r++) {
      const uint32_t c = t.config.children[r];
      for (size_t q = 0; q < f.routers[r].ports.size(); q++) {
        if (!(c >> q & 1)) continue;
        const FabricPort& p = f.routers[r].ports[q];
        if (p.endpoint >= 0) {
          processors++;
        } else {
          child_links++;
          EXPECT_EQ(t.config.parent[size_t(p.peer_router)], p.peer_port) << "a child's parent";
        }
      }
      EXPECT_EQ(t.config.parent[r] == kBarrierRoot, int32_t(r) == t.root);
    }
    EXPECT_EQ(child_links, f.routers.size() - 1) << "a tree";
    EXPECT_EQ(processors, f.endpoints.size());
  }
  BarrierTree t;
  std::string err;
  EXPECT_FALSE(build_barrier_tree(torus(4, 4, 4), 64, &t, &err));
  EXPECT_NE(err.find("barrier.root 64 is not a live router"), std::string::npos) << err;
}

Spec phases(const std::string& file, std::vector<std::string> sets) {
  sets.insert(sets.begin(), {"traffic.phases=barrier", "run.warmup_ns=0"});
  return spec_of(file, sets);
}

ps_t zero_load(const Spec& s) {
  BarrierTree t;
  std::string err;
  EXPECT_TRUE(build_barrier_tree(build_spec_fabric(s), -1, &t, &err)) << err;
  return zero_load_barrier_ps(t, kHop, kShell);
}

// Back-to-back barriers at zero load (nothing else to send): each processor
// joins again when it hears the last one complete. The last to hear is a
// processor D hops from the root: up D, down D and the shell's hop at each
// end after the last join; the root's own processor hears D hops sooner.
TEST(T3eBarrier, ZeroLoadBarrierLatencyByHand) {
  for (const char* dims : {"[4,4,4]", "[8,8,8]"}) {
    const Spec s = phases("t3e-4x4x4.yaml", {std::string("topology.dims=") + dims,
                                             "traffic.load=0", "run.measure_ns=20000"});
    const RunResult r = run_collect(s, nullptr);
    const BarrierStats& b = r.stats.barrier;
    const ps_t want = zero_load(s);
    const uint32_t depth = uint32_t((want - 2 * kShell) / (2 * kHop));
    EXPECT_EQ(want, 2 * kShell + 2 * ps_t(depth) * kHop);
    ASSERT_GT(b.latency_ps.count, 0u) << dims;
    EXPECT_EQ(b.latency_ps.max, want) << dims;
    EXPECT_EQ(b.latency_ps.min, 2 * kShell + ps_t(depth) * kHop) << dims;
    // Every processor waits one whole barrier from its join to its
    // completion; but in the first, which all join at time 0, the root's
    // processor hears D hops sooner.
    EXPECT_EQ(b.wait_ps.max, want) << dims;
    EXPECT_EQ(b.wait_ps.min, 2 * kShell + ps_t(depth) * kHop) << dims;
    EXPECT_GE(b.barriers, 20000'000 / want) << dims;
    EXPECT_EQ(b.signals_lost, 0u);
    std::printf("%s: zero-load barrier %.1f ns, %llu barriers in 20 us\n", dims, want / 1000.0,
                static_cast<unsigned long long>(b.barriers));
  }
}

// "Providing global barrier synchronization in less than the latency of a
// single remote memory reference": the zero-load barrier against Figure 7's
// round trip (twice the source router to the destination's control chip,
// Table 2's fall-through). Up to 512 nodes, below the average round trip;
// at every size of the T3E, below the longest.
TEST(T3eBarrier, FasterThanARemoteReferenceFigure7) {
  const T3eFigures fig = run_t3e_figures({});
  for (const T3eSizeRow& row : fig.sizes) {
    const Fabric f = torus(row.dims[0], row.dims[1], row.dims[2]);
    BarrierTree t;
    std::string err;
    ASSERT_TRUE(build_barrier_tree(f, -1, &t, &err)) << err;
    const double barrier_ns = double(zero_load_barrier_ps(t, kHop, kShell)) / 1000;
    std::printf("%5d nodes: barrier %6.1f ns, round trip average %6.1f, max %6.1f\n", row.nodes,
                barrier_ns, row.avg_round_trip_ns, row.max_round_trip_ns);
    EXPECT_LT(barrier_ns, row.max_round_trip_ns) << row.nodes;
    if (row.nodes <= 512) {
      EXPECT_LT(barrier_ns, row.avg_round_trip_ns) << row.nodes;
    }
  }
}

// Highest priority: under load a barrier packet waits only for the flit on
// its link, so a barrier is late by at most one flit a hop; the phases'
// messages all arrive.
TEST(T3eBarrier, UnderLoadABarrierWaitsAtMostAFlitAHop) {
  const Spec s = phases("t3e-4x4x4.yaml", {"traffic.load=0.4", "traffic.phase_messages=10",
                                           "run.measure_ns=40000", "run.check_invariants=true"});
  std::vector<Delivery> got;
  const RunResult r = run_collect(s, &got);
  const BarrierStats& b = r.stats.barrier;
  const ps_t want = zero_load(s);
  const uint32_t depth = uint32_t((want - 2 * kShell) / (2 * kHop));
  ASSERT_GT(b.latency_ps.count, 0u);
  EXPECT_GE(b.barriers, 4u);
  // (From the last join: up from the last processor's depth and down to
  // this one's, so at most the zero-load figure, plus a flit a hop.)
  EXPECT_LE(b.latency_ps.max, want + 2 * ps_t(depth) * kFlit);
  EXPECT_GT(b.wait_ps.mean(), double(b.latency_ps.mean())) << "processors also wait for others";
  EXPECT_EQ(r.stats.invariant_failure, "");
  EXPECT_TRUE(r.stats.drained);
  EXPECT_EQ(r.stats.delivered_packets, r.stats.injected_packets);
  // Each completed phase sent 10 messages a processor; the last, cut off
  // when the sources stopped, fewer.
  EXPECT_GE(r.stats.generated_messages, 64u * 10 * b.barriers);
  EXPECT_LT(r.stats.generated_messages, 64u * 10 * (b.barriers + 1));
}

// The same run on two workers: barrier packets cross between them through
// the rings, and the barriers measured take the same time. (The run ends
// at a window edge, so what is in flight after the sources stop differs.)
TEST(T3eBarrier, TwoWorkersGiveTheSameBarriers) {
  auto run = [](int workers) {
    return run_collect(phases("t3e-4x4x4.yaml", {"traffic.load=0", "run.measure_ns=10000",
                                                 "run.workers=" + std::to_string(workers)}),
                       nullptr)
        .stats.barrier;
  };
  const BarrierStats one = run(1), two = run(2);
  EXPECT_EQ(one.barriers, two.barriers);
  EXPECT_EQ(one.latency_ps.count, two.latency_ps.count);
  EXPECT_EQ(one.latency_ps.sum, two.latency_ps.sum);
  EXPECT_EQ(one.latency_ps.max, two.latency_ps.max);
}

// Eureka phases: the first processor done signals a eureka with its
// barrier; it reaches every other within a barrier's zero-load time (up
// and down the tree) plus a flit a hop; each phase has one eureka.
TEST(T3eBarrier, EurekaPhasesEndAtTheFirstProcessorDone) {
  const Spec s = spec_of("t3e-4x4x4.yaml",
                         {"traffic.phases=eureka", "traffic.phase_messages=10", "traffic.load=0.2",
                          "run.warmup_ns=0", "run.measure_ns=40000"});
  const RunResult r = run_collect(s, nullptr);
  const BarrierStats& b = r.stats.barrier;
  const ps_t want = zero_load(s);
  const uint32_t depth = uint32_t((want - 2 * kShell) / (2 * kHop));
  ASSERT_GT(b.eureka_ps.count, 0u);
  EXPECT_GE(b.barriers, 4u);
  EXPECT_GE(b.eurekas, b.barriers) << "every phase that ended had its eureka";
  EXPECT_LE(b.eurekas, b.barriers + 1);
  EXPECT_LE(b.eureka_ps.max, want + 2 * ps_t(depth) * kFlit);
  // Heard by the others: at most the 63 that had not finished themselves.
  EXPECT_LE(b.eureka_ps.count, 63 * b.eurekas);
  EXPECT_GT(b.eureka_ps.count, 10 * b.barriers) << "most processors were still at work";
  EXPECT_TRUE(r.stats.drained);
  EXPECT_EQ(r.stats.delivered_packets, r.stats.injected_packets);
}

// The trees are the healthy fabric's: a barrier packet sent into a link
// that died is lost and counted, and that barrier never completes (the
// processors wait at it; the run ends with nothing left to do).
TEST(T3eBarrier, APacketIntoADeadLinkIsLostAndCounted) {
  const RunResult r =
      run_collect(phases("t3e-4x4x4.yaml", {"traffic.load=0", "run.measure_ns=20000",
                                             "faults=[\"3us link=r0:p0 down\"]"}),
                  nullptr);
  const BarrierStats& b = r.stats.barrier;
  EXPECT_GT(b.signals_lost, 0u);
  EXPECT_LE(b.barriers, 3000'000 / 560'000 + 1) << "none after the fault";
  EXPECT_GE(b.barriers, 3000'000 / 560'000 - 1);
}

TEST(T3eBarrier, SpecErrors) {
  try {
    spec_of("t3e-4x4x4.yaml", {"traffic.phase_messages=5"});
    ADD_FAILURE() << "phase_messages without phases";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("traffic.phases"), std::string::npos) << e.what();
  }
  try {
    spec_of("t3e-4x4x4.yaml", {"traffic.phases=sometimes"});
    ADD_FAILURE() << "an unknown phases value";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("eureka"), std::string::npos) << e.what();
  }
  try {  // a flattened butterfly router of 63 ports cannot have a register
    run_collect(spec_of("flatfly-32x2.yaml", {"traffic.phases=barrier", "run.measure_ns=100"}),
                nullptr);
    ADD_FAILURE() << "a router of more than 32 ports";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 32 ports"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fabemu
