// The link's event kinds: what crosses a link's ring channel (a packet to
// another core, credits back, link-control messages; link_channel.h) and
// what its sender times (link-level retry, lanes, the
// forward-progress timer). The engine composes them into the kernel's
// one-byte kind (engine/event_kinds.h); the link gets it from its host
// (LinkRetryHost::kind, link_retry.h).
#pragma once
#include <cstdint>

namespace fabemu {

enum class LinkEvent : uint8_t {
  credit,          // credits reach an output (a = output, vc, amount, unit_ps); only when the
                   // output's stream queue was full, or from another core
  remote_arrive,   // cross-core: a packet's head reaches input channel a, m; amount: its link
                   // sequence number (link-level retry)
  retry_timeout,   // link-level retry: the sender of output a goes back N (link/go_back_n.h)
  control,         // a link's sender to its far end (a = the far input; port = what: a new unit
                   // time, down, up, skip a sequence number; link/lane_control.h), in order
                   // with the link's packets
  progress_check,  // the forward-progress timers of a worker's outputs (link/progress_timer.h)
  recovery_ack,    // cross-core: two-hop recovery's ack of packet unit_ps (its id) reaches
                   // output a; its copy goes (port << 16 | amount) ps later
};

}  // namespace fabemu
