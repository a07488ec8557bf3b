// The link-level retry soak (issue 10 item 4): every router-to-router link
// of the T3E 4x4x4 and of the rank-2 Clos at BER 1e-4 with link.retry, 10^7
// packets each on one worker, and of Spider's 64-endpoint fat hypercube
// (issue 33 item 7), 10^6 messages of five micropackets (ctest label
// `soak`: about 11 s, 28 s and 2 s on one core). Every packet is
// delivered exactly once, none damaged (each delivery decoded against its
// metadata), in order per flow where the routing keeps a flow on one path
// (T3E direction order; Spider's tables with congestion-control bit 0
// unused; the Clos hashes each request over the uplinks), and the retries
// are what the BER makes them.
//
// At 10^7 packets a list of delivered ids would take hundreds of MB and a
// sort: deliveries are kept as one bit per packet id of each source, and
// one last sequence number per flow.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "control/spec/spec_refuse.h"
#include "dataplane/codec/codec.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

// Packets each soak has its sources generate at least: its own count, or
// FABEMU_SOAK_PACKETS (a quicker look, or a longer soak).
uint64_t soak_packets(uint64_t packets) {
  const char* s = std::getenv("FABEMU_SOAK_PACKETS");
  return s && *s ? std::strtoull(s, nullptr, 10) : packets;
}

// Every delivery of a run: packet ids are (source << 40) | n, n counting
// each source's packets from 0 in the order they were generated.
class DeliveryLedger {
 public:
  explicit DeliveryLedger(uint32_t endpoints)
      : endpoints_(endpoints), seen_(endpoints), last_(size_t(endpoints) * endpoints) {}

  void add(uint64_t id, uint32_t src, uint32_t dst) {
    std::lock_guard<std::mutex> g(mu_);  // the hook runs on the delivering worker
    const uint64_t s = id >> 40, n = id & ((uint64_t{1} << 40) - 1);
    if (s != src || src >= endpoints_ || dst >= endpoints_) {
      foreign_++;
      return;
    }
    delivered_++;
    std::vector<uint64_t>& bits = seen_[src];
    if (bits.size() <= n / 64) bits.resize(std::max(n / 64 + 1, 2 * bits.size()));
    const uint64_t bit = uint64_t{1} << (n % 64);
    if (bits[n / 64] & bit) duplicates_++;
    bits[n / 64] |= bit;
    uint64_t& last = last_[size_t(src) * endpoints_ + dst];  // last n + 1, 0: none yet
    if (n < last)
      out_of_order_++;
    else
      last = n + 1;
  }
  uint64_t delivered() const { return delivered_; }
  uint64_t duplicates() const { return duplicates_; }
  uint64_t out_of_order() const { return out_of_order_; }
  uint64_t foreign() const { return foreign_; }  // an id that is not its source's
  // Ids below a source's highest delivered one that never arrived.
  uint64_t holes() const {
    uint64_t holes = 0;
    for (const std::vector<uint64_t>& bits : seen_) {
      uint64_t set = 0, top = 0;
      for (size_t w = 0; w < bits.size(); ++w)
        if (bits[w]) {
          set += uint64_t(__builtin_popcountll(bits[w]));
          top = w * 64 + 64 - uint64_t(__builtin_clzll(bits[w]));
        }
      holes += top - set;
    }
    return holes;
  }

 private:
  std::mutex mu_;
  uint32_t endpoints_;
  std::vector<std::vector<uint64_t>> seen_;
  std::vector<uint64_t> last_;
  uint64_t delivered_ = 0, duplicates_ = 0, out_of_order_ = 0, foreign_ = 0;
};

// Measurement time in which the sources of `spec` generate `packets`, from
// a short run of the same spec (Bernoulli sources at a fixed load: the rate
// is steady), with 2% to spare. The short run counts at least 40,000
// packets, so that its rate is within 0.5% (one standard deviation) and
// the 2% covers it: 20 us of a small fabric sees a few thousand.
double measure_ns_for(Spec spec, uint64_t packets) {
  constexpr uint64_t kCalibrationPackets = 40000;
  spec.link.ber = 0;
  double ns = 20000;
  for (;;) {
    spec.run.measure_ns = ns;
    const RunResult r = run_collect(spec, nullptr);
    EXPECT_TRUE(r.stats.error.empty()) << r.stats.error;
    const uint64_t got = std::max<uint64_t>(1, r.stats.injected_packets);
    if (got >= kCalibrationPackets || ns > 1e9) return std::ceil(1.02 * double(packets) * ns / got);
    ns = std::ceil(ns * 1.1 * double(kCalibrationPackets) / double(got));
  }
}

