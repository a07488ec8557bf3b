// The separable input-first allocator (Dally & Towles, Principles and
// Practices of Interconnection Networks, 19.3; BookSim2's
// separable_input_first): for one switch cycle, each requesting input
// first picks one of the outputs it requests, the first at or after its
// pointer; then each output picks one of the inputs that picked it, the
// first at or after its pointer. Both pointers move one past the partner
// only for the pairs matched. Unlike iSLIP (islip.h), an input commits to
// one output before knowing whether it wins it, so an output an input
// passed over stays idle that cycle even when the input could have had it.
// One iteration, as BookSim's. At most 64 inputs and outputs.
#pragma once
#include <cstdint>

#include "dataplane/router/arbiter/islip.h"

namespace fabemu {

// req[i]: the outputs input i requests (bit o), for the n inputs and
// outputs; asking: the inputs whose req is not 0, the only ones read and
// written. ptr.accept[i] is input i's pointer over outputs, ptr.grant[o]
// output o's over inputs. Fills match[i] with input i's output or -1 and
// returns the number of pairs matched.
inline uint32_t separable_input_first_match(const uint64_t* req, uint32_t n, uint64_t asking,
                                            IslipPointers& ptr, int8_t* match) {
  uint64_t picked_by[64];  // per output: the inputs that picked it
  uint64_t picked = 0;
  for (uint64_t ib = asking; ib; ib &= ib - 1) {
    const uint32_t i = static_cast<uint32_t>(__builtin_ctzll(ib));
    match[i] = -1;
    const uint32_t o = islip_first_from(req[i], ptr.accept[i]);
    if (!((picked >> o) & 1)) picked_by[o] = 0;
    picked_by[o] |= 1ull << i;
    picked |= 1ull << o;
  }
  uint32_t matched = 0;
  for (uint64_t ob = picked; ob; ob &= ob - 1) {
    const uint32_t o = static_cast<uint32_t>(__builtin_ctzll(ob));
    const uint32_t i = islip_first_from(picked_by[o], ptr.grant[o]);
    match[i] = static_cast<int8_t>(o);
    matched++;
    ptr.grant[o] = static_cast<uint8_t>(i + 1 == n ? 0 : i + 1);
    ptr.accept[i] = static_cast<uint8_t>(o + 1 == n ? 0 : o + 1);
  }
  return matched;
}

}  // namespace fabemu
