// Credits of one (output, VC): flow units the downstream input buffer can
// still accept.
//
// Downstream frees a packet's units one at a time as they stream out of its
// buffer, so credits come back as a stream: n units, the first at `start`,
// then one every `unit` ps (the downstream output's unit time). Keeping the
// stream as (start, n, unit) models per-flit credit return exactly with one
// event per packet instead of one per flit: "are there k credits at time t"
// is a multiply and a compare.
#pragma once
#include <cstdint>

#include "dataplane/core/time.h"

namespace fabemu {

struct CreditCounter {
  uint32_t settled = 0;  // credits in hand
  uint32_t n = 0;        // credits of the stream still to come (or come, not yet taken)
  ps_t start = 0;        // when the stream's first credit arrives
  ps_t unit = 0;         // time between the stream's credits

  // Credits held for the conservation check: in hand plus the stream.
  uint32_t held() const { return settled + n; }

  // Are `units` credits available at time `now`? If not, *when is lowered to
  // the time they will be (kNever if only more streams can provide them).
  bool available(uint32_t units, ps_t now, ps_t* when) const {
    if (settled >= units) return true;
    const uint32_t k = units - settled;
    if (n < k) return false;
    const ps_t t = start + (k - 1) * unit;
    if (now >= t) return true;
    if (t < *when) *when = t;
    return false;
  }

  // Takes `units` credits (after available() said yes): first those in hand,
  // then the front of the stream.
  void take(uint32_t units) {
    if (settled >= units) {
      settled -= units;
      return;
    }
    const uint32_t k = units - settled;
    settled = 0;
    start += k * unit;
    n -= k;
  }

  // A new stream begins. Streams from one downstream FIFO never overlap (it
  // reads one packet at a time), so what is left of the previous one has
  // arrived by now and is settled.
  void add_stream(uint32_t units, ps_t first, ps_t every) {
    settled += n;
    n = units;
    start = first;
    unit = every;
  }

  // Credits that arrive all at once (endpoint sinks, tests).
  void add(uint32_t units) { settled += units; }
};

}  // namespace fabemu
