#include "control/analysis/t3e_vc_balance.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <stdexcept>

namespace fabemu {

namespace {

// One traffic level: the whole ring (m = k) or its subrings of m nodes.
struct Level {
  int m = 0;
  int norm = 0;  // most routes of this level on one link
};

bool in_level(const T3eRingRoute& r, int m, int k) { return m == k || r.src % m + r.dist <= m - 1; }

// The VC route r uses on its h-th link, starting on vc.
int link_vc(const T3eRingRoute& r, int h, int vc, int k) {
  return r.constrained && r.src + h >= k ? 1 : vc;
}

// Per level and link, #VC0 - #VC1 routes, with the objective kept beside.
class BalanceState {
 public:
  BalanceState(int k, const std::vector<T3eRingRoute>& routes) : k_(k), routes_(routes) {
    for (int m : t3e_subring_sizes(k)) {
      std::vector<int> load(k, 0);
      for (const T3eRingRoute& r : routes_)
        if (in_level(r, m, k))
          for (int h = 0; h < r.dist; ++h) ++load[(r.src + h) % k];
      levels_.push_back({m, std::max(1, *std::max_element(load.begin(), load.end()))});
    }
    diff_.assign(levels_.size(), std::vector<int>(k, 0));
  }

  // Adds (sign +1) or removes (-1) route i started on vc.
  void apply(size_t i, int vc, int sign) {
    const T3eRingRoute& r = routes_[i];
    for (size_t l = 0; l < levels_.size(); ++l) {
      if (!in_level(r, levels_[l].m, k_)) continue;
      for (int h = 0; h < r.dist; ++h)
        diff_[l][(r.src + h) % k_] += sign * (link_vc(r, h, vc, k_) == 0 ? 1 : -1);
    }
  }

  std::vector<T3eVcBalance> balance() const {
    std::vector<T3eVcBalance> out;
    for (size_t l = 0; l < levels_.size(); ++l) {
      int sum = 0, worst = 0;
      for (int d : diff_[l]) {
        sum += std::abs(d);
        worst = std::max(worst, std::abs(d));
      }
      const double n = levels_[l].norm;
      out.push_back({levels_[l].m, sum / (n * k_), worst / n});
    }
    return out;
  }

  double objective() const {
    double j = 0;
    for (const T3eVcBalance& b : balance())
      j += (b.subring == k_ ? kT3eVcRingWeight : 1.0) * (b.avg + kT3eVcMaxWeight * b.max);
    return j;
  }

