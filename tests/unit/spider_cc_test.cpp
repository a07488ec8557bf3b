// Spider's congestion-control bit 0 and vector-routed traffic (Galles,
// "Spider: A High-Speed Network Interconnect", IEEE Micro 1997, "Message
// layer" and "Routing tables"): traffic.cc_adapt marks messages that may
// adapt between the two VCs of their pair, taking the less used one, and
// may then arrive out of order (counted); traffic.vector_fraction sends
// messages with the whole path written by the source.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "control/analysis/analysis.h"
#include "control/topology/fat_hypercube.h"
#include "control/topology/spider_routing.h"
#include "dataplane/endpoint/delivery_order.h"
#include "dataplane/routing/spider_tables.h"
#include "tests/support/run_collect.h"
#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

Spec spider(std::vector<std::string> sets) {
  sets.push_back("run.progress_s=0");
  return load_spec_text("profile: spider\n", sets);
}

uint64_t vc_packets(const RunStats& st, int vc) {
  uint64_t n = 0;
  for (const LinkStats& l : st.links)
    if (l.router >= 0 && l.peer_router >= 0) n += l.vc_packets[vc];
  return n;
}

// Packets delivered after a later one of the same source and destination,
// from the deliveries in the order they happened (one worker): a packet's
// id is its source's packet sequence, which follows the order it was sent.
uint64_t late_deliveries(const std::vector<Delivery>& got) {
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> furthest;
  uint64_t late = 0;
  for (const Delivery& d : got) {
    uint64_t& f = furthest[{d.src, d.dst}];
    const uint64_t seq = (d.id & ((1ull << 40) - 1)) + 1;
    if (seq < f)
      late++;
    else
      f = seq;
  }
  return late;
}

// Without CC bit 0 a class keeps its VC (requests 0, responses 2); with it
// on every message, both VCs of each pair carry router-to-router traffic.
TEST(SpiderCc, AdaptingMessagesUseBothVcsOfTheirPair) {
  for (const char* cc : {"traffic.cc_adapt=0", "traffic.cc_adapt=1"}) {
    SCOPED_TRACE(cc);
    const RunResult r = run_collect(
        spider({cc, "traffic.load=0.7", "traffic.reply_fraction=0.5", "run.measure_ns=5000"}),
        nullptr);
    ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
    const bool adapt = std::string(cc).back() == '1';
    EXPECT_GT(vc_packets(r.stats, 0), 1000u);
    EXPECT_GT(vc_packets(r.stats, 2), 100u);
    if (adapt) {
      // (A tie in free buffer keeps the first VC: the second takes what overflows.)
      EXPECT_GT(vc_packets(r.stats, 1), vc_packets(r.stats, 0) / 10);
      EXPECT_GT(vc_packets(r.stats, 3), vc_packets(r.stats, 2) / 10);
    } else {
      EXPECT_EQ(vc_packets(r.stats, 1), 0u);
      EXPECT_EQ(vc_packets(r.stats, 3), 0u);
    }
  }
}

// Messages that adapt overtake each other; the count the run reports is
// the one read off its deliveries, and without adapting nothing overtakes.
TEST(SpiderCc, OutOfOrderArrivalsAreCountedExactly) {
  for (const char* cc : {"traffic.cc_adapt=0.5", "traffic.cc_adapt=1"}) {
    SCOPED_TRACE(cc);
    std::vector<Delivery> got;
    const RunResult r = run_collect(
        spider({cc, "traffic.load=0.9", "traffic.sizes=[16, 256]", "run.measure_ns=10000"}), &got);
    expect_exactly_once(r, got);
    EXPECT_GT(r.stats.out_of_order_packets, 0u);
    EXPECT_EQ(r.stats.out_of_order_packets, late_deliveries(got));
  }
  std::vector<Delivery> got;
  const RunResult r = run_collect(
      spider({"traffic.load=0.9", "traffic.sizes=[16, 256]", "run.measure_ns=10000"}), &got);
  expect_exactly_once(r, got);
  EXPECT_EQ(late_deliveries(got), 0u) << "one VC per class keeps a source's order";
}

// Both VCs of a pair follow the tables' one cycle-free channel order, so
// adapting cannot deadlock: every message arrives once at full load, with
// credits conserved, on one worker and two; describe's check, which takes
// every VC choice, finds no cycle.
TEST(SpiderCc, AdaptingIsDeadlockFree) {
  for (const char* workers : {"run.workers=1", "run.workers=2"}) {
    SCOPED_TRACE(workers);
    std::vector<Delivery> got;
    const RunResult r =
        run_collect(spider({"traffic.cc_adapt=1", "traffic.load=1.0", "traffic.reply_fraction=0.5",
                            "traffic.pattern=bitcomp", "run.check_invariants=true",
                            "run.measure_ns=5000", workers}),
                    &got);
    expect_exactly_once(r, got);
    EXPECT_EQ(r.stats.invariant_failure, "");
  }
  const Spec plain = spec_of("spider-fhc-64.yaml", {"traffic.reply_fraction=0.5"});
  const Spec adapt =
      spec_of("spider-fhc-64.yaml", {"traffic.reply_fraction=0.5", "traffic.cc_adapt=0.1"});
  const Fabric f = build_fat_hypercube(adapt);
  const FabricSummary one = summarize(plain, f), both = summarize(adapt, f);
  EXPECT_TRUE(both.deadlock_free) << both.deadlock_cycle;
  // Every adapting choice is in the graph, even at a fraction of 0.1: the
  // router-to-router channels of VCs 1 and 3 besides 0 and 2.
  EXPECT_GT(both.channels, one.channels + one.channels / 2);
}

