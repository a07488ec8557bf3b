// Flattened butterfly family "flatfly" (profile flatfly): the k-ary n-flat of
// Kim, Dally & Abts (ISCA 2007, section 2), and the programming of the tables
// its routing policies read (dataplane/routing/flatfly_tables.h, which also
// gives the router port layout).
//
// Routers 0 .. N/k - 1; router i's coordinate in dimension d is digit d of i
// in radix k, and it is linked in each of the n' = n - 1 dimensions to the
// k - 1 routers given by the paper's equation (1). Endpoint e sits on port
// e mod k of router e / k (concentration k). FabricRouter::coord holds the
// digits of dimensions 0..2 (all of them when n <= 4; describe and cycle
// reports show it), 0 beyond; rank 0.
// Every link, the endpoint links included, has the spec's unit and wire time.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "control/spec/spec.h"
#include "control/topology/registry.h"
#include "dataplane/core/fabric.h"
#include "dataplane/routing/flatfly_tables.h"

namespace fabemu {

// Endpoints a flatfly may have: the YARC head phit (the codec the profile
// uses) carries a 15-bit destination.
inline constexpr int64_t kFlatflyMaxEndpoints = 32768;

// Empty when a k-ary n-flat can be built (k >= 2, n >= 2, router radix
// n(k-1)+1 within the engine's kMaxPorts, N = k^n within
// kFlatflyMaxEndpoints); otherwise what is wrong and what to do.
std::string flatfly_size_problem(int64_t k, int64_t n);

// A generalized hypercube (Bhuyan & Agrawal 1984): k^dims routers, each
// linked in every dimension to the k - 1 routers whose address differs from
// its own in that radix-k digit only, with `conc` endpoints per router. The
// k-ary n-flat is {k, n - 1, k}; the binary hypercube {2, n, c}.
struct GhcShape {
  int k = 2;
  int dims = 1;
  int conc = 1;
  int routers() const;
  int radix() const { return conc + dims * (k - 1); }
};

// The flatfly's shape from topology.k and topology.n.
GhcShape flatfly_shape(const Spec& spec);

// Builds a generalized hypercube (the shape must fit: a size problem
// checked before), family `family` named `name`, with the port layout of
// dataplane/routing/flatfly_tables.h. Router coord: digits of dimensions
// 0..2, rank 0.
Fabric build_ghc(const Spec& spec, const GhcShape& shape, std::string name, std::string family);

// Throws std::invalid_argument with flatfly_size_problem()'s message.
Fabric build_flatfly(const Spec& spec);

// Links crossing the minimum bisection, one direction: the lower half of the
// routers in id order against the upper half (by Lindsey's theorem, 1964,
// initial segments of this order have the fewest links leaving them among
// all router sets of their size in a product of complete graphs). For even k
// this is one dimension cut in half: N/4 links, i.e. B = N/2 both ways and a
// capacity 2B/N = 1 (the paper's footnote 3). 32-ary 2-flat: 256.
int64_t flatfly_bisection_links(const Spec& spec, const Fabric& fabric);

// What a k-ary n-flat and a k-ary n-fly tell the spec (TopologyInfo):
// k^n endpoints once `size_problem` accepts k and n, which it blames, and
// k and n as their size keys.
inline void set_k_ary_n_size(TopologyInfo& t, std::string (*size_problem)(int64_t, int64_t)) {
  t.endpoint_count = [size_problem](const Spec& s) -> int64_t {
    if (!size_problem(s.topology.k, s.topology.n).empty()) return -1;
    int64_t v = 1;
    for (int i = 0; i < s.topology.n; ++i) v *= s.topology.k;
    return v;
  };
  t.size_problem = [size_problem](const Spec& s) {
    return SpecProblem{{"topology.k", "topology.n"}, size_problem(s.topology.k, s.topology.n)};
  };
  t.size_keys = [](const Spec& s) {
    return std::vector<std::pair<std::string, std::vector<int>>>{{"k", {s.topology.k}},
                                                                 {"n", {s.topology.n}}};
  };
}
// The cuts that achieve it (TopologyInfo::bisection_cuts): for even k,
// every dimension halved at each of its k/2 offsets (so that each link is
// across one), for odd k that one.
std::vector<BisectionCut> ghc_bisection_cuts(const GhcShape& shape, const Fabric& fabric);
std::vector<BisectionCut> flatfly_bisection_cuts(const Spec& spec, const Fabric& fabric);

// Tables of a generalized hypercube of `shape` for a policy that uses
// vcs_per_class VCs for each traffic class (min: 1, val: 2, min_ad: n',
// ugal and clos_ad: n' + 1): responses get their own VCs when the fabric
// has 2 * vcs_per_class, else share the requests'. Pipeline
// spec.router.latency_ns at every hop; `allocator` for the adaptive
// policies' decisions. Throws std::invalid_argument when the fabric has
// fewer than vcs_per_class VCs.
FlatflyTables program_ghc_tables(const Spec& spec, const Fabric& fabric, const GhcShape& shape,
                                 int vcs_per_class, Allocator allocator = Allocator::sequential);

// The same for a flatfly (flatfly_shape(spec)).
FlatflyTables program_flatfly_tables(const Spec& spec, const Fabric& fabric, int vcs_per_class,
                                     Allocator allocator = Allocator::sequential);

}  // namespace fabemu
