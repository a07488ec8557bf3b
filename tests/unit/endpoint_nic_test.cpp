// The endpoint's network interface (dataplane/endpoint/nic.h): reassembly of
// multi-packet messages and the source-queue ring.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "dataplane/endpoint/nic.h"

namespace fabemu {
namespace {

using Result = MessageReassembly::Result;

PacketMeta segment(uint32_t src, uint32_t msg_seq, uint16_t seg, uint16_t nseg) {
  PacketMeta pm{};
  pm.src = src;
  pm.msg_seq = msg_seq;
  pm.seg = seg;
  pm.nseg = nseg;
  return pm;
}

TEST(MessageReassembly, SingleSegmentMessagesCompleteAtOnce) {
  MessageReassembly r;
  r.init(4);
  for (uint32_t i = 0; i < 100; i++) {
    EXPECT_EQ(r.add(segment(i, i, 0, 1)), Result::complete);
    EXPECT_EQ(r.add(segment(i, i, 0, 0)), Result::complete);
  }
  // They took no room: a table of 4 still takes 3 open messages.
  for (uint32_t i = 0; i < 3; i++) EXPECT_EQ(r.add(segment(7, i, 0, 2)), Result::partial);
}

TEST(MessageReassembly, CompleteAfterNsegSegmentsInAnyOrder) {
  MessageReassembly r;
  r.init(16);
  // Two messages from one source and one from another, interleaved, the
  // segments out of order.
  EXPECT_EQ(r.add(segment(1, 5, 2, 3)), Result::partial);
  EXPECT_EQ(r.add(segment(1, 6, 1, 2)), Result::partial);
  EXPECT_EQ(r.add(segment(2, 5, 3, 4)), Result::partial);
  EXPECT_EQ(r.add(segment(1, 5, 0, 3)), Result::partial);
  EXPECT_EQ(r.add(segment(2, 5, 0, 4)), Result::partial);
  EXPECT_EQ(r.add(segment(1, 6, 0, 2)), Result::complete);
  EXPECT_EQ(r.add(segment(1, 5, 1, 3)), Result::complete);
  EXPECT_EQ(r.add(segment(2, 5, 1, 4)), Result::partial);
  EXPECT_EQ(r.add(segment(2, 5, 2, 4)), Result::complete);
  // A completed key starts over.
  EXPECT_EQ(r.add(segment(1, 5, 0, 2)), Result::partial);
  EXPECT_EQ(r.add(segment(1, 5, 1, 2)), Result::complete);
}

// A whole message gives when its first packet to arrive was injected (its
// network latency starts there), through the table's reshuffles on erase.
TEST(MessageReassembly, CompleteGivesTheFirstArrivalsInjectionTime) {
  MessageReassembly r;
  r.init(4);
  const auto at = [](PacketMeta pm, ps_t inj) {
    pm.inj_ps = inj;
    return pm;
  };
  ps_t first = 0;
  EXPECT_EQ(r.add(at(segment(1, 0, 0, 1), 70), &first), Result::complete);
  EXPECT_EQ(first, 70);
  for (uint32_t m = 0; m < 3; m++)
    EXPECT_EQ(r.add(at(segment(m, m, 1, 2), 100 + m), &first), Result::partial);
  EXPECT_EQ(r.add(at(segment(0, 0, 0, 2), 500), &first), Result::complete);
  EXPECT_EQ(first, 100);
  for (uint32_t m = 2; m >= 1; m--) {  // the rest, after entries moved up
    EXPECT_EQ(r.add(at(segment(m, m, 0, 2), 900), &first), Result::complete);
    EXPECT_EQ(first, 100 + m);
  }
}

TEST(MessageReassembly, OverflowWhenThreeQuartersFull) {
  MessageReassembly r;
  r.init(8);
  for (uint32_t i = 0; i < 6; i++) ASSERT_EQ(r.add(segment(3, i, 0, 2)), Result::partial) << i;
  EXPECT_EQ(r.add(segment(3, 6, 0, 2)), Result::overflow);
  EXPECT_EQ(r.add(segment(4, 0, 0, 2)), Result::overflow);
  // Open messages still progress when the table is at its limit.
  EXPECT_EQ(r.add(segment(3, 2, 1, 2)), Result::complete);
  // Their slot is free again: one more fits, then no more.
  EXPECT_EQ(r.add(segment(3, 6, 0, 2)), Result::partial);
  EXPECT_EQ(r.add(segment(3, 7, 0, 2)), Result::overflow);
  for (uint32_t i : {0u, 1u, 3u, 4u, 5u, 6u})
    EXPECT_EQ(r.add(segment(3, i, 1, 2)), Result::complete) << i;
}

// Random traffic against a map: deletions (backward shift) never lose a key
// still open, in a small table where probe chains wrap and collide.
TEST(MessageReassembly, DeletionKeepsOtherKeysFindable) {
  for (uint32_t slots : {8u, 16u, 64u}) {
    std::mt19937_64 rng(slots);
    MessageReassembly r;
    r.init(slots);
    std::map<std::pair<uint32_t, uint32_t>, std::pair<uint16_t, uint16_t>> open;  // got, nseg
    const uint32_t limit = slots * 3 / 4;
    int completes = 0, overflows = 0;
    for (int step = 0; step < 50000; step++) {
      const uint32_t src = static_cast<uint32_t>(rng() % 5);
      const uint32_t seq = static_cast<uint32_t>(rng() % 12);
      const auto key = std::make_pair(src, seq);
      auto it = open.find(key);
      const uint16_t nseg = it != open.end() ? it->second.second : static_cast<uint16_t>(2 + rng() % 4);
      const Result got = r.add(segment(src, seq, 0, nseg));
      Result expect;
      if (it == open.end()) {
        if (open.size() >= limit) {
          expect = Result::overflow;
        } else {
          open[key] = {1, nseg};
          expect = Result::partial;
        }
      } else if (++it->second.first == nseg) {
        open.erase(it);
        expect = Result::complete;
      } else {
        expect = Result::partial;
      }
      ASSERT_EQ(static_cast<int>(got), static_cast<int>(expect))
          << "slots " << slots << " step " << step << " key " << src << "," << seq;
      completes += expect == Result::complete;
      overflows += expect == Result::overflow;
    }
    EXPECT_GT(completes, 1000);
    EXPECT_GT(overflows, 0);
  }
}

TEST(SourceQueue, SizeIsThePowerOfTwoAtOrAboveTheBound) {
  SourceQueue q;
  q.init(5);
  EXPECT_EQ(q.ring.size(), 8u);
  EXPECT_EQ(q.mask(), 7u);
  q.init(8);
  EXPECT_EQ(q.ring.size(), 8u);
  q.init(1);
  EXPECT_EQ(q.ring.size(), 1u);
  q.init(1000);
  EXPECT_EQ(q.ring.size(), 1024u);
  EXPECT_EQ(q.len, 0u);
}

TEST(SourceQueue, RingKeepsFifoOrderAcrossWraps) {
  auto fake = [](uintptr_t i) { return reinterpret_cast<rte_mbuf*>(0x2000 + 64 * i); };
  SourceQueue q;
  q.init(6);  // 8 slots
  std::deque<rte_mbuf*> ref;
  std::mt19937_64 rng(11);
  uintptr_t id = 0;
  bool filled = false;
  for (int step = 0; step < 5000; step++) {
    if (ref.size() < q.ring.size() && (ref.empty() || rng() % 2)) {
      q.push(fake(++id));
      ref.push_back(fake(id));
      filled |= ref.size() == q.ring.size();
    } else {
      ASSERT_EQ(q.front(), ref.front()) << step;
      q.pop();
      ref.pop_front();
    }
    ASSERT_EQ(q.len, ref.size());
    ASSERT_LT(q.head, q.ring.size());
    for (uint32_t i = 0; i < ref.size(); i++) ASSERT_EQ(q.at(i), ref[i]) << step << " " << i;
  }
  EXPECT_TRUE(filled);
  // Built packets only: a synthetic one is built when injected.
  std::vector<rte_mbuf*> built;
  if (ref.size() == q.ring.size()) {
    q.pop();
    ref.pop_front();
  }
  q.push(nullptr);
  q.for_each_built([&](rte_mbuf* m) { built.push_back(m); });
  EXPECT_EQ(built, std::vector<rte_mbuf*>(ref.begin(), ref.end()));
  // Re-initialising empties it.
  q.init(6);
  EXPECT_EQ(q.len, 0u);
  EXPECT_EQ(q.head, 0u);
}

// The credit check's copy of the head packet's VC, length and stall mark
// belongs to that packet: the next head is read afresh.
TEST(SourceQueue, WhatIsKnownOfTheHeadLeavesWithIt) {
  SourceQueue q;
  q.init(4);
  q.push(reinterpret_cast<rte_mbuf*>(0x40)).units = 19;
  q.push(nullptr).units = 7;  // its metadata is its slot's until it is built
  q.head_units = 19;
  q.head_vc = 1;
  q.head_state = SourceQueue::kHeadKnown | SourceQueue::kHeadStalled;
  q.pop();
  EXPECT_EQ(q.head_state, 0) << "the new head is not known, nor counted as stalled";
  EXPECT_EQ(q.front(), nullptr);
  EXPECT_EQ(q.front_meta().units, 7);
  q.head_state = SourceQueue::kHeadKnown;
  q.init(4);
  EXPECT_EQ(q.head_state, 0);
}

TEST(Nic, QueuedLooksAtBothSourceQueues) {
  Nic n;
  n.srcq[0].init(4);
  n.srcq[1].init(4);
  EXPECT_FALSE(n.queued());
  n.srcq[1].push(reinterpret_cast<rte_mbuf*>(0x40));
  EXPECT_TRUE(n.queued());
  n.srcq[1].pop();
  EXPECT_FALSE(n.queued());
  n.srcq[0].push(reinterpret_cast<rte_mbuf*>(0x80));
  EXPECT_TRUE(n.queued());
}

}  // namespace
}  // namespace fabemu
