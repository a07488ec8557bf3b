// The pcap/pcapng reader (pcap-tools/pcap_reader.h) on files it must refuse
// rather than misread: blocks too short for what they declare, timestamp
// resolutions and times beyond 64 bits; and a small fuzz of random and
// mutated captures (run it under scripts/sanitize.sh to see every read stay
// inside its block). Replays (control/run/replay_load.h) longer than the
// picosecond clock holds are refused too.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "control/run/replay_load.h"
#include "control/run/runner.h"
#include "control/spec/spec_loader.h"
#include "pcap-tools/pcap_reader.h"
#include "tests/support/pcap_file.h"

namespace fabemu {
namespace {

std::string temp_path(const std::string& name) {
  return "/tmp/fabemu_pcap_reader_test_" + std::to_string(getpid()) + "_" + name;
}

// Little-endian pcapng built block by block.
struct Pcapng {
  std::vector<uint8_t> bytes;

  void u16(uint16_t v) { bytes.insert(bytes.end(), {uint8_t(v), uint8_t(v >> 8)}); }
  void u32(uint32_t v) { u16(uint16_t(v)), u16(uint16_t(v >> 16)); }
  // A block of `type` with `body` (padded to 4) and both lengths.
  Pcapng& block(uint32_t type, std::vector<uint8_t> body) {
    while (body.size() % 4) body.push_back(0);
    const uint32_t len = static_cast<uint32_t>(body.size() + 12);
    u32(type), u32(len);
    bytes.insert(bytes.end(), body.begin(), body.end());
    u32(len);
    return *this;
  }
  Pcapng& section() {
    return block(0x0A0D0D0A, {0x4D, 0x3C, 0x2B, 0x1A, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff,
                              0xff, 0xff, 0xff});
  }
  // An Ethernet interface, with if_tsresol when tsresol >= 0.
  Pcapng& interface(int tsresol = -1) {
    std::vector<uint8_t> b{1, 0, 0, 0, 0xff, 0xff, 0, 0};
    if (tsresol >= 0) b.insert(b.end(), {9, 0, 1, 0, uint8_t(tsresol), 0, 0, 0});
    return block(1, b);
  }
  Pcapng& packet(uint64_t ts, uint32_t bytes_long) {
    std::vector<uint8_t> b(20 + bytes_long, 0x5a);
    const uint32_t head[5] = {0, uint32_t(ts >> 32), uint32_t(ts), bytes_long, bytes_long};
    std::memcpy(b.data(), head, sizeof head);
    return block(6, b);
  }
  // Written to a file removed when the returned object goes, whatever
  // the test does meanwhile.
  struct File {
    std::string path;
    explicit File(std::string p) : path(std::move(p)) {}
    File(File&& o) noexcept : path(std::exchange(o.path, {})) {}
    ~File() {
      if (!path.empty()) std::remove(path.c_str());
    }
  };
  File write(const std::string& name) const {
    File f{temp_path(name)};
    std::ofstream(f.path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    return f;
  }
  PcapngFile read(const std::string& name) const { return read_pcapng(write(name).path); }
};

TEST(PcapReader, RefusesASimplePacketBlockWithoutItsLength) {
  // 12 bytes: type, length, trailing length and nothing between.
  const PcapngFile got = Pcapng().section().interface().block(3, {}).read("spb12.pcapng");
  EXPECT_TRUE(got.packets.empty()) << "read a frame of " << got.packets[0].data.size()
                                   << " bytes out of an empty block";
  EXPECT_NE(got.error.find("simple packet block of 12 bytes"), std::string::npos) << got.error;
  EXPECT_NE(got.error.find("at byte 48"), std::string::npos) << got.error;
  // One with its length reads the frame it holds, never more.
  const PcapngFile frame =
      Pcapng().section().interface().block(3, {60, 0, 0, 0, 1, 2, 3, 4}).read("spb.pcapng");
  EXPECT_TRUE(frame.error.empty()) << frame.error;
  ASSERT_EQ(frame.packets.size(), 1u);
  EXPECT_EQ(frame.packets[0].orig_len, 60u);
  EXPECT_EQ(frame.packets[0].data, (std::vector<uint8_t>{1, 2, 3, 4}));
}

TEST(PcapReader, RefusesResolutionsAndTimesBeyond64Bits) {
  for (const int tsresol : {0xC0, 0xFF, 0x14, 0x7F}) {  // 2^64, 2^127, 10^20, 10^127 per second
    const PcapngFile got = Pcapng().section().interface(tsresol).packet(1, 60).read("res.pcapng");
    EXPECT_TRUE(got.packets.empty()) << tsresol;
    EXPECT_NE(got.error.find("if_tsresol " + std::to_string(tsresol)), std::string::npos)
        << got.error;
  }
  // The finest that fit: 2^63 and 10^19 units per second.
  for (const int tsresol : {0xBF, 0x13}) {
    const PcapngFile got =
        Pcapng().section().interface(tsresol).packet(uint64_t{1} << 62, 60).read("fine.pcapng");
    EXPECT_TRUE(got.error.empty()) << got.error;
    ASSERT_EQ(got.packets.size(), 1u);
    EXPECT_EQ(got.packets[0].ts_ns, tsresol == 0xBF ? 500000000u : 461168601u);
  }
  // Whole seconds (10^0): 2^40 s is far past what nanoseconds in 64 bits hold.
  const PcapngFile got =
      Pcapng().section().interface(0).packet(1, 60).packet(uint64_t{1} << 40, 60).read("late.pcapng");
  ASSERT_EQ(got.packets.size(), 1u);
  EXPECT_EQ(got.packets[0].ts_ns, 1000000000u);
  EXPECT_NE(got.error.find("beyond the year 2554"), std::string::npos) << got.error;
}

TEST(PcapReader, RefusesAReplayLongerThanThePicosecondClockHolds) {
  // Nanosecond stamps: 213.5 days after the first frame wrapped to its first
  // microsecond when multiplied into picoseconds.
  const uint64_t day_ns = 86400ull * 1000000000ull;
  for (const double days : {213.6, 60.0}) {
    const auto file = Pcapng()
                          .section()
                          .interface(9)
                          .packet(0, 60)
                          .packet(uint64_t(days * double(day_ns)), 60)
                          .write("long.pcapng");
    uint32_t longest = 0;
    try {
      const auto trace = load_replay(file.path, "", &longest);
      ADD_FAILURE() << days << " days accepted; the last frame at " << trace->t_ps.back() << " ps";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("frame 1 is stamped " + std::to_string(int(days))),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("a replay spans at most 53.4 days"), std::string::npos)
          << e.what();
    }
  }
  const auto file =
      Pcapng().section().interface(9).packet(0, 60).packet(50 * day_ns, 60).write("ok.pcapng");
  uint32_t longest = 0;
  const auto trace = load_replay(file.path, "", &longest);
  ASSERT_EQ(trace->frames(), 2u);
  EXPECT_EQ(trace->t_ps[1], 50 * day_ns * 1000);
}

// The engine divides a replay's times by its speed in the same clock: a
// file that fits at full speed may not when slowed down.
TEST(PcapReader, RefusesAReplaySlowedBeyondThePicosecondClock) {
  const uint64_t day_ns = 86400ull * 1000000000ull;
  const auto file =
      Pcapng().section().interface(9).packet(0, 60).packet(50 * day_ns, 60).write("slow.pcapng");
  const auto spec = [&](const char* speed) {
    return load_spec(std::string(FABEMU_SOURCE_DIR) + "/topologies/t3e-4x4x4.yaml",
                     {"run.progress_s=0", "traffic.load=0", "run.warmup_ns=0", "run.measure_ns=1000",
                      "ports=[{name: slow, replay: \"" + file.path + "\", endpoint: 0, replay_speed: " +
                          speed + "}]"});
  };
  try {
    run_emulation(spec("0.5"));
    ADD_FAILURE() << "a replay of 100 days accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("spans 100.0 days at replay_speed 0.5"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(run_emulation(spec("2")).stats.ports[0].rx_frames, 1u) << "the first frame, at 0";
}

// Random blocks (every type the reader knows and others, any length, random
// options) and valid captures with bytes flipped, cut or repeated: each is
// read to its end or to an error naming a byte offset, and every frame fits
// in the file. Under scripts/sanitize.sh any read outside a block, and any
// undefined shift or conversion, fails this test.
TEST(PcapReader, FuzzedCapturesAreReadOrRefusedWithinTheirBlocks) {
  std::mt19937_64 rng(20240611);
  const auto pick = [&](uint64_t n) { return n ? rng() % n : 0; };
  const auto random_bytes = [&](size_t n) {
    std::vector<uint8_t> b(n);
    for (auto& x : b) x = uint8_t(rng());
    return b;
  };
  // In memory where there is a tmpfs: 3000 files on a disk take seconds.
  const std::string path = (access("/dev/shm", W_OK) == 0 ? "/dev/shm/fabemu_pcap_reader_fuzz_"
                                                          : "/tmp/fabemu_pcap_reader_fuzz_") +
                           std::to_string(getpid()) + ".pcapng";
  int refused = 0, read = 0;
  for (int round = 0; round < 3000; round++) {
    Pcapng f;
    if (pick(8)) f.section();
    const int blocks = int(pick(6));
    for (int k = 0; k < blocks; k++) {
      switch (pick(7)) {
        case 0: f.interface(pick(3) ? int(pick(256)) : -1); break;
        case 1: f.packet(rng(), uint32_t(pick(80))); break;
        case 2: f.block(3, random_bytes(pick(3) ? pick(8) : pick(100))); break;  // simple packets
        case 3: f.block(uint32_t(pick(8)), random_bytes(pick(64))); break;
        case 4: {  // an interface with random options
          std::vector<uint8_t> b{1, 0, 0, 0, 0xff, 0xff, 0, 0};
          const auto opts = random_bytes(pick(40));
          b.insert(b.end(), opts.begin(), opts.end());
          f.block(1, b);
          break;
        }
        case 5: f.section(); break;
        default: {  // a raw header whose length lies
          f.u32(uint32_t(pick(8))), f.u32(uint32_t(pick(3) ? pick(64) : rng()));
          const auto tail = random_bytes(pick(32));
          f.bytes.insert(f.bytes.end(), tail.begin(), tail.end());
        }
      }
    }
    // Mutations: flipped bytes, a cut, a repeated stretch.
    const size_t flips = f.bytes.empty() ? 0 : pick(4);
    for (size_t k = 0; k < flips; k++) f.bytes[pick(f.bytes.size())] ^= uint8_t(1 + pick(255));
    if (!f.bytes.empty() && pick(4) == 0) f.bytes.resize(pick(f.bytes.size()));
    if (f.bytes.size() > 8 && pick(6) == 0) {
      const size_t at = pick(f.bytes.size() - 8);
      const std::vector<uint8_t> again(f.bytes.begin() + long(at), f.bytes.begin() + long(at + 8));
      f.bytes.insert(f.bytes.end(), again.begin(), again.end());
    }
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(f.bytes.data()), std::streamsize(f.bytes.size()));
    PcapReader r;
    std::string err;
    if (!r.open(path, &err)) {
      EXPECT_FALSE(err.empty());
      refused++;
      continue;
    }
    size_t records = 0;
    for (PcapRecord rec; r.next(&rec);) {
      ASSERT_LE(rec.data.size(), f.bytes.size()) << "round " << round;
      ASSERT_LT(rec.iface, r.interfaces().size()) << "round " << round;
      ASSERT_LE(++records, f.bytes.size() / 12) << "round " << round << ": more records than blocks";
    }
    if (!r.error().empty()) {
      EXPECT_NE(r.error().find(" at byte "), std::string::npos) << r.error();
      refused++;
    } else {
      read++;
    }
  }
  EXPECT_GT(read, 100);  // the fuzz reaches past the first block
  EXPECT_GT(refused, 100);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace fabemu
