#include "control/analysis/table2.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "control/analysis/analysis.h"
#include "control/analysis/fat_tree_model.h"
#include "control/analysis/table4.h"
#include "control/spec/spec_loader.h"
#include "control/topology/registry.h"

namespace fabemu {

namespace {

constexpr int kMinEndpoints = 64;
constexpr double kYarcRadix = 64;

struct PaperRow {
  int endpoints;
  double torus_us, clos_us;
};
constexpr PaperRow kPaper[] = {
    {576, 0.144, 0.078}, {2304, 0.210, 0.091}, {9216, 0.326, 0.104}, {30720, 0.484, 0.116}};

// The spec's link as one port of `gbps`, each packet one flow unit of L
// bits (serialized once in L / b, exactly), `wire_ns` on every link.
void set_technology(Spec& s, const Table2Options& o, double gbps) {
  s.link.lanes = 1;
  s.link.lane_gbps = gbps;
  s.link.coding = 1.0;
  s.link.phit_bits = o.packet_bits;
  s.link.phits_per_unit = 1;
  s.link.router_rate = 1.0;
  s.link.wire_ns = o.wire_ns;
}

Table2Network measure(const Spec& spec, const Fabric& f, const Table2Options& o,
                      const std::string& what, std::chrono::steady_clock::time_point t0) {
  SampleOptions sample;
  sample.max_routes = o.max_routes;
  sample.sample_routes = o.sample_routes;
  sample.seed = o.sample_seed;
  if (o.progress)
    sample.progress = [fn = o.progress, what](const SweepProgress& p) { fn(what, p); };
  const FabricSummary sum = summarize(spec, f, sample, 1);
  if (sum.unroutable)
    throw std::runtime_error(fmt::format("{}: {} routes unroutable (first {})", what,
                                         sum.unroutable, sum.first_unroutable));
  Table2Network n;
  n.avg_routers = sum.avg_hops + 1;
  n.latency_us = double(sum.zero_load_ps_typical) / 1e6;
  n.latency_ci95_us = sum.exact ? 0 : sum.zero_load_ps_typical_ci95 / 1e6;
  n.exact = sum.exact;
  n.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return n;
}

Table2Network clos(int e, const Table2Options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  Spec spec = fat_tree_spec(profile_defaults("yarc"), e);
  set_technology(spec, o, o.port_gbps);
  spec.router.latency_ns = o.router_ns;
  const Fabric f = build_fat_tree(spec, e);
  Table2Network n = measure(spec, f, o, fmt::format("clos {}", e), t0);
  n.shape = fat_tree_description(e);
  return n;
}

Table2Network torus(int e, const Table2Options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto it = o.torus_dims.find(e);
  const std::array<int, 3> dims = it != o.torus_dims.end() ? it->second : *cubic_torus_dims(e);
  Spec spec = profile_defaults("t3e");
  spec.topology.dims = dims;
  set_technology(spec, o, table2_torus_port_gbps(o));
  // BlackWidow technology: the same router delay straight, turning and at
  // the ends (the T3E's own fall-through times are not this technology's).
  spec.router.straight_ns = spec.router.turn_ns = spec.router.endpoint_ns = o.router_ns;
  const Fabric f = Registry::get().topology("torus")->build(spec);
  const std::string shape = fmt::format("{}x{}x{}", dims[0], dims[1], dims[2]);
  Table2Network n = measure(spec, f, o, "torus " + shape, t0);
  n.shape = shape;
  return n;
}

}  // namespace

std::optional<double> paper_table2_clos_us(int endpoints) {
  for (const PaperRow& r : kPaper)
    if (r.endpoints == endpoints) return r.clos_us;
  return std::nullopt;
}

std::optional<double> paper_table2_torus_us(int endpoints) {
  for (const PaperRow& r : kPaper)
    if (r.endpoints == endpoints) return r.torus_us;
  return std::nullopt;
}

std::string table2_options_problem(const Table2Options& o) {
  if (o.sizes.empty()) return "--sizes is empty: give at least one size, e.g. --sizes 576";
  for (int n : o.sizes) {
    if (n < kMinEndpoints || n > kFatTreeMaxEndpoints)
      return fmt::format("size {} is out of range: give {} to {} endpoints", n, kMinEndpoints,
                         kFatTreeMaxEndpoints);
    if (!o.torus_dims.count(n) && !cubic_torus_dims(n))
      return fmt::format(
          "size {} has no 3-D torus shape with every side at least 2: give its "
          "shape with --torus-dims {}=KXxKYxKZ or another size",
          n, n);
  }
  for (const auto& [n, d] : o.torus_dims) {
    if (d[0] < 2 || d[1] < 2 || d[2] < 2 || d[0] > 255 || d[1] > 255 || d[2] > 255)
      return fmt::format("--torus-dims {}={}x{}x{}: each side must be 2 to 255", n, d[0], d[1],
                         d[2]);
    if (d[0] * d[1] * d[2] != n)
      return fmt::format(
          "--torus-dims {}={}x{}x{} has {} routers, not {}: give sides whose "
          "product is the size",
          n, d[0], d[1], d[2], d[0] * d[1] * d[2], n);
  }
  if (!(o.router_ns > 0 && o.router_ns <= 1e6))
    return "--router-ns must be above 0 and at most 1e6";
  if (o.packet_bits < 1 || o.packet_bits > 1 << 20) return "--packet-bits must be 1 to 1048576";
  if (!(o.wire_ns >= 0 && o.wire_ns <= 1e6)) return "--wire-ns must be 0 to 1e6";
  if (!(o.port_gbps > 0 && o.port_gbps <= 1e5)) return "the port bandwidth must be above 0";
  return "";
}

std::vector<Table2Row> run_table2(const Table2Options& o) {
  std::vector<Table2Row> rows;
  for (int e : o.sizes) {
    Table2Row r;
    r.endpoints = e;
    r.clos = clos(e, o);
    r.torus = torus(e, o);
    r.paper_clos_us = paper_table2_clos_us(e);
    r.paper_torus_us = paper_table2_torus_us(e);
    r.clos_formula_us = (2 * o.router_ns * std::log(double(e)) / std::log(kYarcRadix) +
                         o.packet_bits / o.port_gbps) /
                        1e3;
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace fabemu
