// Capture (issue 11): taps on fabric links written as pcapng by a thread off
// the worker cores (dataplane/link/capture_tap.h, pcap-tools/). A capture of
// every link holds exactly the packets the run counts per link, each framed
// as pcap-tools/FORMAT.md says with the encoding the packet carried; filters
// keep what they name; and a run with capture on has the same results as
// one without.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "control/run/runner.h"
#include "control/spec/capture_taps.h"
#include "control/spec/spec_loader.h"
#include "dataplane/link/link_numbering.h"
#include "pcap-tools/capture_writer.h"
#include "pcap-tools/pcap_reader.h"
#include "pcap-tools/pcapng_writer.h"
#include "tests/support/pcap_file.h"

namespace fabemu {
namespace {

// A big-endian field of a capture frame (pcap-tools/FORMAT.md).
uint64_t capture_be(const std::vector<uint8_t>& d, size_t o, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v = v << 8 | d[o + i];
  return v;
}

std::string temp_path(const std::string& name) {
  return "/tmp/fabemu_capture_test_" + std::to_string(getpid()) + "_" + name;
}

Spec torus(const std::vector<std::string>& extra) {
  std::vector<std::string> sets{"run.progress_s=0", "run.warmup_ns=1000", "run.measure_ns=4000",
                                "traffic.load=0.3"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return load_spec(std::string(FABEMU_SOURCE_DIR) + "/topologies/t3e-4x4x4.yaml", sets);
}

RunResult run_quiet(const Spec& spec) {
  return run_emulation(spec, [](EngineConfig& c) { c.progress = nullptr; });
}

TEST(CaptureTaps, Grammar) {
  CaptureTap t;
  std::string why;
  ASSERT_TRUE(parse_capture_tap("link=r3:p2", &t, &why)) << why;
  EXPECT_EQ(t.kind, CaptureTap::Kind::link_at);
  EXPECT_EQ(t.router, 3);
  EXPECT_EQ(t.port, 2);
  EXPECT_TRUE(t.in && t.out);
  ASSERT_TRUE(parse_capture_tap("link=r3:p2:out", &t, &why));
  EXPECT_TRUE(t.out && !t.in);
  ASSERT_TRUE(parse_capture_tap("link=r3.p2>r7.p5", &t, &why));
  EXPECT_EQ(t.kind, CaptureTap::Kind::link_named);
  ASSERT_TRUE(parse_capture_tap("link=ep4>r1.p0", &t, &why));
  ASSERT_TRUE(parse_capture_tap("router=5", &t, &why));
  EXPECT_EQ(t.router, 5);
  ASSERT_TRUE(parse_capture_tap("endpoint=4", &t, &why));
  ASSERT_TRUE(parse_capture_tap("port=h0", &t, &why));
  EXPECT_EQ(t.name, "h0");
  ASSERT_TRUE(parse_capture_tap("all", &t, &why));
  for (const char* bad : {"", "everything", "link=", "link=r3", "link=r3:p", "link=r3:p2:sideways",
                          "link=r3.p2>", "link=x>y", "router=five", "router=-1", "endpoint=1x",
                          "switch=3"}) {
    EXPECT_FALSE(parse_capture_tap(bad, &t, &why)) << bad;
    EXPECT_NE(why.find("a tap is all, link=rR:pP"), std::string::npos) << why;
  }
}

TEST(Pcapng, RotatesAndKeepsTheNewestFiles) {
  const std::string path = temp_path("ring.pcapng");
  PcapngWriter w;
  std::string err;
  ASSERT_TRUE(w.open(path, {"fabemu test", "none", "ring"}, {{"a", "first", 100}, {"b", "second", 100}},
                     1000, 2, &err))
      << err;
  std::vector<uint8_t> frame(61, 0xab);
  for (uint32_t i = 0; i < 40; i++)
    ASSERT_TRUE(w.write(i % 2, 1000ull * i, frame.data(), 61, 64, PcapngDirection::outbound));
  ASSERT_TRUE(w.close()) << w.error();
  ASSERT_EQ(w.files().size(), 2u);  // the newest two of several
  EXPECT_NE(w.files().back(), path);
  size_t packets = 0;
  for (const std::string& f : w.files()) {
    const PcapngFile p = read_pcapng(f);
    EXPECT_TRUE(p.error.empty()) << f << ": " << p.error;
    EXPECT_EQ(p.sections, 1);
    ASSERT_EQ(p.interfaces.size(), 2u);  // every file stands on its own
    EXPECT_EQ(p.interfaces[1].name, "b");
    EXPECT_EQ(p.interfaces[1].ts_per_s, 1000000000u);
    for (const auto& pk : p.packets) {
      EXPECT_EQ(pk.data.size(), 61u);
      EXPECT_EQ(pk.orig_len, 64u);
      EXPECT_EQ(pk.flags, 2u);
      EXPECT_EQ(pk.ts_ns % 1000, 0u);
    }
    packets += p.packets.size();
    std::remove(f.c_str());
  }
  EXPECT_GT(packets, 0u);
  EXPECT_LT(packets, 40u);  // older files were removed
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "the oldest file should be gone";
}

// The wall clock, ns since the Unix epoch (capture timestamps count from it).
uint64_t wall_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

// Packets per link id in a fabemu capture, with every frame checked against
// FORMAT.md and the interface it was written on, in time order, stamped with
// one run start (*start_ns) plus its emulated time.
std::vector<uint64_t> check_capture(const PcapngFile& p, const std::vector<LinkStats>& links,
                                    uint8_t profile, uint32_t unit_bytes,
                                    uint64_t* start_ns = nullptr) {
  std::vector<uint64_t> per_link(links.size(), 0);
  uint64_t start = 0, prev_ps = 0, out_of_order = 0;
  for (const auto& pk : p.packets) {
    const auto& d = pk.data;
    EXPECT_GE(d.size(), 62u);
    if (d.size() < 62) continue;
    EXPECT_EQ(capture_be(d, 12, 2), 0x88B5u);
    EXPECT_EQ(d[14], 1);
    EXPECT_EQ(d[15], profile);
    const uint32_t link = static_cast<uint32_t>(capture_be(d, 18, 4));
    EXPECT_LT(link, links.size());
    if (link >= links.size()) continue;
    per_link[link]++;
    EXPECT_EQ(p.interfaces[pk.iface].name, link_name(links[link]));
    const uint64_t units = capture_be(d, 26, 2), bytes = capture_be(d, 28, 2);
    const uint64_t t_ps = capture_be(d, 30, 8);
    EXPECT_EQ(bytes, units * unit_bytes);
    if (&pk == &p.packets.front()) start = pk.ts_ns - t_ps / 1000;
    EXPECT_EQ(pk.ts_ns, start + t_ps / 1000);
    out_of_order += t_ps < prev_ps;
    prev_ps = t_ps;
    EXPECT_EQ(d.size(), 62 + bytes);
    EXPECT_EQ(pk.orig_len, 62 + bytes);
    const uint64_t dst = capture_be(d, 42, 4);
    if (profile == 2) {  // T3E header flit 0: dst in [63:48], the flit's bytes 1..2
      EXPECT_EQ(d[62] & 0x20, 0x20) << "head flit";
      EXPECT_EQ(capture_be(d, 63, 2), dst);
    } else {  // YARC head phit: dest in data bits [21:7]
      EXPECT_EQ((capture_be(d, 62, 3) >> 7) & 0x7FFF, dst);
    }
    // The sender and receiver MACs name the link's ends.
    const LinkStats& l = links[link];
    const uint64_t from = capture_be(d, 9, 3), to = capture_be(d, 3, 3);
    EXPECT_EQ(from, l.router >= 0 ? uint64_t(l.router) : (kCaptureEndpointNode | uint64_t(l.endpoint)));
    EXPECT_EQ(to, l.peer_router >= 0 ? uint64_t(l.peer_router)
                                     : (kCaptureEndpointNode | uint64_t(l.endpoint)));
  }
  EXPECT_EQ(out_of_order, 0u) << "records earlier than the one before them";
  if (start_ns) *start_ns = start;
  return per_link;
}

void expect_every_packet_captured(const std::string& topology, const std::vector<std::string>& sets,
                                  uint8_t profile, uint32_t unit_bytes) {
  const std::string path = temp_path("all.pcapng");
  std::vector<std::string> s{"run.progress_s=0", "run.warmup_ns=1000", "run.measure_ns=4000",
                             "capture.taps=[all]", "capture.file=" + path};
  s.insert(s.end(), sets.begin(), sets.end());
  const Spec spec = load_spec(std::string(FABEMU_SOURCE_DIR) + "/topologies/" + topology, s);
  const uint64_t before = wall_ns();
  const RunResult r = run_quiet(spec);
  const uint64_t after = wall_ns();
  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;
  const PcapngFile p = read_pcapng(path);
  std::remove(path.c_str());
  ASSERT_TRUE(p.error.empty()) << p.error;
  const std::vector<LinkStats> links = number_links(r.fabric);
  ASSERT_EQ(p.interfaces.size(), links.size());
  uint64_t start = 0;
  const std::vector<uint64_t> per_link = check_capture(p, links, profile, unit_bytes, &start);
  // The timestamps count from the wall clock when the run started.
  EXPECT_GE(start, before);
  EXPECT_LE(start, after);
  EXPECT_EQ(start, uint64_t(r.stats.capture_start_ns));
  uint64_t total = 0;
  for (size_t l = 0; l < links.size(); l++) {
    EXPECT_EQ(per_link[l], r.stats.links[l].packets) << link_name(links[l]);
    total += r.stats.links[l].packets;
  }
  EXPECT_GT(total, 1000u);
  EXPECT_EQ(p.packets.size(), total);
  EXPECT_EQ(r.stats.captured, total);
  EXPECT_EQ(r.stats.capture_written, total);
  EXPECT_EQ(r.stats.capture_drops, 0u);
  EXPECT_EQ(r.json["capture"]["written"].get<uint64_t>(), total);
}

TEST(Capture, EveryPacketOfEveryTorusLinkIsInTheFile) {
  expect_every_packet_captured("t3e-4x4x4.yaml", {"traffic.load=0.3"}, 2, 9);
}

TEST(Capture, EveryPacketOfEveryClosLinkIsInTheFileWithTwoWorkers) {
  expect_every_packet_captured("yarc-r2-1024.yaml",
                               {"topology.endpoints=128", "traffic.load=0.4", "run.workers=2"}, 1, 3);
}

// (time, link, link sequence, packet id) of every packet in a capture, in file order.
std::vector<std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>> packet_order(const PcapngFile& p) {
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>> v;
  for (const auto& pk : p.packets)
    v.emplace_back(capture_be(pk.data, 30, 8), capture_be(pk.data, 18, 4),
                   capture_be(pk.data, 22, 4), capture_be(pk.data, 46, 8));
  return v;
}

// Two workers record at once; the writer merges their records by time (ties
// to the lower worker), so the file is in time order and, the run being
// deterministic, the same file every time.
TEST(Capture, TwoWorkersWriteOneFileInTimeOrderTheSameEveryRun) {
  const std::string path = temp_path("merged.pcapng");
  const std::vector<std::string> sets{"traffic.load=0.4", "run.workers=2", "capture.taps=[all]",
                                      "capture.file=" + path};
  const RunResult first = run_quiet(torus(sets));
  const PcapngFile a = read_pcapng(path);
  const RunResult second = run_quiet(torus(sets));
  const PcapngFile b = read_pcapng(path);
  std::remove(path.c_str());
  ASSERT_TRUE(a.error.empty() && b.error.empty()) << a.error << b.error;
  const std::vector<LinkStats> links = number_links(first.fabric);
  check_capture(a, links, 2, 9);
  check_capture(b, links, 2, 9);
  EXPECT_GT(a.packets.size(), 1000u);
  EXPECT_EQ(a.packets.size(), first.stats.captured);
  EXPECT_TRUE(packet_order(a) == packet_order(b)) << "the two runs' files differ in order";
}

// One record of link 0 at t_ps, from the worker side of queue q.
void put_record(CaptureQueue& q, ps_t t_ps) {
  CaptureRecord* r = q.get();
  ASSERT_NE(r, nullptr);
  std::memset(r, 0, sizeof *r);
  r->t_ps = t_ps;
  r->packet_id = t_ps;  // names the record in the file
  r->kind = CaptureKind::packet;
  r->dir = CaptureDir::outbound;
  q.put(r);
}

void wait_written(const CaptureWriter& w, uint64_t n) {
  while (w.written() < n) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// The merge in steps: a record is written once every other worker has
// passed its time (or stopped), whatever order the workers hand them over.
TEST(CaptureWriter, WritesARecordOnceEveryWorkerHasPassedItsTime) {
  const std::string path = temp_path("merge.pcapng");
  CaptureWriterConfig cfg;
  cfg.path = path;
  cfg.interfaces = {{"l0", "link 0", 65535}};
  cfg.link_nodes = {{0, 1}};
  CaptureWriter w;
  std::string err;
  ASSERT_TRUE(w.start(cfg, 3, 16, 64, {}, &err)) << err;
  std::vector<CaptureQueue*> q = w.queues();
  const int64_t start = 1'700'000'000'000'000'000;
  w.run_start()->store(start);
  // Worker 0 is ahead: 10 and 20 ns; worker 1 has passed 12 ns, worker 2 30.
  put_record(*q[0], 10000);
  put_record(*q[0], 20000);
  q[0]->pass(20000);
  q[1]->pass(12000);
  q[2]->pass(30000);
  wait_written(w, 1);  // 10 ns; 20 ns waits for worker 1
  put_record(*q[1], 12500);
  q[1]->pass(15000);
  wait_written(w, 2);        // 12.5 ns
  put_record(*q[1], 15000);  // at worker 1's bound: 15 ns goes, then 20 waits
  wait_written(w, 3);
  put_record(*q[2], 30000);
  put_record(*q[1], 25000);
  ASSERT_TRUE(w.finish()) << w.error();  // stopped: everything goes
  EXPECT_EQ(w.written(), 6u);
  const PcapngFile p = read_pcapng(path);
  std::remove(path.c_str());
  ASSERT_TRUE(p.error.empty()) << p.error;
  std::vector<uint64_t> times, stamps;
  for (const auto& pk : p.packets) {
    times.push_back(capture_be(pk.data, 30, 8));
    stamps.push_back(pk.ts_ns - uint64_t(start));
  }
  EXPECT_EQ(times, (std::vector<uint64_t>{10000, 12500, 15000, 20000, 25000, 30000}));
  EXPECT_EQ(stamps, (std::vector<uint64_t>{10, 12, 15, 20, 25, 30}));  // start + emulated ns
}

// A stream (the capture to standard output) is flushed for a live reader
// and says when its reader went away.
TEST(Pcapng, AStreamIsReadAsItIsWrittenAndSaysWhenItsReaderWentAway) {
  std::signal(SIGPIPE, SIG_IGN);  // as `fabemu run` has it: a write error, not a signal
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  PcapngWriter w;
  std::string err;
  ASSERT_TRUE(w.prepare("standard output", {{"a", "first", 100}}, 0, 0, fds[1], &err)) << err;
  ASSERT_TRUE(w.begin({"fabemu test", "none", "stream"}, &err)) << err;
  std::vector<uint8_t> frame(60, 0xab);
  ASSERT_TRUE(w.write(0, 1000, frame.data(), 60, 60, PcapngDirection::outbound));
  ASSERT_TRUE(w.flush()) << w.error();
  uint8_t magic[4];  // the section header block's type, readable before the end
  ASSERT_EQ(read(fds[0], magic, 4), 4);
  EXPECT_EQ(magic[0], 0x0A);
  EXPECT_EQ(magic[1], 0x0D);
  close(fds[0]);
  bool ok = true;
  for (int i = 0; i < 100000 && ok; i++)
    ok = w.write(0, 1000, frame.data(), 60, 60, PcapngDirection::outbound) && w.flush();
  EXPECT_FALSE(ok);
  EXPECT_TRUE(w.reader_gone());
  EXPECT_NE(w.error().find("the reader of standard output went away"), std::string::npos)
      << w.error();
  w.close();
  PcapngWriter r;
  const int fd = dup(2);
  EXPECT_FALSE(r.prepare("standard output", {}, 1000000, 0, fd, &err));
  EXPECT_NE(err.find("cannot rotate"), std::string::npos) << err;
  close(fd);
}

// The figures of a run, without what capture and the wall clock change
// (and the spec, which says how the runs differ).
nlohmann::json figures(nlohmann::json j) {
  j.erase("spec");
  j.erase("capture");
  j.erase("performance");
  return j;
}

TEST(Capture, OnOrOffTheResultsAreTheSame) {
  const std::string path = temp_path("same.pcapng");
  const RunResult off = run_quiet(torus({"traffic.load=0.5"}));
  const RunResult on =
      run_quiet(torus({"traffic.load=0.5", "capture.taps=[all]", "capture.file=" + path}));
  std::remove(path.c_str());
  EXPECT_GT(on.stats.captured, 0u);
  EXPECT_EQ(figures(off.json), figures(on.json));
}

TEST(Capture, FiltersKeepWhatTheyName) {
  const std::string all_path = temp_path("unfiltered.pcapng"), path = temp_path("filtered.pcapng");
  const RunResult all = run_quiet(torus({"capture.taps=[all]", "capture.file=" + all_path}));
  const RunResult some = run_quiet(torus({"capture.taps=[all]", "capture.file=" + path,
                                          "capture.vcs=[1]", "capture.src=[0, 5, 9, 30]",
                                          "capture.dst=[21, 22, 42, 43, 63]"}));
  const PcapngFile a = read_pcapng(all_path), s = read_pcapng(path);
  std::remove(all_path.c_str());
  std::remove(path.c_str());
  uint64_t expected = 0;
  for (const auto& pk : a.packets) {
    const uint64_t src = capture_be(pk.data, 38, 4), dst = capture_be(pk.data, 42, 4);
    const bool from = src == 0 || src == 5 || src == 9 || src == 30;
    const bool to = dst == 21 || dst == 22 || dst == 42 || dst == 43 || dst == 63;
    if (pk.data[17] == 1 && from && to) expected++;
  }
  EXPECT_GT(expected, 0u);
  EXPECT_EQ(s.packets.size(), expected);
  for (const auto& pk : s.packets) {
    EXPECT_EQ(pk.data[17], 1);
    const uint64_t src = capture_be(pk.data, 38, 4);
    EXPECT_TRUE(src == 0 || src == 5 || src == 9 || src == 30) << src;
  }
}

TEST(Capture, OneLinkBothWaysOrOneDirection) {
  const std::string path = temp_path("link.pcapng");
  const RunResult both = run_quiet(torus({"capture.taps=[\"link=r0:p0\"]", "capture.file=" + path}));
  PcapngFile p = read_pcapng(path);
  ASSERT_EQ(p.interfaces.size(), 2u);
  EXPECT_EQ(p.interfaces[0].name.rfind("r0.p0>", 0), 0u) << p.interfaces[0].name;
  EXPECT_NE(p.interfaces[1].name.find(">r0.p0"), std::string::npos) << p.interfaces[1].name;
  EXPECT_NE(p.interfaces[0].description.find("t3e flits"), std::string::npos)
      << p.interfaces[0].description;
  const RunResult out = run_quiet(torus({"capture.taps=[\"link=r0:p0:out\"]", "capture.file=" + path}));
  p = read_pcapng(path);
  std::remove(path.c_str());
  ASSERT_EQ(p.interfaces.size(), 1u);
  EXPECT_EQ(p.interfaces[0].name.rfind("r0.p0>", 0), 0u);
}

TEST(Capture, RouterAndEndpointTapsTakeEveryLinkAtTheirEnd) {
  const std::string path = temp_path("ends.pcapng");
  const RunResult r =
      run_quiet(torus({"capture.taps=[\"router=5\", \"endpoint=9\"]", "capture.file=" + path}));
  const PcapngFile p = read_pcapng(path);
  std::remove(path.c_str());
  ASSERT_TRUE(p.error.empty()) << p.error;
  const std::vector<LinkStats> links = number_links(r.fabric);
  std::map<std::string, uint64_t> want, got;
  for (size_t l = 0; l < links.size(); l++) {
    const LinkStats& k = links[l];
    if (k.router == 5 || k.peer_router == 5 || k.endpoint == 9)
      want[link_name(k)] = r.stats.links[l].packets;
  }
  // Router 5: 6 torus links and its endpoint link, both ways; endpoint 9: both ways.
  EXPECT_EQ(want.size(), 7u * 2 + 2);
  for (const auto& i : p.interfaces) got[i.name] = 0;
  for (const auto& pk : p.packets) got[p.interfaces[pk.iface].name]++;
  EXPECT_EQ(got, want);
}

TEST(Capture, TheTypesFilterKeepsOnlyResponses) {
  const std::string path = temp_path("types.pcapng");
  std::vector<std::string> sets{"traffic.reply_fraction=0.5", "capture.taps=[all]",
                                "capture.file=" + path};
  run_quiet(torus(sets));
  const PcapngFile all = read_pcapng(path);
  sets.push_back("capture.types=[response]");
  run_quiet(torus(sets));
  const PcapngFile responses = read_pcapng(path);
  std::remove(path.c_str());
  uint64_t expected = 0;
  for (const auto& pk : all.packets) expected += (pk.data[16] & kCapResponse) != 0;
  EXPECT_GT(expected, 0u);
  EXPECT_LT(expected, all.packets.size());
  EXPECT_EQ(responses.packets.size(), expected);
  for (const auto& pk : responses.packets) EXPECT_TRUE(pk.data[16] & kCapResponse);
}

TEST(Capture, ARunWritesARingOfFilesEachCompleteOnItsOwn) {
  const std::string path = temp_path("runring.pcapng");
  // About 7 MB of records in files of 1 MB, the newest 3 kept.
  const RunResult r =
      run_quiet(torus({"traffic.load=0.5", "run.measure_ns=30000", "capture.taps=[all]",
                       "capture.file=" + path, "capture.file_mb=1", "capture.files=3"}));
  const auto& files = r.json["capture"]["files"];
  ASSERT_EQ(files.size(), 3u) << r.json["capture"].dump();
  uint64_t kept = 0;
  for (const auto& f : files) {
    const PcapngFile p = read_pcapng(f.get<std::string>());
    EXPECT_TRUE(p.error.empty()) << f << ": " << p.error;
    EXPECT_EQ(p.interfaces.size(), number_links(r.fabric).size()) << f;
    kept += p.packets.size();
    std::remove(f.get<std::string>().c_str());
  }
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, r.stats.capture_written);  // the oldest files are gone
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "the first file should have been removed";
}

TEST(Capture, TapsThatNameNothingAreRefused) {
  const auto refused = [](const std::string& tap, const std::string& says) {
    try {
      run_quiet(torus({"capture.taps=[\"" + tap + "\"]", "capture.file=" + temp_path("x.pcapng")}));
      ADD_FAILURE() << tap << " was accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("router=64", "the fabric has routers 0..63");
  refused("endpoint=99", "the fabric has endpoints 0..63");
  refused("link=r0:p9", "router 0 has no link at port 9");
  refused("link=r0.p0>r9.p9", "no link has that name");
  refused("port=h0", "the run has no ports");
}

TEST(Capture, AFileThatCannotBeWrittenIsRefusedBeforeTheRun) {
  try {
    run_quiet(torus({"capture.taps=[all]", "capture.file=/nonexistent/dir/x.pcapng"}));
    ADD_FAILURE() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write the capture file /nonexistent/dir/x.pcapng"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fabemu
