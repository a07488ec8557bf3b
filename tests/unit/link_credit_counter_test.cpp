// Credits of one (output, VC) (dataplane/link/credit_counter.h): credits in
// hand plus up to kStreams streams, each n units, the k-th at start + (k-1) x
// unit; streams beyond that are deferred and come back through add_resumed.
#include "dataplane/link/credit_counter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <vector>

namespace fabemu {
namespace {

TEST(CreditCounter, InitialCredits) {
  CreditCounter c(8);
  EXPECT_EQ(c.held(), 8u);
  EXPECT_EQ(c.held_at(0), 8u);
  EXPECT_EQ(c.pending_streams(), 0u);
  ps_t when = kNever;
  EXPECT_TRUE(c.available(8, 0, &when));
  EXPECT_TRUE(c.available(1, 0, &when));
  EXPECT_FALSE(c.available(9, 1000, &when));
  EXPECT_EQ(when, kNever);  // no stream can provide them: left alone
  c.take(3);
  EXPECT_EQ(c.held(), 5u);
  EXPECT_TRUE(c.available(5, 0, &when));
  EXPECT_FALSE(c.available(6, 0, &when));
  c.add(2);
  EXPECT_EQ(c.held(), 7u);
  EXPECT_TRUE(c.available(7, 0, &when));

  CreditCounter none;
  EXPECT_EQ(none.held(), 0u);
  EXPECT_FALSE(none.available(1, 0, &when));
  EXPECT_TRUE(none.available(0, 0, &when));
}

TEST(CreditCounter, KthCreditOfAStreamArrivesAtStartPlusKMinusOneUnits) {
  const ps_t start = 1000, unit = 100;
  CreditCounter c(0);
  ASSERT_TRUE(c.add_stream(4, start, unit));
  EXPECT_EQ(c.held(), 4u);
  EXPECT_EQ(c.pending_streams(), 1u);
  for (uint32_t k = 1; k <= 4; k++) {
    const ps_t tk = start + (k - 1) * unit;
    ps_t when = kNever;
    EXPECT_FALSE(c.available(k, tk - 1, &when)) << k;
    EXPECT_EQ(when, tk) << k;
    EXPECT_TRUE(c.available(k, tk, &when)) << k;
    EXPECT_TRUE(c.available(k, tk + 1, &when)) << k;
    // *when is only lowered.
    when = tk - 5;
    EXPECT_FALSE(c.available(k, tk - 1, &when));
    EXPECT_EQ(when, tk - 5) << k;
  }
  ps_t when = kNever;
  EXPECT_FALSE(c.available(5, 1'000'000, &when));
  EXPECT_EQ(when, kNever);
}

TEST(CreditCounter, StreamsCountAfterCreditsInHand) {
  CreditCounter c(2);
  ASSERT_TRUE(c.add_stream(3, 1000, 100));
  ASSERT_TRUE(c.add_stream(2, 5000, 10));
  EXPECT_EQ(c.held(), 7u);
  ps_t when = kNever;
  EXPECT_TRUE(c.available(2, 0, &when));
  EXPECT_FALSE(c.available(3, 999, &when));
  EXPECT_EQ(when, 1000u);
  when = kNever;
  EXPECT_FALSE(c.available(4, 1099, &when));
  EXPECT_EQ(when, 1100u);
  EXPECT_TRUE(c.available(5, 1200, &when));
  // The 6th credit is the second stream's first.
  when = kNever;
  EXPECT_FALSE(c.available(6, 4999, &when));
  EXPECT_EQ(when, 5000u);
  when = kNever;
  EXPECT_FALSE(c.available(7, 5000, &when));
  EXPECT_EQ(when, 5010u);
  EXPECT_TRUE(c.available(7, 5010, &when));
  // held_at counts the streams begun by now, whole.
  EXPECT_EQ(c.held_at(999), 2u);
  EXPECT_EQ(c.held_at(1000), 5u);
  EXPECT_EQ(c.held_at(4999), 5u);
  EXPECT_EQ(c.held_at(5000), 7u);
}

TEST(CreditCounter, TakeAcrossCreditsInHandAndSeveralStreams) {
  CreditCounter c(2);
  ASSERT_TRUE(c.add_stream(3, 1000, 100));  // 1000, 1100, 1200
  ASSERT_TRUE(c.add_stream(2, 2000, 50));   // 2000, 2050
  ASSERT_TRUE(c.add_stream(4, 3000, 10));   // 3000 .. 3030
  ps_t when = kNever;
  ASSERT_TRUE(c.available(4, 1100, &when));
  c.take(4);  // both in hand, then the first two of stream 1
  EXPECT_EQ(c.held(), 7u);
  EXPECT_EQ(c.pending_streams(), 3u);
  when = kNever;
  EXPECT_FALSE(c.available(1, 1199, &when));
  EXPECT_EQ(when, 1200u);
  ASSERT_TRUE(c.available(3, 2050, &when));
  c.take(3);  // the rest of stream 1 and all of stream 2
  EXPECT_EQ(c.held(), 4u);
  EXPECT_EQ(c.pending_streams(), 1u);
  when = kNever;
  EXPECT_FALSE(c.available(1, 2999, &when));
  EXPECT_EQ(when, 3000u);
  ASSERT_TRUE(c.available(2, 3010, &when));
  c.take(2);
  EXPECT_FALSE(c.available(3, kNever - 1, &when));  // only 2 left
  when = kNever;
  EXPECT_FALSE(c.available(2, 3029, &when));
  EXPECT_EQ(when, 3030u);
  EXPECT_TRUE(c.available(2, 3030, &when));
  c.take(2);
  EXPECT_EQ(c.held(), 0u);
  EXPECT_EQ(c.pending_streams(), 0u);
  EXPECT_FALSE(c.available(1, kNever - 1, &when));
}

TEST(CreditCounter, SettleMovesStreamsWhoseLastCreditArrived) {
  CreditCounter c(1);
  ASSERT_TRUE(c.add_stream(3, 1000, 100));  // last at 1200
  ASSERT_TRUE(c.add_stream(2, 2000, 100));  // last at 2100
  c.settle(1199);
  EXPECT_EQ(c.pending_streams(), 2u);
  c.settle(1200);
  EXPECT_EQ(c.pending_streams(), 1u);
  EXPECT_EQ(c.held(), 6u);
  ps_t when = kNever;
  EXPECT_TRUE(c.available(4, 0, &when));  // settled: in hand at any time
  EXPECT_FALSE(c.available(5, 1999, &when));
  EXPECT_EQ(when, 2000u);
  c.settle(5000);
  EXPECT_EQ(c.pending_streams(), 0u);
  EXPECT_TRUE(c.available(6, 0, &when));
  EXPECT_EQ(c.held(), 6u);
}

TEST(CreditCounter, AtMostKStreamsThenDeferredUntilResumed) {
  CreditCounter c(0);
  ps_t t = 1000;
  for (uint32_t i = 0; i < CreditCounter::kStreams; i++, t += 1000)
    ASSERT_TRUE(c.add_stream(2, t, 100)) << i;
  EXPECT_EQ(c.pending_streams(), CreditCounter::kStreams);
  const uint32_t held = c.held();
  EXPECT_EQ(held, 2 * CreditCounter::kStreams);
  // Full: refused, and nothing counted.
  const ps_t first5 = t, first6 = t + 1000;
  EXPECT_FALSE(c.add_stream(3, first5, 100));
  EXPECT_EQ(c.held(), held);
  EXPECT_EQ(c.pending_streams(), CreditCounter::kStreams);
  // Room again once the old streams have arrived, but a stream is deferred:
  // later streams are refused too, so they stay in time order.
  c.settle(first5 - 1);
  EXPECT_EQ(c.pending_streams(), 0u);
  EXPECT_FALSE(c.add_stream(1, first6, 100));
  EXPECT_EQ(c.held(), held);
  // The first deferred stream comes back at its first credit.
  c.add_resumed(3, first5, 100);
  EXPECT_EQ(c.held(), held + 3);
  EXPECT_EQ(c.pending_streams(), 1u);
  EXPECT_FALSE(c.add_stream(1, first6 + 5000, 100));  // still one deferred (the 6th)
  c.add_resumed(1, first6, 100);
  EXPECT_EQ(c.held(), held + 4);
  // The one refused just above is deferred as well.
  EXPECT_FALSE(c.add_stream(1, first6 + 9000, 100));
  c.add_resumed(1, first6 + 5000, 100);
  c.add_resumed(1, first6 + 9000, 100);
  // Nothing deferred any more: accepted again.
  EXPECT_TRUE(c.add_stream(2, first6 + 20000, 100));
  EXPECT_EQ(c.held(), held + 8);
  ps_t when = kNever;
  EXPECT_TRUE(c.available(held + 6, first6 + 9000, &when));
  EXPECT_FALSE(c.available(held + 7, first6 + 9000, &when));
  EXPECT_EQ(when, first6 + 20000);
}

// Real time: a stream taken late starts when it is taken, so streams can
// overlap and a deferred one may come back to a queue that is still full.
// Its credits then follow the last stream, at its pace: counted once (the
// queue is not overwritten: that made credits from nothing and let a sender
// overflow a buffer), and none before the deferred stream's first.
TEST(CreditCounter, AResumedStreamThatFindsTheQueueFullFollowsTheLastOne) {
  CreditCounter c(0);
  for (uint32_t i = 0; i < CreditCounter::kStreams; i++)
    ASSERT_TRUE(c.add_stream(10, 5000 + i * 100, 100)) << i;  // overlapping, ends 5900..6200
  EXPECT_FALSE(c.add_stream(3, 5500, 100));
  c.add_resumed(3, 5500, 100);  // nothing has arrived whole by 5500
  EXPECT_EQ(c.held(), 10 * CreditCounter::kStreams + 3);
  EXPECT_EQ(c.returned(), c.held());
  EXPECT_EQ(c.pending_streams(), CreditCounter::kStreams);
  ps_t when = kNever;
  const uint32_t all = 10 * CreditCounter::kStreams + 3;
  EXPECT_FALSE(c.available(all, 5500, &when));
  EXPECT_GT(when, ps_t(5500));
  EXPECT_EQ(when, ps_t(5000 + 3 * 100 + 12 * 100));  // the last stream's 13th credit
  EXPECT_TRUE(c.available(all, when, &when));
  c.take(all);
  EXPECT_EQ(c.held(), 0u);
  EXPECT_EQ(c.pending_streams(), 0u);
}

// Taking credits from a stream that has begun leaves the rest of it begun:
// what the adaptive selection sees (held_at) drops by what was taken.
TEST(CreditCounter, TakeLowersHeldAtByWhatWasTaken) {
  CreditCounter c(0);
  ASSERT_TRUE(c.add_stream(4, 1000, 100));  // 1000, 1100, 1200, 1300
  EXPECT_EQ(c.held_at(1000), 4u);
  ps_t when = kNever;
  ASSERT_TRUE(c.available(1, 1000, &when));
  c.take(1);
  EXPECT_EQ(c.held(), 3u);
  EXPECT_EQ(c.held_at(1000), 3u) << "the 3 credits still streaming back from a begun stream";
  EXPECT_EQ(c.held_at(1300), 3u);
}

// A downstream FIFO that the sender fills and that frees each packet's
// units as a stream when it grants the packet onwards. Streams start after
// the previous one ends (one packet at a time); refused streams are handed
// back at their first credit. At every step: credits held + units
// downstream (queued or in a deferred stream) = the buffer's capacity, and
// available() (with *when) agrees with a credit-by-credit reference.
struct StreamRef {
  ps_t first, unit;
  uint32_t n;
  ps_t last() const { return first + (n - 1) * unit; }
};

void conservation_run(uint64_t seed, uint32_t capacity, int steps) {
  std::mt19937_64 rng(seed);
  CreditCounter c(capacity);
  std::deque<uint32_t> fifo;         // packets queued downstream (units)
  std::deque<StreamRef> deferred;    // refused streams, in time order
  std::deque<StreamRef> active;      // streams the counter was given, not all arrived by now
  uint64_t arrived_base = capacity;  // initial credits + streams wholly arrived
  uint64_t taken = 0;
  ps_t now = 0, last_end = 0;
  const ps_t unit = 1 + rng() % 50;
  // Reference: credits arrived by t among those the counter knows of, less
  // those taken (meaningful for t >= now only: all taken credits had arrived).
  auto arrived = [&](ps_t t) {
    uint64_t a = arrived_base;
    for (const StreamRef& s : active)
      if (t >= s.first) a += std::min<uint64_t>(s.n, (t - s.first) / s.unit + 1);
    return a - taken;
  };
  auto outstanding = [&] {
    uint64_t u = 0;
    for (uint32_t n : fifo) u += n;
    for (const StreamRef& s : deferred) u += s.n;
    return u;
  };
  int sends = 0, refusals = 0, deferrals = 0;
  for (int step = 0; step < steps; step++) {
    switch (rng() % 4) {
      case 0: {  // time passes; deferred streams come back at their first credit
        now += rng() % (8 * unit);
        while (!deferred.empty() && deferred.front().first <= now) {
          const StreamRef s = deferred.front();
          deferred.pop_front();
          c.add_resumed(s.n, s.first, s.unit);
          active.push_back(s);
        }
        while (!active.empty() && active.front().last() <= now) {
          arrived_base += active.front().n;
          active.pop_front();
        }
        if (rng() % 2) c.settle(now);
        break;
      }
      case 1: {  // the sender sends a packet if the credits are there
        const uint32_t n = 1 + static_cast<uint32_t>(rng() % 8);
        ps_t when = kNever;
        const bool ok = c.available(n, now, &when);
        ASSERT_EQ(ok, arrived(now) >= n) << "seed " << seed << " step " << step;
        if (ok) {
          c.take(n);
          taken += n;
          fifo.push_back(n);
          sends++;
        } else {
          // *when: the (later) time the n-th credit arrives, if a stream the
          // counter knows of brings it.
          ps_t expect = kNever;
          for (const StreamRef& s : active) {
            for (uint32_t k = 0; k < s.n && expect == kNever; k++) {
              const ps_t t = s.first + k * s.unit;
              if (t > now && arrived(t) >= n) expect = t;
            }
            if (expect != kNever) break;
          }
          ASSERT_EQ(when, expect) << "seed " << seed << " step " << step;
          refusals++;
        }
        break;
      }
      default: {  // downstream grants its head packet: a stream, written ahead
        if (fifo.empty()) break;
        const uint32_t n = fifo.front();
        fifo.pop_front();
        const ps_t lead = rng() % (40 * unit);
        const ps_t first = std::max(now + lead, last_end + unit);
        last_end = first + (n - 1) * unit;
        const StreamRef s{first, unit, n};
        if (c.add_stream(n, first, unit)) {
          active.push_back(s);
        } else {
          deferred.push_back(s);
          deferrals++;
        }
        break;
      }
    }
    ASSERT_EQ(c.held() + outstanding(), capacity) << "seed " << seed << " step " << step;
    ASSERT_LE(c.pending_streams(), CreditCounter::kStreams);
    ASSERT_LE(c.held_at(now), c.held());
    ASSERT_GE(c.held_at(now), arrived(now)) << "seed " << seed << " step " << step;
  }
  // The run went through every path.
  EXPECT_GT(sends, 100);
  EXPECT_GT(refusals, 100);
  EXPECT_GT(deferrals, 10);
}

// The link's side of conservation (check_credits): units taken and units
// returned, counted once each whatever path they take (streams that wrap
// past the fourth, deferred and resumed ones, untaken ones, all at once).
TEST(CreditCounter, TakenAndReturnedCountEveryUnitOnce) {
  CreditCounter c(10);
  uint64_t taken = 0, returned = 0;
  uint32_t held = 10;
  ps_t t = 0;
  for (int round = 0; round < 6; round++) {
    ps_t when = kNever;
    ASSERT_TRUE(c.available(held, t, &when)) << round;
    c.take(held);
    taken += held;
    held = 0;
    for (uint32_t k = 0; k < 4; k++) {  // four streams at once, the most kept
      ASSERT_TRUE(c.add_stream(2 + (k & 1), t + 100 + 10 * k, 1)) << round << " " << k;
      returned += 2 + (k & 1);
      held += 2 + (k & 1);
    }
    ASSERT_FALSE(c.add_stream(1, t + 200, 1));  // a fifth waits for room
    c.add_resumed(1, t + 200, 1);                // the four have arrived by then
    returned += 1;
    held += 1;
    EXPECT_EQ(c.pending_streams(), 1u);
    t += 300;
    EXPECT_EQ(c.held(), held);
    EXPECT_EQ(c.taken(), taken);
    EXPECT_EQ(c.returned(), returned);
  }
  c.take(3);
  c.untake(3);  // as if never taken
  c.add(2);     // two more, all at once
  EXPECT_EQ(c.taken(), taken);
  EXPECT_EQ(c.returned(), returned + 2);
  EXPECT_EQ(c.held(), held + 2);
}

TEST(CreditCounter, ConservationAgainstADownstreamFifo) {
  for (uint64_t seed = 1; seed <= 6; seed++) {
    conservation_run(seed, 8 + 8 * static_cast<uint32_t>(seed), 20000);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace fabemu
