// A packet entering a router input: what the upstream link's grant (or an
// endpoint's injection) hands the router model. The buffer space is already
// the packet's, as the sender's credits say, so the head may arrive later
// than now. A packet that would overfill the buffer means the credits lied:
// the run fails there (a credit violation), with where. An input a fault
// killed refuses it (input_discard.h). The routing policy may decide
// something as the packet enters (R::on_enter, routing/route_stage.h).
//
// A function template over the model M and its host H (router_model.h's
// RouterHost, with input_dead, route_on_enter, global_router and fail).
#pragma once
#include <rte_mbuf.h>

#include <cstdint>
#include <string>

#include "dataplane/core/packet_meta.h"
#include "dataplane/router/input_discard.h"
#include "dataplane/router/input_queued.h"

namespace fabemu {

// Channel c (of model rt) was sent `units` more than its buffer of `cap`
// units (or its FIFO of `entries` packets) holds: the run fails.
template <class M, class H>
[[gnu::noinline]] void credit_violation(const M& rt, H& h, uint32_t c, uint32_t units,
                                        uint32_t cap) {
  const uint32_t lr = rt.router_of_channel(c);
  h.fail("credit violation: router " + std::to_string(h.global_router(lr)) + " port " +
         std::to_string(rt.port_of_channel(c)) + " VC " + std::to_string(rt.vc_of_channel(c)) +
         " holds " + std::to_string(rt.occupancy(c)) + " units in a " + std::to_string(cap) +
         "-unit buffer and is sent " + std::to_string(units) + " more");
}

// Packet m enters input channel c; its head arrives at `arrive` (late: from
// another core, taken at a window edge after that). cap: buffer units per
// VC; entries: packets a FIFO holds.
template <class M, class H>
__attribute__((always_inline)) inline void enter_input(M& rt, H& h, uint32_t c, rte_mbuf* m,
                                                       ps_t arrive, bool late, const uint32_t* cap,
                                                       uint32_t entries) {
  if (h.input_dead(c)) [[unlikely]] {
    refuse_at_dead_input(rt, h, c, m);
    return;
  }
  const uint32_t units = meta(m)->units;
  const uint32_t v = rt.vc_of_channel(c);
  if (rt.occupancy(c) + units > cap[v] || rt.len(c) >= entries) {
    credit_violation(rt, h, c, units, cap[v]);
    rte_pktmbuf_free(m);
    return;
  }
  h.route_on_enter(c, *meta(m));
  QEntry e{};
  e.m = m;
  e.arrive = arrive;
  e.units = static_cast<uint16_t>(units);
  rt.arrive(h, c, e, late);  // the router model's buffers
}

}  // namespace fabemu
