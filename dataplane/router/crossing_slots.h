// A port of the switch that carries up to n packets at a time (input or
// output speedup): n slots, each busy until a time. Shared by the input
// side (InputQueuedRouter) and the output side (OutputQueues).
//
// The slots are kept as a binary min-heap of their busy-until times, so
// the first free one is b[0] and taking it costs log2(n) steps: the
// flattened butterfly paper's router has 63 (a linear scan of them was a
// tenth of a hop's time). Slots are interchangeable, so which of equally
// free ones is taken does not matter. All zeros (all free) is a heap.
#pragma once
#include <cstdint>

#include "dataplane/sim/time.h"

namespace fabemu {

// When the first of the n slots at b is free.
inline ps_t crossing_free_at(const ps_t* b, uint32_t /*n*/) { return b[0]; }

// A packet takes the slot free first, until `until`.
inline void occupy_crossing(ps_t* b, uint32_t n, ps_t until) {
  uint32_t i = 0;
  for (;;) {  // sift `until` down from the root
    uint32_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && b[c + 1] < b[c]) c++;
    if (b[c] >= until) break;
    b[i] = b[c];
    i = c;
  }
  b[i] = until;
}

}  // namespace fabemu