 private:
  int k_;
  const std::vector<T3eRingRoute>& routes_;
  std::vector<Level> levels_;
  std::vector<std::vector<int>> diff_;
};

// The routes that must share one VC: one group per route (full tables) or
// per (source, destination ordinate & 7) (the T3E's table); fixed groups
// hold a constrained route and stay on VC0.
struct Groups {
  std::vector<std::vector<size_t>> free;
};

Groups make_groups(const T3eRingAssignment& a) {
  const int k = a.k;
  // Groups in the order of their first route, so that a ring where no two
  // routes share an entry (k <= 8, or 16: a source reaches at most 8
  // consecutive destinations going +, distinct mod 8 unless they wrap round
  // a ring whose size is not a multiple of 8) gets the same search with or
  // without the table limit.
  const bool full = a.scheme == T3eVcScheme::optimised_full;
  std::vector<std::vector<size_t>> all;
  std::vector<bool> fixed;
  std::vector<int> group_of(static_cast<size_t>(k) * 8, -1);
  for (size_t i = 0; i < a.routes.size(); ++i) {
    const T3eRingRoute& r = a.routes[i];
    int& g = group_of[static_cast<size_t>(r.src) * 8 + (r.dst(k) & 7)];
    if (full || g < 0) {
      g = static_cast<int>(all.size());
      all.emplace_back();
      fixed.push_back(false);
    }
    all[g].push_back(i);
    fixed[g] = fixed[g] || r.constrained;
  }
  Groups out;
  for (size_t g = 0; g < all.size(); ++g)
    if (!fixed[g]) out.free.push_back(std::move(all[g]));
  return out;
}

// A uniform double in [0, 1) from the generator's top 53 bits (the same on
// every standard library, unlike std::uniform_real_distribution).
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Simulated annealing over the free groups: flip one group's VC, keep the
// flip when the objective does not get worse or with probability
// exp(-increase / T), T falling geometrically; the best state seen wins.
void anneal(T3eRingAssignment& a) {
  const Groups groups = make_groups(a);
  if (groups.free.empty()) return;
  BalanceState st(a.k, a.routes);
  for (size_t i = 0; i < a.routes.size(); ++i) st.apply(i, a.vc[i], +1);
  auto flip = [&](const std::vector<size_t>& g) {
    for (size_t i : g) {
      st.apply(i, a.vc[i], -1);
      a.vc[i] ^= 1u;
      st.apply(i, a.vc[i], +1);
    }
  };
  std::mt19937_64 rng(0x7353'1996ULL + static_cast<uint64_t>(a.k));
  double cur = st.objective();
  double best = cur;
  std::vector<uint8_t> best_vc = a.vc;
  const uint64_t steps = kT3eVcStepsPerEntry * static_cast<uint64_t>(groups.free.size());
  const double t0 = 0.05, t1 = 2e-5;
  const double cool = std::pow(t1 / t0, 1.0 / static_cast<double>(steps));
  double temp = t0;
  for (uint64_t s = 0; s < steps; ++s, temp *= cool) {
    const std::vector<size_t>& g = groups.free[rng() % groups.free.size()];
    flip(g);
    const double next = st.objective();
    if (next <= cur || unit(rng) < std::exp((cur - next) / temp)) {
      cur = next;
      if (cur < best - 1e-12) {
        best = cur;
        best_vc = a.vc;
      }
    } else {
      flip(g);
    }
  }
  a.vc = std::move(best_vc);
}

}  // namespace

const char* t3e_vc_scheme_name(T3eVcScheme s) {
  switch (s) {
    case T3eVcScheme::time_of_crossing:
      return "time_of_crossing";
    case T3eVcScheme::optimised:
      return "optimised";
    case T3eVcScheme::optimised_full:
      return "optimised_full";
  }
  return "?";
}

std::vector<T3eRingRoute> t3e_ring_routes(int k) {
  std::vector<T3eRingRoute> routes;
  for (int s = 0; s < k; ++s)
    for (int j = 1; 2 * j <= k; ++j)
      if (t3e_ring_goes_plus(s, (s + j) % k, k)) routes.push_back({s, j, s + j > k});
  return routes;
}

std::vector<int> t3e_subring_sizes(int k) {
  std::vector<int> sizes{k};
  for (int m = 1 << 30; m >= 4; m >>= 1)
    if (m < k && k % m == 0) sizes.push_back(m);
  return sizes;
}

int T3eRingAssignment::start_vc(int s, int d) const {
  const int j = ((d - s) % k + k) % k;
  for (size_t i = 0; i < routes.size(); ++i)
    if (routes[i].src == s && routes[i].dist == j) return vc[i];
  throw std::invalid_argument(
      fmt::format("ring of {}: {} -> {} is not routed + (internal error)", k, s, d));
}

T3eRingAssignment t3e_vc_assignment(int k, T3eVcScheme scheme) {
  if (k < 1 || k > 255)
    throw std::invalid_argument(fmt::format("ring of {}: k must be 1 to 255", k));
  T3eRingAssignment a;
  a.k = k;
  a.scheme = scheme;
  a.routes = t3e_ring_routes(k);
  a.vc.assign(a.routes.size(), 0);
  if (scheme != T3eVcScheme::time_of_crossing) anneal(a);
  return a;
}

std::vector<T3eVcBalance> t3e_vc_balance(const T3eRingAssignment& a) {
  BalanceState st(a.k, a.routes);
  for (size_t i = 0; i < a.routes.size(); ++i) st.apply(i, a.vc[i], +1);
  return st.balance();
}

std::string t3e_vc_assignment_problem(const T3eRingAssignment& a) {
  for (size_t i = 0; i < a.routes.size(); ++i) {
    const T3eRingRoute& r = a.routes[i];
    if (r.constrained && a.vc[i])
      return fmt::format("ring of {}: route {} -> {} passes the dateline node but starts on VC1",
                         a.k, r.src, r.dst(a.k));
    if (a.scheme == T3eVcScheme::optimised_full) continue;
    for (size_t o = 0; o < a.routes.size(); ++o)
      if (a.routes[o].src == r.src && (a.routes[o].dst(a.k) & 7) == (r.dst(a.k) & 7) &&
          a.vc[o] != a.vc[i])
        return fmt::format(
            "ring of {}: routes {} -> {} and {} -> {} share VC table entry {} but not a VC", a.k,
            r.src, r.dst(a.k), r.src, a.routes[o].dst(a.k), r.dst(a.k) & 7);
  }
  return "";
}

const std::vector<T3eTable1PaperRow>& t3e_table1_paper() {
  static const std::vector<T3eTable1PaperRow> rows{
      {4, 4, 1, 1, 0, 0, 0, 0},
      {8, 8, .813, 1, .031, .250, .031, .250},
      {8, 4, .625, 1, .125, .250, .125, .250},
      {16, 16, .813, 1, .137, .563, .133, .563},
      {16, 8, .656, 1, .063, .313, .063, .313},
      {16, 4, .625, 1, .125, .250, .125, .250},
      {32, 32, .807, 1, .220, .875, .173, .797},
      {32, 16, .664, 1, .246, .609, .062, .250},
      {32, 8, .656, 1, .488, 1, .031, .063},
      {32, 4, .625, 1, .594, 1, .125, .250},
  };
  return rows;
}

std::vector<T3eTable1Row> run_t3e_table1(const std::vector<int>& rings) {
  std::vector<T3eTable1Row> out;
  for (int k : rings) {
    const auto toc = t3e_vc_balance(t3e_vc_assignment(k, T3eVcScheme::time_of_crossing));
    const auto t3e = t3e_vc_balance(t3e_vc_assignment(k, T3eVcScheme::optimised));
    const auto full = t3e_vc_balance(t3e_vc_assignment(k, T3eVcScheme::optimised_full));
    for (size_t l = 0; l < toc.size(); ++l) {
      T3eTable1Row row;
      row.ring = k;
      row.subring = toc[l].subring;
      row.toc = toc[l];
      row.t3e = t3e[l];
      row.full = full[l];
      for (const T3eTable1PaperRow& p : t3e_table1_paper())
        if (p.ring == k && p.subring == row.subring) row.paper = p;
      out.push_back(row);
    }
  }
  return out;
}

}  // namespace fabemu
