// Real traffic through the fabric over in-process ring ports: frames come
// out of the right port unmodified and in order, at the spec's zero-load
// latency; broadcast reaches every other port exactly once; MAC learning
// follows a host that moves; bad frames are counted and dropped without
// disturbing the good ones.
#include <gtest/gtest.h>
#include <rte_cycles.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "control/analysis/analysis.h"
#include "control/run/runner.h"
#include "control/spec/spec_loader.h"
#include "eal_fixture.h"
#include "ring_port.h"

namespace fabemu {
namespace {

constexpr uint64_t kBroadcast = 0xffffffffffffULL;
uint64_t host_mac(int i) { return 0x020000000000ULL + static_cast<uint64_t>(i); }

Spec realtime_spec(const std::string& file, std::vector<std::string> sets) {
  sets.insert(sets.begin(), {"run.progress_s=0", "traffic.load=0", "run.mode=realtime"});
  return load_spec(std::string(FABEMU_SOURCE_DIR) + "/topologies/" + file, sets);
}

void bind(Spec& s, const RingPort& p, const std::string& name, int endpoint, int vlan = 0) {
  PortBinding b;
  b.name = name;
  b.device = p.name;
  b.endpoint = endpoint;
  b.vlan = vlan;
  s.ports.push_back(b);
}

// Runs the spec in real time on this thread while `drive` plays the hosts on
// another; the run stops when drive returns.
RunResult run_with(const Spec& spec, const std::function<void()>& drive) {
  std::atomic<bool> stop{false};
  std::atomic<bool> started{false};
  std::thread driver([&] {
    while (!started.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // ports started
    drive();
    stop.store(true);
  });
  RunResult r;
  try {
    r = run_emulation(spec, [&](EngineConfig& c) {
      c.stop = &stop;
      c.progress = nullptr;
      c.live = nullptr;
      started.store(true);
    });
  } catch (...) {
    stop.store(true);
    started.store(true);
    driver.join();
    throw;
  }
  driver.join();
  return r;
}

// Frames received on p within `wait` (stops early once `want` have come).
// Waits up to `wait` for `want` frames (returns as soon as they are there):
// generous, because a loaded machine (ctest -j2 beside another run) can keep
// the polling workers off their CPUs for hundreds of milliseconds.
std::vector<std::vector<uint8_t>> collect(const RingPort& p, size_t want,
                                          std::chrono::milliseconds wait = std::chrono::milliseconds(5000)) {
  std::vector<std::vector<uint8_t>> got;
  const auto until = std::chrono::steady_clock::now() + wait;
  while (std::chrono::steady_clock::now() < until) {
    for (auto& f : take_frames(p)) got.push_back(std::move(f));
    if (got.size() >= want && want > 0) break;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return got;
}

const PortStats& port(const RunResult& r, const std::string& name) {
  for (const auto& p : r.stats.ports)
    if (p.name == name) return p;
  throw std::runtime_error("no port " + name);
}

uint64_t drops(const PortStats& p, FrameDrop why) { return p.drops[static_cast<int>(why)]; }

TEST(Ports, FramesCrossTheTorusUnmodifiedInOrderAtZeroLoadLatency) {
  RingPort a = make_ring_port(), b = make_ring_port();
  ASSERT_FALSE(a.name.empty());
  ASSERT_FALSE(b.name.empty());
  // time_scale 2000: one emulated ns takes 2 us of wall clock, so the poll
  // loop's microseconds are small against the fabric's latency.
  Spec spec = realtime_spec("t3e-4x4x4.yaml", {"run.time_scale=2000"});
  bind(spec, a, "a", 0);
  bind(spec, b, "b", 42);  // router (2,2,2): six hops from router 0
  constexpr int kFrames = 12;
  // Timestamps that bracket the truth whatever the scheduler does to this
  // thread: the frame entered the ring between sent_before and sent_after and
  // left the fabric between last_empty (a poll that found nothing) and recv.
  std::vector<uint64_t> sent_before(kFrames), sent_after(kFrames), last_empty(kFrames, 0),
      recv_tsc(kFrames, 0);
  std::vector<std::vector<uint8_t>> sent(kFrames), got;
  RunResult r = run_with(spec, [&] {
    // A first frame shows the ports are being polled (not measured).
    ASSERT_TRUE(send_frame(a, test_frame(host_mac(2), host_mac(1), 60, 999)));
    ASSERT_EQ(collect(b, 1, std::chrono::seconds(5)).size(), 1u);
    for (int i = 0; i < kFrames; i++) {
      sent[i] = test_frame(host_mac(2), host_mac(1), 60, 1000 + i);  // one fabric packet
      sent_before[i] = rte_rdtsc();
      ASSERT_TRUE(send_frame(a, sent[i]));
      sent_after[i] = rte_rdtsc();
      // Wait for it (zero load: one frame in the fabric at a time).
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (std::chrono::steady_clock::now() < until) {
        const uint64_t poll = rte_rdtsc();
        auto fs = take_frames(b);
        if (fs.empty()) last_empty[i] = poll;
        if (!fs.empty()) {
          recv_tsc[i] = rte_rdtsc();
          for (auto& f : fs) got.push_back(std::move(f));
          break;
        }
      }
    }
  });
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  ASSERT_EQ(got.size(), size_t(kFrames));
  for (int i = 0; i < kFrames; i++) EXPECT_EQ(got[i], sent[i]) << "frame " << i;
  const EngineConfig cfg = make_engine_config(spec, r.fabric);
  const ps_t want = zero_load_latency_ps(spec, r.fabric, 0, 42, cfg.format.units_for(60),
                                         TrafficClass::request);
  const PortStats& pb = port(r, "b");
  EXPECT_EQ(pb.tx_frames, uint64_t(kFrames + 1));
  EXPECT_EQ(pb.frame_latency_ps.count, uint64_t(kFrames + 1));
  // Emulated time: exactly the spec's latency (rx stamp to tail delivery).
  EXPECT_EQ(pb.frame_latency_ps.min, want);
  EXPECT_EQ(pb.frame_latency_ps.max, want);
  EXPECT_EQ(pb.frame_hops.max, 6u);
  // Wall clock: never earlier than the scaled latency; later only by what
  // the run reports as late: events behind their time, plus the gap between
  // receive polls (the frame waits that long to enter). 2 ms of wall clock
  // (1 ns emulated) covers the test's own timestamps.
  const double ps_per_cycle = 1e12 / double(rte_get_tsc_hz()) / spec.run.time_scale;
  const double slack_ps = 2e-3 * 1e12 / spec.run.time_scale;
  for (int i = 0; i < kFrames; i++) {
    const double longest = double(recv_tsc[i] - sent_before[i]) * ps_per_cycle;
    EXPECT_GE(longest, double(want) * 0.999) << "frame " << i << " left before the fabric delivered it";
    if (last_empty[i] > sent_after[i]) {
      const double shortest = double(last_empty[i] - sent_after[i]) * ps_per_cycle;
      EXPECT_LE(shortest, double(want + r.stats.lateness_ps.max + r.stats.poll_gap_ps.max) + slack_ps)
          << "frame " << i;
    }
  }
}

// With two workers, c's router is on the other core: what a's core learns
// reaches c's core through the rings.
class PortsLearning : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Workers, PortsLearning, ::testing::Values(1, 2));

TEST_P(PortsLearning, BroadcastReachesEveryOtherPortOnceAndLearningFollowsAMovedHost) {
  RingPort a = make_ring_port(), b = make_ring_port(), c = make_ring_port();
  ASSERT_FALSE(c.name.empty());
  Spec spec = realtime_spec("t3e-4x4x4.yaml", {"run.workers=" + std::to_string(GetParam())});
  bind(spec, a, "a", 0);
  bind(spec, b, "b", 21);
  bind(spec, c, "c", 63);
  std::vector<std::vector<uint8_t>> ga, gb, gc;
  RunResult r = run_with(spec, [&] {
    // 1. Broadcast from host 1 on a: b and c get it once, a never.
    ASSERT_TRUE(send_frame(a, test_frame(kBroadcast, host_mac(1), 64, 1)));
    gb = collect(b, 1);
    gc = collect(c, 1);
    ga = collect(a, 0, std::chrono::milliseconds(50));
    EXPECT_EQ(gb.size(), 1u);
    EXPECT_EQ(gc.size(), 1u);
    EXPECT_EQ(ga.size(), 0u);
    // 2. Host 3 on c answers host 1: learned behind a, so only a gets it.
    ASSERT_TRUE(send_frame(c, test_frame(host_mac(1), host_mac(3), 64, 2)));
    ga = collect(a, 1);
    gb = collect(b, 0, std::chrono::milliseconds(50));
    EXPECT_EQ(ga.size(), 1u);
    EXPECT_EQ(gb.size(), 0u);
    // 3. Host 1 moves to b and speaks; frames for it now go to b only.
    ASSERT_TRUE(send_frame(b, test_frame(host_mac(3), host_mac(1), 64, 3)));
    EXPECT_EQ(collect(c, 1).size(), 1u);  // host 3 was learned behind c
    ASSERT_TRUE(send_frame(c, test_frame(host_mac(1), host_mac(3), 64, 4)));
    gb = collect(b, 1);
    ga = collect(a, 0, std::chrono::milliseconds(50));
    EXPECT_EQ(gb.size(), 1u);
    EXPECT_EQ(ga.size(), 0u);
    if (!gb.empty()) {
      EXPECT_EQ(frame_tag(gb[0]), 4u);
    }
  });
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  EXPECT_EQ(port(r, "a").flooded, 1u);
  EXPECT_EQ(port(r, "b").mac_moves, 1u);
  EXPECT_EQ(port(r, "a").tx_frames, 1u);
  EXPECT_EQ(port(r, "b").tx_frames, 2u);
  EXPECT_EQ(port(r, "c").tx_frames, 2u);
}

TEST(Ports, BadFramesAreCountedAndDroppedWithoutDisturbingTheRest) {
  RingPort a = make_ring_port(), b = make_ring_port();
  ASSERT_FALSE(b.name.empty());
  Spec spec = realtime_spec("t3e-4x4x4.yaml", {});
  bind(spec, a, "a", 0);
  bind(spec, b, "b", 42);
  constexpr int kGood = 30;
  std::vector<std::vector<uint8_t>> sent, got;
  RunResult r = run_with(spec, [&] {
    for (int i = 0; i < kGood; i++) {
      sent.push_back(test_frame(host_mac(2), host_mac(1), 100 + i, 5000 + i));
      ASSERT_TRUE(send_frame(a, sent.back()));
      switch (i % 6) {
        case 0:  // runt: not even an Ethernet header
          ASSERT_TRUE(send_frame(a, std::vector<uint8_t>(10, 0xee)));
          break;
        case 1:  // oversize: 1600 bytes on a 1500-byte MTU port
          ASSERT_TRUE(send_frame(a, test_frame(host_mac(2), host_mac(1), 1600, 1)));
          break;
        case 2: {  // garbage whose source address is a group address
          std::vector<uint8_t> g(77);
          for (size_t k = 0; k < g.size(); k++) g[k] = static_cast<uint8_t>(k * 73 + 0x11);
          g[6] = 0x01;
          ASSERT_TRUE(send_frame(a, g));
          break;
        }
        case 3: {  // tagged with a VLAN no binding takes
          auto t = test_frame(host_mac(2), host_mac(1), 80, 2);
          const uint8_t tag[4] = {0x81, 0x00, 0x00, 0x07};
          t.insert(t.begin() + 12, tag, tag + 4);
          ASSERT_TRUE(send_frame(a, t));
          break;
        }
        case 4: {  // a VLAN tag cut short
          auto t = test_frame(host_mac(2), host_mac(1), 16, 3);
          t[12] = 0x81;
          t[13] = 0x00;
          ASSERT_TRUE(send_frame(a, t));
          break;
        }
        default:  // all-zero source
          ASSERT_TRUE(send_frame(a, test_frame(host_mac(2), 0, 64, 4)));
          break;
      }
    }
    got = collect(b, kGood, std::chrono::seconds(5));
  });
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  ASSERT_EQ(got.size(), sent.size());
  for (size_t i = 0; i < sent.size(); i++) EXPECT_EQ(got[i], sent[i]) << "good frame " << i;
  const PortStats& pa = port(r, "a");
  EXPECT_EQ(pa.rx_frames, uint64_t(2 * kGood));
  EXPECT_EQ(drops(pa, FrameDrop::runt), 10u);
  EXPECT_EQ(drops(pa, FrameDrop::oversize), 5u);
  EXPECT_EQ(drops(pa, FrameDrop::bad_source_mac), 10u);
  EXPECT_EQ(drops(pa, FrameDrop::unknown_vlan), 5u);
  EXPECT_EQ(port(r, "b").tx_frames, uint64_t(kGood));
}

// Frames up to the MTU become many fabric packets (24 T3E packets or 46
// YARC packets for 1514 bytes), sent back to back so they queue; each comes
// out whole, byte for byte, in order.
void expect_large_frames_whole(const std::string& file, std::vector<std::string> sets, int far_ep,
                               const std::function<void(const RunResult&)>& also = nullptr) {
  RingPort a = make_ring_port(), b = make_ring_port();
  ASSERT_FALSE(b.name.empty());
  sets.push_back("run.time_scale=10");
  Spec spec = realtime_spec(file, sets);
  bind(spec, a, "a", 0);
  bind(spec, b, "b", far_ep);
  std::vector<std::vector<uint8_t>> sent, got;
  RunResult r = run_with(spec, [&] {
    for (int i = 0; i < 40; i++) {
      const uint32_t len = i % 4 == 0 ? 1514 : 60 + static_cast<uint32_t>(i * 37 % 1450);
      sent.push_back(test_frame(host_mac(2), host_mac(1), len, 7000 + i));
      ASSERT_TRUE(send_frame(a, sent.back()));
    }
    got = collect(b, sent.size(), std::chrono::seconds(10));
  });
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  ASSERT_EQ(got.size(), sent.size());
  for (size_t i = 0; i < sent.size(); i++) EXPECT_EQ(got[i], sent[i]) << "frame " << i;
  uint64_t dropped = 0;
  for (const auto& p : r.stats.ports)
    for (uint64_t d : p.drops) dropped += d;
  EXPECT_EQ(dropped, 0u);
  EXPECT_TRUE(r.stats.drained);
  if (also) also(r);
}

TEST(Ports, LargeFramesCrossTheTorusWhole) { expect_large_frames_whole("t3e-4x4x4.yaml", {}, 42); }

// Two worker cores: the frames cross between cores through the rings, and a
// MAC learned on one core is learned on the other.
TEST(Ports, LargeFramesCrossTheTorusWholeWithTwoWorkers) {
  expect_large_frames_whole("t3e-4x4x4.yaml", {"run.workers=2"}, 42);
}

TEST(Ports, LargeFramesCrossTheClosWhole) {
  expect_large_frames_whole("yarc-r2-1024.yaml", {"topology.endpoints=64", "run.workers=1"}, 63);
}

// Network slices (BlackWidow section 2.2): a host's frames are one flow,
// one hash, so they take one slice and stay in order.
TEST(Ports, LargeFramesCrossTheSlicedClosWholeOnOneSlice) {
  expect_large_frames_whole("yarc-r2-1024.yaml",
                            {"topology.endpoints=64", "run.workers=1", "topology.slices=4"}, 63,
                            [](const RunResult& r) {
                              ASSERT_TRUE(r.json.contains("slices"));
                              int carrying = 0;
                              for (const auto& s : r.json["slices"])
                                carrying += s["injected_packets"].get<uint64_t>() > 0;
                              EXPECT_EQ(carrying, 1) << r.json["slices"].dump();
                            });
}

// Under synthetic load on every slice, the host's frames (one flow, one
// slice) still arrive whole and in order: requests to one address keep
// their order (BlackWidow section 5).
TEST(Ports, LargeFramesStayInOrderOnASlicedClosUnderLoad) {
  expect_large_frames_whole("yarc-r2-1024.yaml",
                            {"topology.endpoints=64", "run.workers=1", "topology.slices=4",
                             "traffic.load=0.05", "traffic.reply_fraction=0.5"},
                            63, [](const RunResult& r) {
                              for (const auto& s : r.json["slices"])
                                EXPECT_GT(s["injected_packets"].get<uint64_t>(), 100u)
                                    << "every slice carried the background traffic";
                            });
}

TEST(Ports, VlanBindingsTakeTheirTagOffAndPutItBack) {
  RingPort trunk = make_ring_port(), c = make_ring_port();
  ASSERT_FALSE(c.name.empty());
  Spec spec = realtime_spec("t3e-4x4x4.yaml", {});
  bind(spec, trunk, "v10", 0, 10);
  bind(spec, trunk, "v20", 5, 20);
  bind(spec, c, "c", 42);
  std::vector<std::vector<uint8_t>> on_trunk, on_c;
  const auto plain = test_frame(kBroadcast, host_mac(3), 90, 11);
  RunResult r = run_with(spec, [&] {
    // A broadcast from c leaves the trunk once per VLAN, tagged.
    ASSERT_TRUE(send_frame(c, plain));
    on_trunk = collect(trunk, 2);
    // A tagged frame from VLAN 20 to host 3 reaches c untagged.
    auto tagged = test_frame(host_mac(3), host_mac(4), 90, 12);
    const uint8_t tag[4] = {0x81, 0x00, 0x00, 20};
    tagged.insert(tagged.begin() + 12, tag, tag + 4);
    ASSERT_TRUE(send_frame(trunk, tagged));
    on_c = collect(c, 1);
  });
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  ASSERT_EQ(on_trunk.size(), 2u);
  std::vector<int> vlans;
  for (const auto& f : on_trunk) {
    ASSERT_EQ(f.size(), plain.size() + 4);
    EXPECT_EQ(f[12], 0x81);
    EXPECT_EQ(f[13], 0x00);
    vlans.push_back(((f[14] & 0x0f) << 8) | f[15]);
    std::vector<uint8_t> untagged(f);
    untagged.erase(untagged.begin() + 12, untagged.begin() + 16);
    EXPECT_EQ(untagged, plain);
  }
  std::sort(vlans.begin(), vlans.end());
  EXPECT_EQ(vlans, (std::vector<int>{10, 20}));
  ASSERT_EQ(on_c.size(), 1u);
  EXPECT_EQ(on_c[0], test_frame(host_mac(3), host_mac(4), 90, 12));
  EXPECT_EQ(port(r, "v20").rx_frames, 1u);
  EXPECT_EQ(port(r, "v10").rx_frames, 0u);
}

TEST(Ports, HostsGetThroughUnderSyntheticBackgroundLoad) {
  RingPort a = make_ring_port(), b = make_ring_port();
  ASSERT_FALSE(b.name.empty());
  Spec spec = realtime_spec("t3e-4x4x4.yaml", {"run.time_scale=200"});
  spec.traffic.load = 0.02;  // every other endpoint sends 64-byte packets
  bind(spec, a, "a", 0);
  bind(spec, b, "b", 42);
  std::vector<std::vector<uint8_t>> sent, got;
  RunResult r = run_with(spec, [&] {
    for (int i = 0; i < 20; i++) {
      sent.push_back(test_frame(host_mac(2), host_mac(1), 200 + 50 * i, 9000 + i));
      ASSERT_TRUE(send_frame(a, sent.back()));
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    got = collect(b, sent.size(), std::chrono::seconds(10));
  });
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  ASSERT_EQ(got.size(), sent.size());
  for (size_t i = 0; i < sent.size(); i++) EXPECT_EQ(got[i], sent[i]) << "frame " << i;
  // The background traffic ran too, at its offered load, and everything it
  // sent arrived. 62 synthetic endpoints each offer load x 1 packet per 10
  // flit times (64-byte packets are 10 flits).
  const EngineConfig cfg = make_engine_config(spec, r.fabric);
  const double flit_ps = double(r.fabric.endpoints[0].unit_ps);
  // The sources ran until measure_end_ps (where their emulated clock stood
  // when the run was stopped), not to end_ps, which includes the drain.
  const double sourced_ps = double(r.stats.measure_end_ps);
  const double offered = 62 * spec.traffic.load / cfg.format.units_for(64) * sourced_ps / flit_ps;
  EXPECT_GT(double(r.stats.generated_messages), 0.8 * offered) << "sources ran " << sourced_ps << " ps";
  EXPECT_LT(double(r.stats.generated_messages), 1.2 * offered) << "sources ran " << sourced_ps << " ps";
  EXPECT_GT(r.stats.delivered_packets, 100u);
  EXPECT_TRUE(r.stats.drained);
}

}  // namespace
}  // namespace fabemu
