// An event of the kernel: a time, a kind and a few words of payload. The
// kernel orders events by (time, insertion order) and knows nothing of
// kinds: each component declares its own, and the wiring composes them into
// this one byte and dispatches on it (engine/event_kinds.h).
#pragma once
#include <cstdint>

#include "dataplane/sim/time.h"

struct rte_mbuf;

namespace fabemu {

using EventKind = uint8_t;

struct Event {
  ps_t t;
  union {
    rte_mbuf* m;   // packet events
    ps_t unit_ps;  // credit events: time between the streamed credits
  };
  uint32_t a;       // output, channel or endpoint index (see the component's kinds)
  uint32_t seq;     // insertion order (ties at equal t)
  uint16_t port;
  uint16_t amount;  // credits, in flow units, or a sequence number (as the kind says)
  EventKind kind;
  uint8_t vc;
  uint8_t window;  // cross-core events: parity of the sender's window
  uint8_t pad;
};
static_assert(sizeof(Event) == 32, "events are two per cache line");

// An event of a kind at t about index a, the rest zero.
inline Event event_at(ps_t t, EventKind kind, uint32_t a) {
  Event e{};
  e.t = t;
  e.kind = kind;
  e.a = a;
  return e;
}

}  // namespace fabemu
