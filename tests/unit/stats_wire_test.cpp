// A worker's counters as bytes between the ranks of a job
// (dataplane/core/wire.h, dataplane/stats/stats_wire.h): what rank 0's
// stand-in for another rank's worker gets is what that worker counted, so
// merging it gives the report one process gives; a short or foreign
// message fails its reader instead of being half read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dataplane/core/wire.h"
#include "dataplane/stats/run_merge.h"
#include "dataplane/stats/stats_wire.h"

namespace fabemu {
namespace {

TEST(Wire, ValuesStringsVectorsInOrder) {
  std::string bytes;
  WireWriter w(&bytes);
  w.put<uint32_t>(7);
  w.put_string("rank one");
  w.put_vector(std::vector<int>{3, 1, 4});
  w.put<double>(2.5);
  WireReader r(bytes);
  EXPECT_EQ(r.get<uint32_t>(), 7u);
  std::string s;
  r.get_string(&s);
  EXPECT_EQ(s, "rank one");
  std::vector<int> v;
  r.get_vector(&v);
  EXPECT_EQ(v, (std::vector<int>{3, 1, 4}));
  EXPECT_EQ(r.get<double>(), 2.5);
  EXPECT_TRUE(r.done());
  // Past the end: zeros, and the reader says it failed.
  EXPECT_EQ(r.get<uint64_t>(), 0u);
  EXPECT_FALSE(r.ok());
  // A length that runs past the message is refused, not allocated.
  std::string bad;
  WireWriter(&bad).put<uint64_t>(1ull << 40);
  WireReader rb(bad);
  std::vector<uint64_t> huge;
  rb.get_vector(&huge);
  EXPECT_FALSE(rb.ok());
  EXPECT_TRUE(huge.empty());
}

RunStats worker_stats(uint64_t k) {
  RunStats s;
  s.links.resize(3);
  s.end_ps = 1000 * k;
  s.drained = true;
  s.generated_messages = 10 + k;
  s.injected_packets = 20 + k;
  s.delivered_packets = 19 + k;
  s.delivered_messages = 9 + k;
  s.measured_injected = 15 + k;
  s.measured_delivered = 14 + k;
  s.offered_units = 150 + k;
  s.accepted_units = 140 + k;
  s.accepted_payload_bytes = 4096 + k;
  s.drops[static_cast<int>(DropReason::source_queue_full)] = 2 + k;
  s.packet_hops = 77 + k;
  for (uint64_t v : {400u, 500u, 650u}) s.latency_ps.add(v * k);
  s.network_latency_ps.add(300 * k);
  s.message_latency_ps.add(900 * k);
  s.hops.add(3);
  s.error = k == 2 ? "worker 2 broke" : "";
  LinkStats& l = s.links[1];
  l.packets = 5 + k;
  l.units = 50 + k;
  l.busy_ps = 123 * k;
  l.credit_stalls = k;
  l.vc_packets[1] = 4;
  l.vc_peak_occupancy[2] = 12;
  l.retry.crc_errors = 1;
  l.lanes = 3;
  l.width = 2;
  l.lane_log.push_back({.at = 77, .lane = 1, .width = 2, .cause = LaneCause::retries});
  return s;
}

// The statistics rank 0 rebuilds merge as the originals do.
TEST(StatsWire, WorkerStatsMergeAsTheOriginals) {
  std::vector<RunStats> sent = {worker_stats(1), worker_stats(2)};
  std::string bytes;
  WireWriter w(&bytes);
  for (const RunStats& s : sent) ASSERT_TRUE(put_worker_stats(w, s));
  std::vector<RunStats> got(2);
  WireReader r(bytes);
  for (RunStats& s : got) {
    s.links.resize(3);
    get_worker_stats(r, &s);
  }
  ASSERT_TRUE(r.done());
  KernelWorker k1, k2;
  k1.events = 100;
  k2.events = 200;
  auto merged = [&](const std::vector<RunStats>& st) {
    RunStats out;
    out.links.resize(3);
    merge_workers(out, {{&k1, &st[0], 0, 0, 0}, {&k2, &st[1], 0, 0, 0}});
    return out;
  };
  const RunStats a = merged(sent), b = merged(got);
  EXPECT_EQ(b.injected_packets, a.injected_packets);
  EXPECT_EQ(b.delivered_packets, 41u);
  EXPECT_EQ(b.packet_hops, a.packet_hops);
  EXPECT_EQ(b.accepted_payload_bytes, a.accepted_payload_bytes);
  EXPECT_EQ(b.drops[static_cast<int>(DropReason::source_queue_full)], 7u);
  EXPECT_EQ(b.latency_ps.count, 6u);
  EXPECT_EQ(b.latency_ps.sum, a.latency_ps.sum);
  EXPECT_EQ(b.latency_ps.max, 1300u);
  EXPECT_EQ(b.message_latency_ps.sum, a.message_latency_ps.sum);
  EXPECT_EQ(b.end_ps, 2000u);
  EXPECT_EQ(b.error, "worker 2 broke");
  EXPECT_EQ(b.links[1].packets, 13u);
  EXPECT_EQ(b.links[1].busy_ps, 369u);
  EXPECT_EQ(b.links[1].vc_peak_occupancy[2], 12u);
  EXPECT_EQ(b.links[1].retry.crc_errors, 2u);
  EXPECT_EQ(b.links[1].lane_log.size(), 2u);
  EXPECT_EQ(b.links[0].packets, 0u);
}

// Another fabric's link table (a rank that is not this one's job) fails
// the reader; port statistics and sample periods are not carried.
TEST(StatsWire, RefusesWhatItCannotCarry) {
  std::string bytes;
  WireWriter w(&bytes);
  ASSERT_TRUE(put_worker_stats(w, worker_stats(1)));
  RunStats other;
  other.links.resize(5);
  WireReader r(bytes);
  get_worker_stats(r, &other);
  EXPECT_FALSE(r.ok());
  RunStats ports = worker_stats(1);
  ports.ports.resize(1);
  std::string unused;
  WireWriter w2(&unused);
  EXPECT_FALSE(put_worker_stats(w2, ports));
}

TEST(StatsWire, KernelAndModelCounters) {
  KernelWorker k;
  k.events = 5000;
  k.edge_wait_tsc = 77;
  k.busy_tsc = 99;
  k.cpus = {1};
  k.lateness_ps.add(1234);
  k.events_over_bound = 3;
  std::string bytes;
  WireWriter w(&bytes);
  put_kernel_counters(w, k);
  RunStats models;
  models.islip_cycles = 10;
  models.spider_winners = 4;
  models.mesh3d_lane_wait_ps = 8;
  put_model_counters(w, models);
  KernelWorker got;
  WireReader r(bytes);
  get_kernel_counters(r, &got);
  EXPECT_EQ(got.events, 5000u);
  EXPECT_EQ(got.edge_wait_tsc, 77u);
  EXPECT_EQ(got.busy_tsc, 99u);
  EXPECT_EQ(got.cpus, std::vector<int>{1});
  EXPECT_EQ(got.lateness_ps.count, 1u);
  EXPECT_EQ(got.events_over_bound, 3u);
  RunStats sum;
  sum.islip_cycles = 1;
  add_model_counters(r, &sum);
  EXPECT_TRUE(r.done());
  EXPECT_EQ(sum.islip_cycles, 11u);
  EXPECT_EQ(sum.spider_winners, 4u);
  EXPECT_EQ(sum.mesh3d_lane_wait_ps, 8u);
  RunStats again;
  add_model_counters(models, &again);
  EXPECT_EQ(again.islip_cycles, 10u);
}

}  // namespace
}  // namespace fabemu
