// What an input FIFO of the router model (router/input_queued.h's buffers,
// whatever the model) loses to a fault. A packet lost from it leaves as a
// granted one would as far as credits go: read out after what its input is
// sending, its credits streaming back behind it (a counter's streams never
// overlap, link/credit_counter.h); then it is discarded, counted with its
// reason.
//
// Function templates over the model M and its host H (router_model.h's
// RouterHost, and discard(why, m)): the engine's hot path calls two of them
// on its unlikely branches (a packet reaching a dead input, a head the
// reprogrammed tables give no output), out of line so that they stay off
// its code; the faults (link/link_faults.h) the rest through the engine's
// host.
#pragma once
#include <rte_mbuf.h>

#include <algorithm>
#include <cstdint>

#include "dataplane/core/packet_meta.h"
#include "dataplane/link/link.h"
#include "dataplane/router/input_queued.h"
#include "dataplane/sim/time.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// A discarded packet of `units` leaves input channel c's buffer. Returns
// when its tail is out.
template <class M, class H>
ps_t read_out_discarded(M& rt, H& h, uint32_t c, uint32_t units) {
  const uint32_t i = rt.input_of_channel(c);
  const InLink& in = h.in(i);
  const ps_t start = std::max(h.now(), rt.input_free_at(i));
  rt.occupy_input(i, start + units * in.unit_ps);
  h.return_credits(c, units, start + in.unit_ps + in.up_wire_ps, in.unit_ps);
  return start + units * in.unit_ps;
}

// The last packet of channel c is lost (withdrawn from its output first if
// it was requesting it).
template <class M, class H>
void lose_last(M& rt, H& h, uint32_t c, DropReason why) {
  if (rt.len(c) == 1 && rt.head(c).routed) {
    const QEntry& head = rt.head(c);
    const uint32_t o = rt.output(rt.router_of_channel(c), head.out_port);
    rt.withdraw_head(o, c);
    h.unroute_units(o, head.out_vc, head.units);
  }
  const QEntry e = rt.drop_back(c);
  const ps_t out = read_out_discarded(rt, h, c, e.units);
  if (rt.len(c) == 0) rt.remember_departure(c, h.now(), out);
  h.discard(why, e.m);
}

// Input i (numbered like outputs) lost its link: what had not wholly
// arrived by now is lost.
template <class M, class H>
void lose_arriving(M& rt, H& h, uint32_t i) {
  const ps_t unit = h.in(i).unit_ps;
  for (uint32_t v = 0; v < rt.nv(); v++) {
    const uint32_t c = rt.channel_of_output(i, v);
    while (rt.len(c) && rt.back(c).arrive + rt.back(c).units * unit > h.now())
      lose_last(rt, h, c, DropReason::lost_in_flight);
  }
}

// Everything channel c holds is lost.
template <class M, class H>
void lose_all(M& rt, H& h, uint32_t c, DropReason why) {
  while (rt.len(c)) lose_last(rt, h, c, why);
}

// Packet m reaches input channel c, whose link is dead: discarded, and its
// credits go back (only an endpoint injects into a dead router's input).
template <class M, class H>
[[gnu::noinline]] void refuse_at_dead_input(M& rt, H& h, uint32_t c, rte_mbuf* m) {
  const uint32_t units = meta(m)->units;
  rt.pass_through(c, units);
  read_out_discarded(rt, h, c, units);
  h.discard(DropReason::dead_port, m);
}

// The head of channel c has no route (a fault left its destination
// unreachable from here): it leaves its buffer as a discarded packet would,
// handed to then(m); the packet behind it is routed next.
template <class M, class H, class F>
void take_unroutable(M& rt, H& h, uint32_t c, F&& then) {
  const QEntry e = rt.pop(c, h.now());
  const ps_t out = read_out_discarded(rt, h, c, e.units);
  then(e.m);
  if (rt.len(c))
    h.route_head(c, out);
  else
    rt.remember_departure(c, h.now(), out);
}

// ... discarded, counted under `why`.
template <class M, class H>
[[gnu::noinline]] void discard_unroutable(M& rt, H& h, uint32_t c,
                                          DropReason why = DropReason::no_route) {
  take_unroutable(rt, h, c, [&](rte_mbuf* m) { h.discard(why, m); });
}

}  // namespace fabemu
