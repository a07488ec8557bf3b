// The BlackWidow paper's Table 4 (section 7.8.1): average worst-case link
// utilisation over random permutations of a 3-D torus under dimension-order
// routing and of a radix-64 fat tree with path diversity 1 to 32, computed
// from the routes fabemu's routing tables give (link_load.h):
//   - torus: the t3e family (build_torus) with one endpoint per router,
//     shaped as close to a cube as the size allows (64: 4x4x4, 32K:
//     32x32x32), routing dimension_order (torus_dimension_order.h: minimal,
//     X then Y then Z, ties to +, on the T3E source tables);
//   - fat tree: fat_tree_model.h (the clos builder up to 1024 endpoints, the
//     rank-3 analysis model above), YARC hashed deterministic up routing.
//
// Our copy of the paper (shared/seeds/000_...) lost the body of Table 4; what
// its text states is kept here as the paper's values: the torus' average
// link traffic k/8, its "degrade factor" of 4 to 5, and at 32K endpoints a
// fat-tree worst case "up to 7.6" with one path and 1.6 with 32.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "control/analysis/link_load.h"

namespace fabemu {

struct Table4Options {
  std::vector<int> sizes{64, 512, 4096, 32768};  // the cubes k = 4, 8, 16, 32 up to 32K
  std::vector<int> diversities{1, 2, 4, 8, 16, 32};
  uint32_t permutations = 10000;
  uint64_t seed = 1;
  bool torus = true;
  bool fat_tree = true;
  // Progress of each network's permutations: what is being done ("torus
  // 32x32x32"), then the sweep.
  std::function<void(const std::string& what, const SweepProgress&)> progress;
};

struct Table4Row {
  int endpoints = 0;
  // Torus (when asked for).
  bool has_torus = false;
  std::array<int, 3> dims{0, 0, 0};
  PermutationLoad torus;
  double torus_tables_seconds = 0;  // building the fabric and programming its tables
  // Fat tree (when asked for).
  bool has_fat_tree = false;
  std::string fat_tree_model;  // fat_tree_description()
  PermutationLoad fat_tree;
  double fat_tree_tables_seconds = 0;

  // The torus' average link traffic the paper's k/8 predicts: (kx+ky+kz)/24
  // (k/8 for a cube).
  double torus_k_over_8() const { return (dims[0] + dims[1] + dims[2]) / 24.0; }
  // Worst-case traffic over average traffic.
  double degrade_factor() const {
    return torus.mean_link.empty() || torus.mean_link[0] <= 0
               ? 0
               : torus.mean_worst[0] / torus.mean_link[0];
  }
};

// The torus the analysis uses for `endpoints`: kx <= ky <= kz, each at
// least 2, with the smallest largest side, then the smallest spread
// (576: 8x8x9, 2304: 12x12x16, 30720: 30x32x32). Empty when there is none.
std::optional<std::array<int, 3>> cubic_torus_dims(int endpoints);

// Checks every option; "" when they are fine, else what is wrong and what
// to do (the command prints it and exits 2).
std::string table4_options_problem(const Table4Options& opts);

// Runs every size (the options must pass table4_options_problem).
std::vector<Table4Row> run_table4(const Table4Options& opts);

// The paper's figure for the fat tree at (endpoints, diversity), where its
// text gives one (32K: 7.6 at 1 path, 1.6 at 32).
std::optional<double> paper_fat_tree_worst(int endpoints, int diversity);

// The paper's torus degrade factor range ("an additional 4-5 times higher").
inline constexpr double kPaperDegradeLow = 4.0;
inline constexpr double kPaperDegradeHigh = 5.0;

}  // namespace fabemu
