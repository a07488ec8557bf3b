// What a routing function returns: a set of candidate (output port, VC)
// pairs. Selection among them (hashed, adaptive by credits) is the router's.
#pragma once
#include <cstdint>

namespace fabemu {

inline constexpr int kMaxCandidates = 64;

struct RouteCandidate {
  uint8_t port;
  uint8_t vc;
};

struct RouteCandidates {
  uint8_t count = 0;
  bool adaptive = false;  // false: take c[0] (the routing function already chose)
  RouteCandidate c[kMaxCandidates];
  void add(uint8_t port, uint8_t vc) { c[count++] = RouteCandidate{port, vc}; }
};

}  // namespace fabemu
