// Lanes of router links (dataplane/link/lanes.h): bits striped over the
// live lanes, a link's unit time at its width, per-lane retry counts
// against a threshold within a window, a noisy lane's bit errors.
#include <gtest/gtest.h>

#include <vector>

#include "dataplane/link/lanes.h"

namespace fabemu {
namespace {

TEST(Lanes, BitsAreStripedOneAtATimeOverTheLiveLanes) {
  LinkLanes l;
  l.lanes = 3;
  const uint32_t bit[] = {0, 1, 2, 3};
  EXPECT_EQ(l.lanes_of(&bit[0], 1), 0b001u);
  EXPECT_EQ(l.lanes_of(&bit[1], 1), 0b010u);
  EXPECT_EQ(l.lanes_of(&bit[2], 1), 0b100u);
  EXPECT_EQ(l.lanes_of(&bit[3], 1), 0b001u);
  EXPECT_EQ(l.lanes_of(bit, 4), 0b111u);
  l.dropped = 0b001;  // lane 0 out: the bits alternate over lanes 1 and 2
  EXPECT_EQ(l.width(), 2u);
  EXPECT_EQ(l.lanes_of(&bit[0], 1), 0b010u);
  EXPECT_EQ(l.lanes_of(&bit[1], 1), 0b100u);
  EXPECT_EQ(l.lanes_of(&bit[2], 1), 0b010u);
  l.fault_down = 0b110;
  EXPECT_EQ(l.width(), 0u);
  EXPECT_FALSE(l.all_faulted()) << "lane 0 went for its retries, not a fault";
}

TEST(Lanes, AUnitTakesTheFullWidthsTimeTimesLanesOverLiveLanes) {
  // YARC: 24-bit phits on 3 lanes of 6.25 Gb/s (16b20b) take 1600 ps.
  EXPECT_EQ(unit_at_width(1600, 3, 3), 1600u);
  EXPECT_EQ(unit_at_width(1600, 3, 2), 2400u);
  EXPECT_EQ(unit_at_width(1600, 3, 1), 4800u);
  // T3E: a 70-bit flit on 14 signal lanes takes 13333 ps.
  EXPECT_EQ(unit_at_width(13333, 14, 14), 13333u);
  EXPECT_EQ(unit_at_width(13333, 14, 13), 14359u);  // 13333 x 14 / 13, rounded
  EXPECT_EQ(unit_at_width(13333, 14, 1), 14u * 13333u);
}

TEST(Lanes, ALaneIsDroppedAtTheRetryPastItsThresholdWithinItsWindow) {
  LaneTable t;
  t.init(1, 3);
  t.link(0).lanes = 3;
  const uint64_t lane1 = 0b010, lane0 = 0b001;
  EXPECT_EQ(t.note_retry(0, lane1, 0, 2, 100), 0u);
  EXPECT_EQ(t.note_retry(0, lane1, 50, 2, 100), 0u);
  EXPECT_EQ(t.note_retry(0, lane1, 99, 2, 100), lane1) << "the third within 100 ps of the first";
  EXPECT_EQ(t.note_retry(0, lane1, 110, 2, 100), 0u) << "its count starts again";
  EXPECT_EQ(t.note_retry(0, lane1, 120, 2, 100), 0u);
  EXPECT_EQ(t.note_retry(0, lane1, 210, 2, 100), 0u) << "a new window opens at 210";
  EXPECT_EQ(t.note_retry(0, lane1 | lane0, 220, 2, 100), 0u);
  EXPECT_EQ(t.note_retry(0, lane1 | lane0, 230, 2, 100), lane1) << "lane 0 has had two";
  t.link(0).dropped = lane0;
  for (ps_t at = 240; at < 300; at += 10)
    EXPECT_EQ(t.note_retry(0, lane0, at, 2, 100), 0u) << "a dropped lane counts nothing";
}

TEST(Lanes, ANoisyLaneDamagesOnlyTheBitsItCarries) {
  LaneTable t;
  t.init(1, 3);
  t.link(0).lanes = 3;
  EXPECT_TRUE(t.set_noise(0, 1, 1.0, 1, 1));  // every bit lane 1 carries is bad
  uint32_t pos[16];
  ASSERT_EQ(t.add_noise(0, 12, pos, 0, 16), 4u);
  EXPECT_EQ(std::vector<uint32_t>(pos, pos + 4), (std::vector<uint32_t>{1, 4, 7, 10}));
  // Merged in order with the link's own errors; a bit bad twice is one error.
  pos[0] = 4;
  pos[1] = 5;
  ASSERT_EQ(t.add_noise(0, 12, pos, 2, 16), 5u);
  EXPECT_EQ(std::vector<uint32_t>(pos, pos + 5), (std::vector<uint32_t>{1, 4, 5, 7, 10}));
  // Lane 0 out: lane 1 carries every other bit.
  t.link(0).dropped = 0b001;
  ASSERT_EQ(t.add_noise(0, 12, pos, 0, 16), 6u);
  EXPECT_EQ(std::vector<uint32_t>(pos, pos + 6), (std::vector<uint32_t>{0, 2, 4, 6, 8, 10}));
  // Lane 1 out: its noise crosses nothing.
  t.link(0).dropped = 0b010;
  EXPECT_EQ(t.add_noise(0, 12, pos, 0, 16), 0u);
  // At most `max` kept, the first ones.
  t.link(0).dropped = 0;
  ASSERT_EQ(t.add_noise(0, 300, pos, 0, 16), 16u);
  EXPECT_EQ(pos[15], 1u + 15u * 3u);
  EXPECT_FALSE(t.set_noise(0, 1, 0, 1, 1)) << "quiet again";
}

}  // namespace
}  // namespace fabemu
