// What a routing function returns: a set of candidate (output port, VC)
// pairs. Selection among them (hashed, adaptive by credits, adaptive by
// estimated delay) is the router's (routing/selection.h).
#pragma once
#include <cstdint>

// The engines a routing policy runs on, one per router model (the models'
// names are dataplane/router/router_models.cmake's), written once beside the
// policy at file scope: FABEMU_ENGINES(Policy, input_queued, ...). The build
// makes one engine instance of each (CMakeLists.txt); to C++ it says nothing.
#define FABEMU_ENGINES(...)

namespace fabemu {

inline constexpr int kMaxCandidates = 64;

struct RouteCandidate {
  uint8_t port;
  uint8_t vc;
  // Router-to-router hops to the destination if this candidate is taken
  // (UGAL's hop count; read when the candidates are `weighted`).
  uint8_t hops = 0;
  uint8_t spare = 0;
  // The routing function's own note on this choice, handed back to it in
  // PacketMeta::out_note when the candidate is granted (e.g. the
  // intermediate router a non-minimal candidate heads for).
  uint16_t note = 0;
};

struct RouteCandidates {
  uint8_t count = 0;
  bool adaptive = false;  // false: take c[0] (the routing function already chose)
  // Adaptive choice by the least estimated delay, (queue + packet) x hops
  // (Kim, Dally & Abts 2007, section 3.1), instead of the most credits.
  bool weighted = false;
  // A folded Clos's down-routing invariant broken: the packet came down by
  // one of this router's uplinks and is routed up (or over) again (a table
  // that sends it to the wrong subtree). The engine counts it per router
  // and port; the packet goes where the tables say.
  bool up_after_down = false;
  RouteCandidate c[kMaxCandidates];
  void add(uint8_t port, uint8_t vc, uint8_t hops = 0, uint16_t note = 0) {
    c[count++] = RouteCandidate{port, vc, hops, 0, note};
  }
};

}  // namespace fabemu
