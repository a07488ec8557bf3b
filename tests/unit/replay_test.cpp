// Replay (issue 11, part 5): a host whose Ethernet frames come from a pcap
// or pcapng file at their recorded times (ports[].replay), scaled and
// looped, in virtual and real time; and a capture of one run replayed into
// another gives the same fabric traffic, packet for packet.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "control/run/replay_load.h"
#include "control/run/runner.h"
#include "control/spec/spec_loader.h"
#include "pcap-tools/pcap_reader.h"

namespace fabemu {
namespace {

std::string temp_path(const std::string& name) {
  return "/tmp/fabemu_replay_test_" + std::to_string(getpid()) + "_" + name;
}

template <class T>
void put(std::ofstream& f, T v) {
  f.write(reinterpret_cast<const char*>(&v), sizeof v);
}

// A classic pcap (microseconds) of n frames from host 1 to host 2, frame i
// at i * gap_us, 60 + 24 i bytes long, its bytes counting from i.
std::string write_pcap(const std::string& name, int n, uint32_t gap_us) {
  const std::string path = temp_path(name);
  std::ofstream f(path, std::ios::binary);
  put<uint32_t>(f, 0xa1b2c3d4), put<uint16_t>(f, 2), put<uint16_t>(f, 4);
  put<int32_t>(f, 0), put<uint32_t>(f, 0), put<uint32_t>(f, 65535), put<uint32_t>(f, 1);
  for (int i = 0; i < n; i++) {
    std::vector<uint8_t> fr{0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x88, 0xb5};
    for (int k = 0; k < 46 + 24 * i; k++) fr.push_back(static_cast<uint8_t>(i + k));
    const uint64_t t = uint64_t(i) * gap_us;
    put<uint32_t>(f, static_cast<uint32_t>(t / 1000000)), put<uint32_t>(f, static_cast<uint32_t>(t % 1000000));
    put<uint32_t>(f, static_cast<uint32_t>(fr.size())), put<uint32_t>(f, static_cast<uint32_t>(fr.size()));
    f.write(reinterpret_cast<const char*>(fr.data()), static_cast<std::streamsize>(fr.size()));
  }
  return path;
}

std::vector<PcapRecord> records(const std::string& path, std::vector<PcapInterface>* ifs = nullptr) {
  PcapReader r;
  std::string err;
  EXPECT_TRUE(r.open(path, &err)) << err;
  std::vector<PcapRecord> v;
  for (PcapRecord rec; r.next(&rec);) v.push_back(rec);
  EXPECT_TRUE(r.error().empty()) << r.error();
  if (ifs) *ifs = r.interfaces();
  return v;
}

// Endpoint 0 replays `file`; endpoint 42 is a host that only listens.
Spec replay_spec(const std::string& file, const std::string& extra_a,
                 std::vector<std::string> sets) {
  static const std::string quiet = write_pcap("quiet.pcap", 0, 1);
  sets.insert(sets.begin(),
              {"run.progress_s=0", "traffic.load=0", "run.warmup_ns=0", "run.measure_ns=200000",
               "ports=[{name: a, replay: \"" + file + "\", endpoint: 0" + extra_a +
                   "}, {name: b, replay: \"" + quiet + "\", endpoint: 42}]"});
  return load_spec(std::string(FABEMU_SOURCE_DIR) + "/topologies/t3e-4x4x4.yaml", sets);
}

RunResult run_quiet(const Spec& spec) {
  return run_emulation(spec, [](EngineConfig& c) { c.progress = nullptr; });
}

TEST(Replay, FramesEnterAtTheirRecordedTimesScaledAndLooped) {
  const std::string in = write_pcap("timed.pcap", 12, 5);
  const std::string cap = temp_path("timed.pcapng");
  const RunResult r = run_quiet(replay_spec(in, ", replay_speed: 2, replay_loops: 3",
                                            {"capture.taps=[\"port=a\", \"port=b\"]",
                                             "capture.file=" + cap}));
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  const PortStats& a = r.stats.ports[0];
  const PortStats& b = r.stats.ports[1];
  EXPECT_EQ(a.replay_sent, 36u);
  EXPECT_EQ(a.replay_unsent, 0u);
  EXPECT_EQ(a.rx_frames, 36u);
  EXPECT_EQ(b.tx_frames, 36u);  // flooded (host 2 is unknown) to the one other host
  std::vector<PcapInterface> ifs;
  const std::vector<PcapRecord> recs = records(cap, &ifs);
  std::remove(cap.c_str());
  ASSERT_EQ(ifs.size(), 2u);
  const std::vector<PcapRecord> sent = records(in);
  std::vector<PcapRecord> entered;
  for (const auto& rec : recs)
    if (ifs[rec.iface].name == "port:a") entered.push_back(rec);
  ASSERT_EQ(entered.size(), 36u);
  // Recorded gaps of 5 us at speed 2: 2.5 us apart; a pass spans 27.5 us
  // and the next begins 1 us after its last frame.
  const uint64_t pass_ns = 27500 + 1000;
  for (size_t i = 0; i < entered.size(); i++) {
    EXPECT_EQ(entered[i].ts_ns - r.stats.capture_start_ns, (i / 12) * pass_ns + (i % 12) * 2500)
        << i;  // the run's start plus emulated time
    EXPECT_EQ(entered[i].data, sent[i % 12].data) << i;
    EXPECT_EQ(entered[i].flags, 1u);  // inbound: from the host
  }
  std::remove(in.c_str());
}

TEST(Replay, ARunThatEndsFirstCountsTheUnsentFrames) {
  const std::string in = write_pcap("long.pcap", 10, 50);  // 450 us of frames
  const RunResult r = run_quiet(replay_spec(in, "", {"run.measure_ns=100000"}));
  std::remove(in.c_str());
  const PortStats& a = r.stats.ports[0];
  EXPECT_EQ(a.replay_sent, 2u);  // at 0 and 50 us: sources stop at 100 us, the end of measurement
  EXPECT_EQ(a.replay_unsent, 8u);
  EXPECT_EQ(r.json["ports"][0]["replay"]["unsent"].get<uint64_t>(), 8u);
}

// Everything a capture records of the fabric: link, time, header, encoding.
std::vector<std::vector<uint8_t>> fabric_packets(const std::string& path) {
  std::vector<std::vector<uint8_t>> v;
  for (const PcapRecord& rec : records(path))
    if (rec.data.size() > 14 && rec.data[12] == 0x88 && rec.data[13] == 0xb5) v.push_back(rec.data);
  return v;
}

TEST(Replay, ACaptureReplayedGivesTheSameFabricTraffic) {
  const std::string in = write_pcap("first.pcap", 20, 3);
  const std::string cap1 = temp_path("run1.pcapng"), cap2 = temp_path("run2.pcapng");
  const RunResult one = run_quiet(replay_spec(in, "", {"capture.taps=[all]", "capture.file=" + cap1}));
  // The second host replays what the first run's tap saw it send.
  const RunResult two = run_quiet(replay_spec(cap1, ", replay_interface: \"port:a\"",
                                              {"capture.taps=[all]", "capture.file=" + cap2}));
  const auto p1 = fabric_packets(cap1), p2 = fabric_packets(cap2);
  EXPECT_GT(p1.size(), 100u);
  EXPECT_EQ(p1, p2);
  EXPECT_EQ(one.stats.ports[1].tx_frames, 20u);
  EXPECT_EQ(two.stats.ports[1].tx_frames, 20u);
  for (const auto& p : {in, cap1, cap2}) std::remove(p.c_str());
}

TEST(Replay, FilesThatCannotBeReplayedAreRefused) {
  const auto refused = [](const std::string& path, const std::string& iface, const std::string& says) {
    uint32_t longest = 0;
    try {
      load_replay(path, iface, &longest);
      ADD_FAILURE() << path << " accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused(temp_path("missing.pcap"), "", "cannot open");
  const std::string junk = temp_path("junk.pcap");
  std::ofstream(junk) << "this is not a capture file";
  refused(junk, "", "neither pcap nor pcapng");
  const std::string in = write_pcap("ok.pcap", 3, 1);
  refused(in, "port:zz", "has no interface 'port:zz'");
  uint32_t longest = 0;
  const auto trace = load_replay(in, "", &longest);
  EXPECT_EQ(trace->frames(), 3u);
  EXPECT_EQ(trace->t_ps[2], 2000000u);  // 2 us
  EXPECT_EQ(longest, 60u + 48u);
  for (const auto& p : {junk, in}) std::remove(p.c_str());
}

TEST(Replay, ABindingNeedsADeviceOrAFile) {
  const auto refused = [](const std::string& ports, const std::string& says) {
    try {
      load_spec(std::string(FABEMU_SOURCE_DIR) + "/topologies/t3e-4x4x4.yaml",
                {"traffic.load=0.1", "ports=" + ports});
      ADD_FAILURE() << ports << " accepted";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("[{endpoint: 0}]", "neither a device nor a replay file");
  refused("[{device: net_null0, replay: x.pcap, endpoint: 0}]", "a device and a replay file");
  refused("[{device: net_null0, endpoint: 0, replay_loops: 2}]", "apply to a replay binding");
  refused("[{device: net_null0, endpoint: 0}]", "DPDK ports carry real frames in wall-clock time");
}

}  // namespace
}  // namespace fabemu

namespace fabemu {
namespace {

// In the suite of the real-time port tests, which ctest runs alone (RUN_SERIAL).
TEST(Ports, ReplayInRealTimeKeepsTheRecordedSchedule) {
  const std::string in = write_pcap("realtime.pcap", 20, 20);
  const std::string cap = temp_path("realtime.pcapng");
  const RunResult r = run_quiet(replay_spec(
      in, "", {"run.mode=realtime", "run.duration_s=0.2", "capture.taps=[\"port=a\"]",
               "capture.file=" + cap}));
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  EXPECT_EQ(r.stats.ports[0].replay_sent, 20u);
  EXPECT_EQ(r.stats.ports[1].tx_frames, 20u);
  // Each frame enters at its recorded emulated time; how late the core ran
  // it against the wall clock is the run's lateness, reported beside it.
  const std::vector<PcapRecord> entered = records(cap);
  ASSERT_EQ(entered.size(), 20u);
  for (size_t i = 0; i < entered.size(); i++)
    EXPECT_EQ(entered[i].ts_ns - r.stats.capture_start_ns, i * 20000) << i;
  EXPECT_GT(r.stats.lateness_ps.count, 0u);
  EXPECT_EQ(r.stats.capture_drops, 0u);
  for (const auto& p : {in, cap}) std::remove(p.c_str());
}

}  // namespace
}  // namespace fabemu
