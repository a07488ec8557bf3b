// Selection: which of a routing function's candidates a packet takes. The
// routing function says whether the choice is its own (deterministic,
// hashed: candidate 0) or adaptive; adaptive selection takes the candidate
// whose downstream buffer has the most credits, or, for weighted candidates,
// the least estimated delay (ties: the earlier one, so the routing
// function's order is the preference).
#pragma once
#include "dataplane/routing/route.h"
#include "dataplane/routing/routing_context.h"

namespace fabemu {

inline RouteCandidate select_most_credits(const RouteCandidates& rc, const QueueView& view) {
  RouteCandidate pick = rc.c[0];
  if (!rc.adaptive || rc.count < 2) return pick;
  uint32_t best = view.credits(pick.port, pick.vc);
  for (uint32_t i = 1; i < rc.count; i++) {
    const uint32_t cr = view.credits(rc.c[i].port, rc.c[i].vc);
    if (cr > best) {
      best = cr;
      pick = rc.c[i];
    }
  }
  return pick;
}

// UGAL's estimate of a candidate's delay (Kim, Dally & Abts 2007, section
// 3.1: the output channel's queue length times hop count). The queue is the
// channel's, every VC's (QueueView::channel_queue): with a VC's own, UGAL's
// non-minimal VC 0 looks empty on a channel busy with minimal traffic, and
// under uniform traffic UGAL, UGAL-S and CLOS AD detoured a fifth of their
// packets and saturated at 0.81 instead of the paper's ~1 (0.959 with the
// channel's). The packet's own length is counted with the queue so that at
// zero load the shorter path wins (0 x hops would tie every candidate).
inline uint64_t estimated_delay(const RouteCandidate& c, const QueueView& view, uint32_t units) {
  return uint64_t{view.channel_queue(c.port) + units} * (c.hops ? c.hops : 1u);
}

inline RouteCandidate select_least_delay(const RouteCandidates& rc, const QueueView& view,
                                         uint32_t units) {
  RouteCandidate pick = rc.c[0];
  if (!rc.adaptive || rc.count < 2) return pick;
  uint64_t best = estimated_delay(pick, view, units);
  for (uint32_t i = 1; i < rc.count; i++) {
    const uint64_t d = estimated_delay(rc.c[i], view, units);
    if (d < best) {
      best = d;
      pick = rc.c[i];
    }
  }
  return pick;
}

// The router's selection: what the engine and route tracing both apply.
inline RouteCandidate select_candidate(const RouteCandidates& rc, const QueueView& view,
                                       uint32_t units) {
  return rc.weighted ? select_least_delay(rc, view, units) : select_most_credits(rc, view);
}

}  // namespace fabemu
