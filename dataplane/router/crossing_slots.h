// A port of the switch that carries up to n packets at a time (input or
// output speedup): n slots, each busy until a time. Shared by the input
// side (InputQueuedRouter) and the output side (OutputQueues).
#pragma once
#include <cstdint>

#include "dataplane/sim/time.h"

namespace fabemu {

// When the first of the n slots at b is free.
inline ps_t crossing_free_at(const ps_t* b, uint32_t n) {
  ps_t t = b[0];
  for (uint32_t k = 1; k < n; k++) t = b[k] < t ? b[k] : t;
  return t;
}

// A packet takes the slot free first, until `until`.
inline void occupy_crossing(ps_t* b, uint32_t n, ps_t until) {
  uint32_t best = 0;
  for (uint32_t k = 1; k < n; k++)
    if (b[k] < b[best]) best = k;
  b[best] = until;
}

}  // namespace fabemu