void soak(const char* file, std::vector<std::string> sets, bool in_order,
          uint64_t packets_wanted = 10'000'000) {
  constexpr double kBer = 1e-4;
  const uint64_t want = soak_packets(packets_wanted);
  sets.insert(sets.end(), {"link.retry=true", "link.ber=1e-4", "run.workers=1", "run.warmup_ns=0",
                           "run.progress_s=0"});
  Spec spec = spec_of(file, sets);
  spec.run.measure_ns = measure_ns_for(spec, want);
  DeliveryLedger ledger(static_cast<uint32_t>(build_spec_fabric(spec).endpoints.size()));
  CodecKind codec{};
  const auto start = std::chrono::steady_clock::now();
  const RunResult r = run_emulation(spec, [&ledger, &codec](EngineConfig& c) {
    codec = static_cast<CodecKind>(c.codec);
    c.progress = nullptr;
    c.check_deliveries = true;
    c.on_deliver = [&ledger](uint64_t id, uint32_t s, uint32_t d, ps_t, uint32_t) {
      ledger.add(id, s, d);
    };
  });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // A figure for the log (scripts/soak.sh), never asserted.
  std::printf("soak %s: %llu packets, %.0f us emulated, %.1f s on one worker\n", file,
              static_cast<unsigned long long>(r.stats.injected_packets), spec.run.measure_ns / 1000,
              seconds);
  ::testing::Test::RecordProperty("packets", std::to_string(r.stats.injected_packets));
  ::testing::Test::RecordProperty("seconds", std::to_string(seconds));

  ASSERT_TRUE(r.stats.error.empty()) << r.stats.error;  // a damaged delivery fails the run
  ASSERT_TRUE(r.stats.drained);
  EXPECT_GE(r.stats.injected_packets, want);
  EXPECT_EQ(ledger.foreign(), 0u);
  EXPECT_EQ(ledger.duplicates(), 0u);
  EXPECT_EQ(ledger.holes(), 0u);
  EXPECT_EQ(ledger.delivered(), r.stats.injected_packets);
  EXPECT_EQ(r.stats.delivered_packets, r.stats.injected_packets);
  if (in_order) {
    EXPECT_EQ(ledger.out_of_order(), 0u);
  }

  LinkRetryCounters t;
  uint64_t packets = 0, units = 0;
  for (const LinkStats& l : r.stats.links) {
    t.merge(l.retry);
    if (l.router >= 0 && l.peer_router >= 0) packets += l.packets, units += l.units;
  }
  // Each bit under the CRC is damaged with probability kBer, whatever came
  // before it: bit_errors - kBer x checked_bits is a martingale over the
  // transmissions, of variance checked_bits kBer (1 - kBer). Five standard
  // deviations: a false alarm once in 1.7 million soaks.
  const double bits = double(t.checked_bits);
  EXPECT_NEAR(double(t.bit_errors), kBer * bits, 5 * std::sqrt(bits * kBer * (1 - kBer)));
  // Every packet is the same length (one size, no replies), L bits under the
  // CRC, so each checked transmission is damaged with q = 1 - (1 - BER)^L
  // and there were checked_bits / L of them. The first damaged one puts the
  // sender into recovery (what it sends until the time-out is not checked),
  // so each damaged transmission is one CRC error, one time-out and one go
  // back of the window: their count is q x transmissions within 5 sigma.
  ASSERT_GT(packets, 0u);
  ASSERT_EQ(units % packets, 0u) << "packets of one length";
  const double len = double(packet_checked_bits(codec, uint32_t(units / packets)));
  const double sent = bits / len;
  const double q = 1 - std::pow(1 - kBer, len);
  EXPECT_NEAR(double(t.crc_errors), q * sent, 5 * std::sqrt(sent * q * (1 - q)));
  EXPECT_EQ(t.timeouts, t.crc_errors) << "a damaged packet went undetected";
  EXPECT_EQ(t.excised + t.bad_forwarded, t.crc_errors);
  EXPECT_EQ(r.stats.transmit_error_discards, t.bad_forwarded);
  EXPECT_GE(t.retries, t.timeouts);
  EXPECT_GT(t.retries, 0u);
  std::printf(
      "  %llu bits checked, %llu bit errors, %llu CRC errors (expected %.0f), %llu "
      "packets resent\n",
      static_cast<unsigned long long>(t.checked_bits),
      static_cast<unsigned long long>(t.bit_errors), static_cast<unsigned long long>(t.crc_errors),
      q * sent, static_cast<unsigned long long>(t.retries));
}

TEST(Soak, TorusAtBer1e4EveryPacketOnceIntactInOrder) { soak("t3e-4x4x4.yaml", {}, true); }

TEST(Soak, ClosAtBer1e4EveryPacketOnceIntact) {
  // Requests only, one size: every packet the same length on the wire.
  soak("yarc-r2-1024.yaml", {"traffic.reply_fraction=0"}, false);
}

TEST(Soak, SpiderAtBer1e4EveryMessageOnceIntactInOrder) {
  // The profile's messages of 64 bytes (a header and four data
  // micropackets, one length), requests only; congestion-control bit 0
  // off, so each (source, destination) keeps one path and one VC. 10^6
  // messages, the million: about 2 s on one core.
  soak("spider-fhc-64.yaml", {"traffic.load=0.3", "traffic.cc_adapt=0", "traffic.sizes=[64]"}, true,
       1'000'000);
}

}  // namespace
}  // namespace fabemu