TEST(SpiderCc, NeedsFourVcs) {
  const SpecError e =
      spec_test::error_of("profile: spider\nvcs:\n  count: 2\ntraffic:\n  cc_adapt: 0.5\n");
  spec_test::expect_says(e, "set vcs.count: 4, or traffic.cc_adapt: 0");
}

TEST(DeliveryOrder, CountsAPacketThatComesAfterALaterOne) {
  DeliveryOrder order;
  order.init(8, {3});
  PacketMeta m{};
  m.src = 1;
  m.dst = 3;
  auto arrive = [&](uint32_t msg, uint16_t seg, uint8_t cls) {
    m.msg_seq = msg, m.seg = seg, m.cls = cls;
    return order.late(m);
  };
  EXPECT_FALSE(arrive(0, 0, 0));
  EXPECT_FALSE(arrive(2, 0, 0));
  EXPECT_TRUE(arrive(1, 0, 0)) << "message 1 after message 2";
  EXPECT_FALSE(arrive(2, 1, 0));
  EXPECT_TRUE(arrive(1, 5, 0)) << "a segment of message 1 after message 2's";
  EXPECT_FALSE(arrive(1, 0, 1)) << "responses are ordered apart from requests";
  m.dst = 4;  // not a destination this worker owns
  EXPECT_FALSE(arrive(0, 0, 0));
}

// ---- vector routing ---------------------------------------------------------

// With every message vector-routed, the source writes the path its tables
// give (up to 10 directions) and the chips follow it: the same hops as
// table routing, for every pair of the 64- and 512-endpoint fat hypercubes.
// A longer path (none on these) stays table-routed.
TEST(SpiderVector, TheSourceWritesItsTablesPath) {
  for (const char* file : {"spider-fhc-64.yaml", "spider-fhc-512.yaml"}) {
    SCOPED_TRACE(file);
    const Spec s = spec_of(file, {"traffic.vector_fraction=1"});
    const Fabric f = build_fat_hypercube(s);
    SpiderTables t = spider_route_around_faults(s, f);
    SpiderTables tables_only = t;
    tables_only.vector_below = 0;
    const uint32_t n = static_cast<uint32_t>(f.endpoints.size());
    uint32_t vectors = 0;
    for (uint32_t src = 0; src < n; src += 7)
      for (uint32_t dst = 0; dst < n; dst++) {
        PacketMeta by_vector = trace_meta(src, dst, 1, TrafficClass::request);
        const std::vector<HopTrace> v = trace_route<SpiderTableRouting>(t, f, by_vector);
        const std::vector<HopTrace> p = trace_route<SpiderTableRouting>(
            tables_only, f, trace_meta(src, dst, 1, TrafficClass::request));
        ASSERT_EQ(v.size(), p.size()) << src << " -> " << dst;
        for (size_t i = 0; i < v.size(); i++) {
          EXPECT_EQ(v[i].router, p[i].router);
          EXPECT_EQ(v[i].out_port, p[i].out_port);
        }
        PacketMeta m = trace_meta(src, dst, 1, TrafficClass::request);
        SpiderTableRouting::on_inject(t, f, m);
        EXPECT_EQ(SpiderHeader::vector_routed(m), p.size() <= kSpiderMaxVectorSteps);
        vectors += SpiderHeader::vector_routed(m);
      }
    EXPECT_GT(vectors, 0u);
  }
}

// A run with half its messages vector-routed delivers every message once,
// at the latencies of table routing at zero load (the same paths).
TEST(SpiderVector, VectorRoutedTrafficArrivesAsTableRouted) {
  std::map<std::string, std::map<uint64_t, ps_t>> lat;
  for (const char* vf : {"traffic.vector_fraction=0", "traffic.vector_fraction=0.5"}) {
    std::vector<Delivery> got;
    const RunResult r = run_collect(
        spider({vf, "traffic.load=0.01", "run.measure_ns=20000", "run.check_invariants=true"}),
        &got);
    expect_exactly_once(r, got);
    for (const Delivery& d : got) lat[vf][d.id] = d.latency;
  }
  ASSERT_GT(lat["traffic.vector_fraction=0"].size(), 10u);
  EXPECT_EQ(lat["traffic.vector_fraction=0"], lat["traffic.vector_fraction=0.5"]);
}

}  // namespace
}  // namespace fabemu
