// The low-latency 3D mesh's router (router.model mesh3d), after the
// petaflops 3D-mesh proposal's "Router Chip Architecture" (Figures 13-16):
// the input-queued virtual cut-through router (input_queued.h) with two
// ways through the chip.
// - Straight through: a packet that continues in its direction, arriving
//   at an empty input FIFO and finding its output idle (no packet waiting
//   for it, the link free when it is through, the downstream buffer with
//   room for all of it), cuts through the 2x2 switch of Figure 14 at once:
//   router.straight_ns. This is "a one-cycle decision as to whether an
//   incoming message can be cut through to the output link right away",
//   made on "the first address field and a flag indicating that the output
//   buffer is currently available", here when the head is routed.
// - Turn and queuing logic: every other packet goes through the input and
//   output queues, router.turn_ns; a packet that changes direction also
//   needs one of the routing lanes that circle the chip (Figure 15: three,
//   router.routing_lanes), which carries one packet at a time at the link's
//   rate ("a speed penalty due to the sharing of internal busses"). Packets
//   from and to the local processor take its own paths (router.endpoint_ns).
// The routing policy (routing/mesh3d_source_route.h) gives the straight,
// turn or processor latency per hop; this model turns a straight packet
// that cannot cut through into a queued one and schedules the lanes.
#pragma once
#include <cstdint>
#include <vector>

#include "dataplane/link/link.h"
#include "dataplane/router/input_queued.h"
#include "dataplane/router/input_queued_allocation.h"
#include "dataplane/router/router_shape.h"
#include "dataplane/routing/route.h"

namespace fabemu {

class Mesh3dRouter final : public InputQueuedBuffers, public InputQueuedOps<Mesh3dRouter> {
 public:
  static constexpr uint32_t kDirections = 6;  // ports 0..5: +X -X +Y -Y +Z -Z

  void init(const RouterShape& s) {
    RouterShape b = s;
    b.config.input_speedup = 1;  // an input feeds one path at a time
    b.config.output_speedup = 1;
    InputQueuedBuffers::init(b);
    cfg_ = s.config.mesh3d;
    if (cfg_.lanes < 1) cfg_.lanes = 1;
    lane_free_.assign(size_t(s.routers) * cfg_.lanes, 0);
  }

  template <class H>
  FABEMU_ALWAYS_INLINE void head_routed(H& h, const RoutedHead& at, QEntry& e,
                                        const RouteCandidates& /*rc*/, ps_t ready,
                                        ps_t not_before) {
    const uint32_t o = output(at.router, e.out_port);
    const bool network_in = at.port < kDirections, network_out = e.out_port < kDirections;
    if (network_in && network_out) {
      if ((at.port ^ 1u) == e.out_port) {
        if (not_before <= e.arrive && requests(o) == 0 && h.out(o).free_ps <= ready &&
            credits_now(h, o, e)) {
          n_.straight++;
          iq::head_routed(*this, h, at, e, ready, not_before);
          return;
        }
        ready = e.arrive + cfg_.turn_ps;  // queued: input queue to output queue
      } else {
        ready = take_lane(at.router, ready, e.units * h.out(o).unit_ps);
      }
    }
    n_.queued++;
    iq::head_routed(*this, h, at, e, ready, not_before);
  }

  template <class Stats>
  void add_counters(Stats& st) const {
    st.mesh3d_straight_through += n_.straight;
    st.mesh3d_queued += n_.queued;
    st.mesh3d_lane_crossings += n_.lane_crossings;
    st.mesh3d_lane_wait_ps += n_.lane_wait_ps;
  }

 private:
  struct Counters {
    uint64_t straight = 0, queued = 0, lane_crossings = 0, lane_wait_ps = 0;
  };

  template <class H>
  static bool credits_now(H& h, uint32_t o, const QEntry& e) {
    ps_t ignored = kNever;
    return h.vcs(o)[e.out_vc].credits.available(e.units, h.now(), &ignored);
  }

  // The earliest free routing lane of local router lr carries a packet from
  // `ready` (or when it frees) for `busy`; returns when the packet is on it.
  ps_t take_lane(uint32_t lr, ps_t ready, ps_t busy) {
    ps_t* lanes = &lane_free_[size_t(lr) * cfg_.lanes];
    uint32_t best = 0;
    for (uint32_t i = 1; i < cfg_.lanes; i++)
      if (lanes[i] < lanes[best]) best = i;
    const ps_t start = lanes[best] > ready ? lanes[best] : ready;
    lanes[best] = start + busy;
    n_.lane_crossings++;
    n_.lane_wait_ps += start - ready;
    return start;
  }

  RouterConfig::Mesh3d cfg_;
  std::vector<ps_t> lane_free_;  // [local router * lanes + lane]
  Counters n_;
};

}  // namespace fabemu
