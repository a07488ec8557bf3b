// Selection: which of a routing function's candidates a packet takes. The
// routing function says whether the choice is its own (deterministic,
// hashed: candidate 0) or adaptive; adaptive selection takes the candidate
// whose downstream buffer has the most credits (ties: the earlier one, so
// the routing function's order is the preference).
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

}  // namespace fabemu
