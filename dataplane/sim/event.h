// An event of the kernel: a time, a kind and a few words of payload. The
// kernel orders events by (time, insertion order) and knows nothing of what
// the kinds mean; the engine's dispatch gives them meaning.
#pragma once
#include <cstdint>

#include "dataplane/sim/time.h"

struct rte_mbuf;

namespace fabemu {

enum class EventType : uint8_t {
  out_wake,  // look at a router output again: link free, credits or a requester ready (a = output)
  route,     // an adaptively routed head reaches its input: route it with the state of now (a =
             // channel)
  ep_generate,     // an endpoint's traffic source produces its next message (a = endpoint)
  ep_wake,         // an endpoint's injection link may send again (a = endpoint)
  ep_deliver,      // the tail of a packet reaches its destination endpoint (a = endpoint, m)
  credit,          // credits reach an output (a = output, vc, amount, unit_ps); only when the
                   // output's stream queue was full, or from another core
  remote_arrive,   // cross-core: a packet's head reaches input channel a (global index), m
  mac_learn,       // another core learned MAC unit_ps behind endpoint a (real time)
  port_replay,     // a replayed host sends its next frame (a = port binding)
  link_wake,       // switch speedup: an output link looks at its output queues again (a = output)
  link_timeout,    // link-level retry: the sender of output a goes back N
                   // (dataplane/link/go_back_n.h)
  progress_check,  // the forward-progress timers of a worker's outputs (engine_progress.h)
  tile,            // inside a tiled router: a row bus, column channel or buffer's credits (port =
                   // what, a = which; router/yarc_tiled.h)
  link_control,    // a link's sender to its far end (a = the far input; port = what: a new unit
                   // time, down, up, skip a sequence number; engine/engine_lanes.h), in order
                   // with the link's packets
};

struct Event {
  ps_t t;
  union {
    rte_mbuf* m;   // packet events
    ps_t unit_ps;  // credit events: time between the streamed credits
  };
  uint32_t a;       // output, channel or endpoint index (see EventType)
  uint32_t seq;     // insertion order (ties at equal t)
  uint16_t port;
  uint16_t amount;  // credits, in flow units; remote_arrive: the link sequence number (retry)
  EventType type;
  uint8_t vc;
  uint8_t window;  // cross-core events: parity of the sender's window
  uint8_t pad;
};
static_assert(sizeof(Event) == 32, "events are two per cache line");

// An event of a kind at t about index a, the rest zero.
inline Event event_at(ps_t t, EventType type, uint32_t a) {
  Event e{};
  e.t = t;
  e.type = type;
  e.a = a;
  return e;
}

}  // namespace fabemu
