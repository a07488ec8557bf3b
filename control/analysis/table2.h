// The BlackWidow paper's Table 2 (section 7.3): zero-load latency of a
// radix-64 folded Clos and a 3-D torus at 576, 2304, 9216 and 30720
// endpoints, "both topologies ... implemented based on the technology
// available for the BlackWidow network", uniform random traffic for the
// average hop count, "the port bandwidth of the routers ... held constant"
// (the torus' fewer channels are fatter).
//
// fabemu builds each fabric (the fat tree of fat_tree_model.h; the t3e
// family's torus with T3E direction-order tables) with the technology below
// in its spec, traces every route between distinct endpoints (a sample of
// whole source rows above SampleOptions::max_routes: control/analysis/
// route_sample.h) and averages the zero-load latency path_latency_ps gives:
// a router delay per router crossed, the wire of every link, and the packet
// serialized once (virtual cut-through). The technology (the paper's
// footnote 3 and section 2):
//   - router delay tr = 20 ns, the paper's estimate for YARC (as built it
//     is 31.25 ns: --router-ns);
//   - packet L = 312 bits, the paper's average over read and write requests
//     and responses;
//   - Clos ports at 18.75 Gb/s (3 lanes x 6.25 Gb/s, signalling rate, as the
//     paper's B = 2.4 Tb/s counts it); the torus router gets the same
//     1.2 Tb/s per direction over its 7 ports (6 torus links and the
//     processor's), 171.4 Gb/s each;
//   - no wire delay (the paper's Clos figures have none: they are exactly
//     2 tr log64(N) + L/b).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "control/analysis/route_sample.h"

namespace fabemu {

struct Table2Options {
  std::vector<int> sizes{576, 2304, 9216, 30720};
  double router_ns = 20.0;   // tr
  int packet_bits = 312;     // L
  double port_gbps = 18.75;  // one YARC port, one direction
  int yarc_ports = 64;       // the router bandwidth held constant: yarc_ports x port_gbps
  int torus_ports = 7;       // ... shared by the torus router's ports
  double wire_ns = 0.0;      // every link, endpoint links included
  std::map<int, std::array<int, 3>> torus_dims;  // shapes by size; default cubic_torus_dims
  uint64_t max_routes = SampleOptions::kDefaultMaxRoutes;
  uint64_t sample_routes = SampleOptions::kDefaultSampleRoutes;
  uint64_t sample_seed = 1;  // which sources are sampled above max_routes
  std::function<void(const std::string& what, const SweepProgress&)> progress;
};

// One network at one size.
struct Table2Network {
  std::string shape;           // "30x32x32" or fat_tree_description()
  double avg_routers = 0;      // routers crossed, mean over distinct pairs
  double latency_us = 0;       // zero-load latency, mean over distinct pairs
  double latency_ci95_us = 0;  // 0 when every route was traced
  bool exact = true;
  double seconds = 0;  // building, programming and tracing (not a figure)
};

struct Table2Row {
  int endpoints = 0;
  Table2Network clos, torus;
  std::optional<double> paper_clos_us, paper_torus_us;
  double clos_formula_us = 0;  // 2 tr log64(N) + L/b: what the paper's Clos column is
};

// "" when the options are fine, else what is wrong and what to do.
std::string table2_options_problem(const Table2Options& opts);

std::vector<Table2Row> run_table2(const Table2Options& opts);

// The paper's Table 2, microseconds, at its four sizes.
std::optional<double> paper_table2_clos_us(int endpoints);
std::optional<double> paper_table2_torus_us(int endpoints);

// Per-direction bandwidth of one torus port with the router's bandwidth held
// at the YARC's.
inline double table2_torus_port_gbps(const Table2Options& o) {
  return o.port_gbps * o.yarc_ports / o.torus_ports;
}

}  // namespace fabemu
