// The T3E paper's virtual-channel balance (Scott & Thorson, Hot Interconnects
// 1996, section 4 and Table 1): the dateline VC assignment of one
// unidirectional ring, how balanced it leaves VC0 and VC1 on each link, and
// the optimiser that chooses it.
//
// Our reading of the paper, which reproduces its time-of-crossing column
// exactly and its optimised columns closely (docs/fabrics/t3e.md):
//   - One direction of one ring of k nodes (the + ring; the - ring is its
//     mirror image, x -> k-1-x). A route is a (source, destination) pair the
//     minimal routing sends this way: distance j = (d - s) mod k with
//     2j < k, plus the ties 2j = k from even sources (odd sources take the
//     tie the other way, so both directions carry the same load).
//   - The dateline node is node 0, where the wrap link k-1 -> 0 arrives. A
//     route that passes through it (arrives over the wrap link and goes on)
//     must start on VC0 and is switched to VC1 leaving node 0; it is
//     "constrained". Every other route, including those that start or end at
//     node 0, may use either VC and keeps it.
//   - Traffic: each node sends one packet to every other node of the ring
//     (the whole torus ring), or of each aligned power-of-two subring of
//     m >= 4 nodes (a partition; its traffic never wraps, "effectively a
//     mesh"). A link's balance is |#VC0 - #VC1| over the routes crossing it,
//     divided by the largest number of routes on any link of that ring or
//     subring; Table 1 gives the average over all k links (a subring's link
//     into the next subring carries none of its traffic and counts 0) and the
//     worst.
//   - The T3E's VC lookup table has 8 entries per router and direction,
//     indexed by destination ordinate & 7: in rings longer than 8 the routes
//     of one source whose destinations share an entry share a VC, and an
//     entry shared with a constrained route must be VC0. "Full tables" is
//     one VC per route.
//   - The optimiser (simulated annealing, fixed seed, deterministic) flips
//     free entries to minimise, over the whole ring and each subring size,
//     the sum of average + kT3eVcMaxWeight x worst balance, the whole ring
//     weighted kT3eVcRingWeight times a subring size (our objective; the
//     paper does not give its own, but says it favours global traffic).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fabemu {

enum class T3eVcScheme {
  time_of_crossing,  // every route starts on VC0
  optimised,         // annealed, within the T3E's 8-entry tables
  optimised_full,    // annealed, one VC per route (no table limit)
};

const char* t3e_vc_scheme_name(T3eVcScheme s);

// One route of the + ring.
struct T3eRingRoute {
  int src = 0;
  int dist = 0;              // hops, 1..k/2
  bool constrained = false;  // passes through the dateline node: starts on VC0
  int dst(int k) const { return (src + dist) % k; }
};

// The routes of the + ring of k nodes, in (source, distance) order.
std::vector<T3eRingRoute> t3e_ring_routes(int k);

// True when the minimal route from ordinate s to d (s != d) in a ring of k
// travels + (ties at k/2: + from even sources).
constexpr bool t3e_ring_goes_plus(int s, int d, int k) {
  const int j = ((d - s) % k + k) % k;
  return 2 * j < k || (2 * j == k && s % 2 == 0);
}

// Subring sizes Table 1 reports for a ring of k: k itself, then the powers of
// two m >= 4 that divide k, largest first.
std::vector<int> t3e_subring_sizes(int k);

// A VC assignment of the + ring: vc[i] = 0/1, the VC route i starts on.
struct T3eRingAssignment {
  int k = 0;
  T3eVcScheme scheme = T3eVcScheme::time_of_crossing;
  std::vector<T3eRingRoute> routes;
  std::vector<uint8_t> vc;
  // The VC a packet from s to d (reached going +) starts on.
  int start_vc(int s, int d) const;
};

// Average and worst link VC balance of one level (the whole ring or all its
// subrings of one size).
struct T3eVcBalance {
  int subring = 0;
  double avg = 0;
  double max = 0;
};

// The assignment of a scheme; deterministic (annealing seed fixed). The
// optimised ones take well under a second up to k = 32.
T3eRingAssignment t3e_vc_assignment(int k, T3eVcScheme scheme);

// The balance of each level of t3e_subring_sizes(a.k), in that order.
std::vector<T3eVcBalance> t3e_vc_balance(const T3eRingAssignment& a);

// "" when the assignment never starts a constrained route on VC1 and (with
// the 8-entry table) gives routes that share an entry the same VC; else what
// is wrong.
std::string t3e_vc_assignment_problem(const T3eRingAssignment& a);

// The paper's Table 1: ring size, subring size, then avg/max of time of
// crossing, optimised T3E, optimised full tables.
struct T3eTable1PaperRow {
  int ring, subring;
  double toc_avg, toc_max, t3e_avg, t3e_max, full_avg, full_max;
};
const std::vector<T3eTable1PaperRow>& t3e_table1_paper();

struct T3eTable1Row {
  int ring = 0;
  int subring = 0;
  T3eVcBalance toc, t3e, full;
  std::optional<T3eTable1PaperRow> paper;
};

// Table 1 for rings of the given sizes (the paper's: 4, 8, 16, 32).
std::vector<T3eTable1Row> run_t3e_table1(const std::vector<int>& rings = {4, 8, 16, 32});

// The annealer's objective: a level's worst link against its average, the
// whole ring against one subring size (these two come closest to the
// paper's full-table column over rings of 8, 16 and 32), and its length:
// flips per free table entry.
inline constexpr double kT3eVcMaxWeight = 0.5;
inline constexpr double kT3eVcRingWeight = 2.0;
inline constexpr uint64_t kT3eVcStepsPerEntry = 1000;

}  // namespace fabemu
