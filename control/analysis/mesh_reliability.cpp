#include "control/analysis/mesh_reliability.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <random>

#include "control/topology/mesh_reach.h"
#include "control/topology/mesh_routes.h"

namespace fabemu {

namespace {

// splitmix64: a seed per pattern from (seed, kind, count, index).
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct PatternResult {
  uint64_t disconnected = 0, rerouted = 0, too_long = 0;
  uint32_t added = 0;
  bool deadlock_free = false;
  double seconds = 0;
};

PatternResult run_pattern(const MeshShape& m, const MeshFaults& f, const MeshReliabilityOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  PatternResult r;
  const MeshTurnLists lists =
      program_turn_lists(m, f, o.xyz_base ? xyz_turns() : fault_turns(), o.routes);
  r.disconnected = lists.unroutable;
  r.added = lists.added;
  if (o.routes) {
    const auto routes = mesh_exceptions(m, f, lists.at);
    r.rerouted = routes.size();
    // Pairs with no legal route are counted as disconnected already.
    for (const MeshException& x : routes) r.too_long += !x.routable;
    r.too_long -= std::min(r.too_long, r.disconnected);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.deadlock_free = mesh_turns_deadlock_free(m, f, lists.at);
  return r;
}

}  // namespace

MeshFaults mesh_fault_pattern(const MeshShape& m, bool routers, int count, uint64_t seed,
                              uint32_t index) {
  std::mt19937_64 rng(mix(mix(mix(seed) ^ uint64_t(routers)) ^ uint64_t(count)) ^ index);
  MeshFaults f;
  if (routers) {
    const int n = std::min(count, m.routers());
    while (int(f.routers.size()) < n)
      f.routers.insert(int(std::uniform_int_distribution<int>(0, m.routers() - 1)(rng)));
    return f;
  }
  // Links by their +X, +Y or +Z end.
  std::vector<std::pair<int, MeshDir>> links;
  for (int r = 0; r < m.routers(); r++)
    for (MeshDir d : {MeshDir::xp, MeshDir::yp, MeshDir::zp})
      if (m.neighbour(r, d) >= 0) links.push_back({r, d});
  const size_t n = std::min(size_t(std::max(count, 0)), links.size());
  for (size_t i = 0; i < n; i++) {  // a partial Fisher-Yates shuffle
    std::swap(links[i], links[std::uniform_int_distribution<size_t>(i, links.size() - 1)(rng)]);
    f.kill_link(m, links[i].first, links[i].second);
  }
  return f;
}

std::vector<MeshReliabilityRow> run_mesh_reliability(const MeshReliabilityOptions& o) {
  const MeshShape m{o.dims};
  struct Job {
    bool routers;
    int faults;
  };
  std::vector<Job> jobs;
  for (const bool routers : {false, true}) {
    const int most = routers ? o.dead_routers : o.dead_links;
    if (most <= 0) continue;
    std::vector<int> counts = o.counts;
    if (counts.empty()) counts = most > 1 ? std::vector<int>{1, most} : std::vector<int>{1};
    for (int c : counts)
      if (c >= 1 && c <= most) jobs.push_back({routers, c});
  }
  const uint64_t total = uint64_t(jobs.size()) * o.patterns;
  std::mutex progress_mutex;
  uint64_t done = 0;
  const auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  bool reported = false;

  std::vector<MeshReliabilityRow> rows;
  for (const Job& job : jobs) {
    std::vector<PatternResult> results(o.patterns);
    tbb::parallel_for(uint32_t(0), o.patterns, [&](uint32_t i) {
      results[i] = run_pattern(m, mesh_fault_pattern(m, job.routers, job.faults, o.seed, i), o);
      if (!o.progress) return;
      std::lock_guard<std::mutex> lock(progress_mutex);
      done++;
      const auto now = std::chrono::steady_clock::now();
      if (now - last_report < std::chrono::milliseconds(500) ||
          now - start < std::chrono::seconds(1))
        return;
      last_report = now;
      reported = true;
      o.progress({done, total, std::chrono::duration<double>(now - start).count(), false});
    });
    MeshReliabilityRow row;
    row.kind = job.routers ? "routers" : "links";
    row.faults = job.faults;
    row.patterns = o.patterns;
    row.routable_counted = o.routes;
    for (const PatternResult& r : results) {
      row.connected += r.disconnected == 0;
      row.routable += r.disconnected == 0 && r.too_long == 0;
      row.deadlock_free += r.deadlock_free;
      row.disconnected_mean += double(r.disconnected);
      row.disconnected_max = std::max(row.disconnected_max, r.disconnected);
      row.added_mean += r.added;
      row.added_max = std::max(row.added_max, r.added);
      row.rerouted_mean += double(r.rerouted);
      row.too_long_mean += double(r.too_long);
      row.too_long_max = std::max(row.too_long_max, r.too_long);
      row.seconds_mean += r.seconds;
      row.seconds_max = std::max(row.seconds_max, r.seconds);
    }
    if (o.patterns) {
      for (double* v : {&row.disconnected_mean, &row.added_mean, &row.rerouted_mean,
                        &row.too_long_mean, &row.seconds_mean})
        *v /= o.patterns;
    }
    rows.push_back(row);
  }
  if (o.progress && reported)
    o.progress({total, total,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                true});
  return rows;
}

}  // namespace fabemu
