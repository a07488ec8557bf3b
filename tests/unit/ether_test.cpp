// The learning bridge table and the Ethernet helpers.
#include <gtest/gtest.h>

#include "dataplane/ethernet/ether.h"
#include "dataplane/ethernet/mac_table.h"

namespace fabemu {
namespace {

TEST(MacTable, LearnsMovesAgesAndKeepsPinnedAddresses) {
  MacTable t(64, /*aging_cycles=*/1000);
  EXPECT_EQ(t.lookup(0x020000000001ULL, 0), -1);
  EXPECT_EQ(t.learn(0x020000000001ULL, 3, 10), MacTable::Learn::learned);
  EXPECT_EQ(t.lookup(0x020000000001ULL, 20), 3);
  EXPECT_EQ(t.learn(0x020000000001ULL, 3, 30), MacTable::Learn::refreshed);
  EXPECT_EQ(t.learn(0x020000000001ULL, 5, 40), MacTable::Learn::moved);
  EXPECT_EQ(t.lookup(0x020000000001ULL, 50), 5);
  // Unseen for the aging time: unknown again (frames flood), relearned as new.
  EXPECT_EQ(t.lookup(0x020000000001ULL, 40 + 1000), -1);
  EXPECT_EQ(t.learn(0x020000000001ULL, 7, 2000), MacTable::Learn::learned);
  // Pinned: never moves, never ages.
  t.pin(0x020000000009ULL, 1);
  EXPECT_EQ(t.learn(0x020000000009ULL, 2, 10), MacTable::Learn::pinned_elsewhere);
  EXPECT_EQ(t.lookup(0x020000000009ULL, 1u << 30), 1);
}

TEST(MacTable, FullTableSaysSoAndReusesAgedSlots) {
  MacTable t(16, 100);  // 16 slots, at most 12 live
  int learned = 0;
  for (uint64_t m = 1; m <= 20; m++)
    learned += t.learn(0x020000000000ULL + m, 1, 0) == MacTable::Learn::learned;
  EXPECT_EQ(learned, 12);
  EXPECT_EQ(t.learn(0x020000000100ULL, 1, 50), MacTable::Learn::full);
  // Once the others have aged out, a new address takes a slot.
  EXPECT_EQ(t.learn(0x020000000100ULL, 1, 500), MacTable::Learn::learned);
  EXPECT_EQ(t.lookup(0x020000000100ULL, 501), 1);
}

TEST(Ether, ParsesAndFormatsMacs) {
  uint64_t m = 0;
  ASSERT_TRUE(parse_mac("02:0A:fb:00:00:01", &m));
  EXPECT_EQ(m, 0x020afb000001ULL);
  EXPECT_EQ(format_mac(m), "02:0a:fb:00:00:01");
  EXPECT_FALSE(parse_mac("02:0a:fb:00:00", &m));
  EXPECT_FALSE(parse_mac("02-0a-fb-00-00-01", &m));
  EXPECT_TRUE(mac_is_group(0xffffffffffffULL));
  EXPECT_TRUE(mac_is_group(0x01005e000001ULL));
  EXPECT_FALSE(mac_is_group(0x020000000001ULL));
}

TEST(Ether, FlowHashFollowsTheFlowNotThePacket) {
  // Two IPv4/TCP packets of one flow (different lengths and payloads) hash
  // alike; another source port hashes differently.
  auto tcp = [](uint16_t sport, uint32_t len, uint8_t fill) {
    std::vector<uint8_t> f(len, fill);
    const uint8_t hdr[] = {0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00,
                           0x45, 0,    0,    0,    0, 0, 0x40, 0, 64, 6, 0, 0,
                           10,   77,   0,    1,    10, 77, 0, 2};
    std::copy(std::begin(hdr), std::end(hdr), f.begin());
    f[34] = static_cast<uint8_t>(sport >> 8);
    f[35] = static_cast<uint8_t>(sport);
    f[36] = 0x14;
    f[37] = 0x51;
    return f;
  };
  const auto a = tcp(40000, 200, 0x11), b = tcp(40000, 1514, 0x22), c = tcp(40001, 200, 0x11);
  EXPECT_EQ(flow_hash(a.data(), 200), flow_hash(b.data(), 1514));
  EXPECT_NE(flow_hash(a.data(), 200), flow_hash(c.data(), 200));
  EXPECT_LT(flow_hash(a.data(), 200), 0x8000);
}

}  // namespace
}  // namespace fabemu
