// The flattened butterfly (Kim, Dally & Abts, ISCA 2007, section 2): the
// router port layout the builder wires (control/topology/flatfly.cpp) and the
// tables every flatfly routing policy reads (flatfly_min.h, flatfly_val.h).
// The binary hypercube is the same graph with k = 2 and its own
// concentration (a generalized hypercube, the paper's section 2.3), so it
// uses these tables too (control/topology/hypercube.cpp).
//
// A k-ary n-flat has N = k^n endpoints and N/k routers of radix
// k' = n(k-1) + 1, connected in n' = n - 1 dimensions. Router i's coordinate
// in dimension d (0-based here, the paper's d - 1) is digit d of i in radix k,
// (i / k^d) mod k; in each dimension a router is linked to the k - 1 routers
// whose address differs from its own in that digit only (equation (1)).
//
// Port layout of every router (k' ports), with c endpoints per router (the
// concentration: k on a flatfly, topology.endpoints_per_router on a hypercube):
//   0 .. c-1                 the c endpoints it concentrates (endpoint
//                            router * c + j on port j); label 0
//   c + d(k-1) + s           dimension d, slot s in 0..k-2: the neighbour
//                            whose digit d is m = s, or s + 1 when s >= the
//                            router's own digit (there is no link to itself);
//                            label d + 1
// A packet sent on port p of dimension d arrives on the neighbour's port for
// (d, this router's digit), so both ends of a channel follow the same rule.
//
// Hot path: header-only, no allocation, no exceptions, no division.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/routing/routing_policy.h"
#include "dataplane/sim/time.h"

namespace fabemu {

inline constexpr uint8_t kFlatflyEndpointLabel = 0;
inline constexpr uint8_t kFlatflyNoDim = 0xFF;  // port_dim of an endpoint port

// The port of a router with c endpoint ports whose digit in dimension d is
// `own` towards the neighbour whose digit there is m (m != own).
constexpr int flatfly_port(int c, int k, int d, int own, int m) {
  return c + d * (k - 1) + (m < own ? m : m - 1);
}

// Where a destination endpoint lives.
struct FlatflyDest {
  int32_t router = 0;
  uint8_t port = 0;  // endpoint port on that router
};

struct FlatflyTables {
  uint8_t k = 2;     // routers per dimension
  uint8_t dims = 1;  // n' = n - 1
  uint8_t conc = 2;  // endpoints per router (the flatfly's k)
  // digit[r * dims + d]: router r's coordinate in dimension d.
  std::vector<uint8_t> digit;
  std::vector<FlatflyDest> dest;  // per endpoint
  // The dimension a port's channel runs in, kFlatflyNoDim for endpoint ports.
  std::array<uint8_t, kMaxPorts> port_dim{};
  // Added to a policy's VCs for responses, so that requests and responses
  // never wait on each other (0 when the fabric has too few VCs for both;
  // they then share, as on YARC with one VC).
  uint8_t response_vc = 0;
  uint8_t vcs = 1;  // the fabric's VCs (ran_min may take any)
  // VCs a source rotates its packets over (vcs.injection rotate; 1: its
  // class's first VC only).
  uint8_t inject_vcs = 1;
  ps_t latency_ps = 31250;  // router pipeline, every hop
  // How adaptive decisions at one router see each other (the paper's greedy
  // MIN AD and UGAL, sequential UGAL-S and CLOS AD; oblivious policies do
  // not ask).
  Allocator allocator = Allocator::sequential;

  int32_t routers() const { return dims ? static_cast<int32_t>(digit.size() / dims) : 0; }
  const uint8_t* digits(int32_t router) const {
    return digit.data() + static_cast<size_t>(router) * dims;
  }
  uint8_t port_to(int d, uint8_t own, uint8_t m) const {
    return static_cast<uint8_t>(flatfly_port(conc, k, d, own, m));
  }
  uint8_t class_vc(const PacketMeta& m) const {
    return m.cls == static_cast<uint8_t>(TrafficClass::response) ? response_vc : 0;
  }
  // The VC a source injects m on: its class's first, or each of
  // inject_vcs in turn by packet number (an endpoint's ids count up).
  uint8_t injection_vc(const PacketMeta& m) const {
    return static_cast<uint8_t>(class_vc(m) + (inject_vcs > 1 ? m.id % inject_vcs : 0));
  }
};

// What every flatfly policy shares: one pipeline latency at every hop (the
// paper's routers are alike; YARC's 31.25 ns by default).
struct FlatflyPolicyBase {
  using Tables = FlatflyTables;
  static ps_t pipeline_ps(const Tables& t, int32_t /*router*/, uint8_t /*in_port*/,
                          uint8_t /*out_port*/) {
    return t.latency_ps;
  }
  static Allocator allocator(const Tables& t) { return t.allocator; }
};

// The next hop of dimension-order routing from `router` towards router
// `target` (lowest differing dimension first): the port, or -1 when the
// packet is at `target`.
inline int flatfly_dimension_order(const FlatflyTables& t, int32_t router, int32_t target) {
  const uint8_t* c = t.digits(router);
  const uint8_t* g = t.digits(target);
  for (int d = 0; d < t.dims; ++d)
    if (c[d] != g[d]) return t.port_to(d, c[d], g[d]);
  return -1;
}

// Router-to-router hops of a minimal route from router a to router b: the
// digits in which they differ.
inline int flatfly_hops(const FlatflyTables& t, int32_t a, int32_t b) {
  const uint8_t* x = t.digits(a);
  const uint8_t* y = t.digits(b);
  int n = 0;
  for (int d = 0; d < t.dims; ++d) n += x[d] != y[d];
  return n;
}

// MIN AD's candidates at `router` towards router `target` (not `router`):
// every productive channel (one per differing digit), weighted by the hops
// left, all on the VC for that many hops, vc_first + n' - hops (Kim, Dally &
// Abts 2007, section 3.1: n' VCs chosen by the hops remaining, so a packet's
// VC rises at every hop and the channel dependencies cannot close a cycle).
inline void flatfly_add_productive(const FlatflyTables& t, int32_t router, int32_t target,
                                   uint8_t vc_first, RouteCandidates& out) {
  const uint8_t* c = t.digits(router);
  const uint8_t* g = t.digits(target);
  const int hops = flatfly_hops(t, router, target);
  const uint8_t vc = static_cast<uint8_t>(vc_first + t.dims - hops);
  for (int d = 0; d < t.dims; ++d)
    if (c[d] != g[d]) out.add(t.port_to(d, c[d], g[d]), vc, static_cast<uint8_t>(hops));
}

}  // namespace fabemu
