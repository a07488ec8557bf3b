#include "control/analysis/table4.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "control/analysis/analysis.h"
#include "control/analysis/fat_tree_model.h"
#include "control/spec/spec_loader.h"
#include "control/topology/registry.h"

namespace fabemu {

namespace {

constexpr int kMinEndpoints = 64;
constexpr int kMaxDiversity = 32;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

PermutationLoadOptions load_options(const Table4Options& opts, std::vector<int> diversities,
                                    const std::string& what) {
  PermutationLoadOptions o;
  o.permutations = opts.permutations;
  o.seed = opts.seed;
  o.diversities = std::move(diversities);
  if (opts.progress)
    o.progress = [fn = opts.progress, what](const SweepProgress& p) { fn(what, p); };
  return o;
}

void run_torus(const Table4Options& opts, Table4Row& row) {
  const auto t0 = std::chrono::steady_clock::now();
  Spec spec = profile_defaults("t3e");
  spec.topology.dims = row.dims;
  spec.routing = "dimension_order";
  const Fabric f = Registry::get().topology("torus")->build(spec);
  const RoutePathFn trace = make_route_path_tracer(spec, f);
  row.torus_tables_seconds = seconds_since(t0);
  // The torus routes ignore the hash: one stream per transfer.
  row.torus = permutation_link_load(
      f, trace,
      load_options(opts, {1},
                   fmt::format("torus {}x{}x{}", row.dims[0], row.dims[1], row.dims[2])));
  row.has_torus = true;
}

void run_fat_tree(const Table4Options& opts, Table4Row& row) {
  const auto t0 = std::chrono::steady_clock::now();
  const Spec spec = fat_tree_spec(profile_defaults("yarc"), row.endpoints);
  const Fabric f = build_fat_tree(spec, row.endpoints);
  const RoutePathFn trace = make_route_path_tracer(spec, f);
  row.fat_tree_tables_seconds = seconds_since(t0);
  row.fat_tree_model = fat_tree_description(row.endpoints);
  row.fat_tree = permutation_link_load(
      f, trace, load_options(opts, opts.diversities, fmt::format("fat tree {}", row.endpoints)));
  row.has_fat_tree = true;
}

}  // namespace

std::optional<std::array<int, 3>> cubic_torus_dims(int endpoints) {
  std::optional<std::array<int, 3>> best;
  for (int a = 2; a * a * a <= endpoints; ++a) {
    if (endpoints % a) continue;
    for (int b = a; a * b * b <= endpoints; ++b) {
      if ((endpoints / a) % b) continue;
      const int c = endpoints / a / b;
      const std::array<int, 3> d{a, b, c};
      if (!best || c < (*best)[2] || (c == (*best)[2] && c - a < (*best)[2] - (*best)[0])) best = d;
    }
  }
  return best;
}

std::string table4_options_problem(const Table4Options& opts) {
  if (opts.sizes.empty()) return "--sizes is empty: give at least one size, e.g. --sizes 64,512";
  if (!opts.torus && !opts.fat_tree)
    return "nothing to compute: give --network torus, fat-tree or both";
  for (int n : opts.sizes) {
    if (n < kMinEndpoints || n > kFatTreeMaxEndpoints)
      return fmt::format(
          "size {} is out of range: give {} to {} endpoints (the paper's sizes go "
          "up to 32K)",
          n, kMinEndpoints, kFatTreeMaxEndpoints);
    if (opts.torus && !cubic_torus_dims(n))
      return fmt::format(
          "size {} has no 3-D torus shape kx x ky x kz with every k at least 2: "
          "give a size with three or more prime factors (a power of two, say), "
          "or leave the torus out with --network fat-tree",
          n);
  }
  for (int d : opts.diversities)
    if (d < 1 || d > kMaxDiversity)
      return fmt::format("path diversity {} is out of range: a transfer takes 1 to {} paths", d,
                         kMaxDiversity);
  if (opts.fat_tree && opts.diversities.empty())
    return "--diversity is empty: give at least one, e.g. --diversity 1,32";
  if (opts.permutations < 1) return "--permutations must be at least 1";
  return "";
}

std::vector<Table4Row> run_table4(const Table4Options& opts) {
  std::vector<Table4Row> rows;
  for (int n : opts.sizes) {
    Table4Row row;
    row.endpoints = n;
    if (opts.torus) {
      row.dims = *cubic_torus_dims(n);
      run_torus(opts, row);
    }
    if (opts.fat_tree) run_fat_tree(opts, row);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::optional<double> paper_fat_tree_worst(int endpoints, int diversity) {
  // Section 7.8.1: "up to 7.6 times higher than the injection bandwidth";
  // "a path diversity of 32 ... only 1.6 times the injection bandwidth at
  // 32K endpoints".
  if (endpoints != kFatTreeMaxEndpoints) return std::nullopt;
  if (diversity == 1) return 7.6;
  if (diversity == 32) return 1.6;
  return std::nullopt;
}

}  // namespace fabemu
