// Matrix arbiter (Dally & Towles, "Principles and Practices of
// Interconnection Networks", section 18.5; the BlackWidow paper's [9], with
// which YARC breaks ties between the output columns an adaptive packet may
// take, ISCA 2006 section 5.1): a triangle of priority bits, one per pair of
// requesters, says which of the two goes first. The winner is the requester
// no other requester has priority over; it then drops below every other
// (its row cleared, its column set), so the least recently granted
// requester wins: strong fairness, where a round robin is only fair to
// requesters that keep requesting.
//
// The state of one arbiter over n <= 64 requesters is n words, word i the
// set of requesters that have priority over i; the caller keeps the words
// (flat arrays of many arbiters, as the router keeps its other state).
// Header-only, no allocation.
#pragma once
#include <cstdint>

namespace fabemu {

struct MatrixArbiter {
  static constexpr uint32_t kMaxRequesters = 64;

  // Words for one arbiter over n requesters.
  static constexpr uint32_t words(uint32_t n) { return n; }
  static constexpr uint64_t all(uint32_t n) {
    return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  }

  // The starting order: the lower index first.
  static void init(uint64_t* beaten_by, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) beaten_by[i] = all(i);
  }

  // The requester in `req` (a bit set over 0..n-1) that no other requester
  // in it has priority over, or -1 when req is empty. The priorities are a
  // total order, so exactly one such requester exists.
  static int32_t pick(const uint64_t* beaten_by, uint64_t req) {
    for (uint64_t r = req; r; r &= r - 1) {
      const uint32_t i = static_cast<uint32_t>(__builtin_ctzll(r));
      if ((beaten_by[i] & req) == 0) return static_cast<int32_t>(i);
    }
    return -1;
  }

  // Requester i was granted: every other requester now has priority over it.
  static void grant(uint64_t* beaten_by, uint32_t n, uint32_t i) {
    const uint64_t bit = uint64_t{1} << i;
    for (uint32_t j = 0; j < n; j++) beaten_by[j] &= ~bit;
    beaten_by[i] = all(n) & ~bit;
  }
};

}  // namespace fabemu
