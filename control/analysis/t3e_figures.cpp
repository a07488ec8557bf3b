#include "control/analysis/t3e_figures.h"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "control/analysis/analysis.h"
#include "control/spec/spec_loader.h"
#include "control/topology/registry.h"
#include "dataplane/codec/t3e_flit.h"
#include "dataplane/codec/t3e_packets.h"

namespace fabemu {

namespace {

// Table 4 of the paper, MB/s, in kT3ePacketTypes' order.
struct PaperTable4 {
  double one_way, symmetrical;
};
constexpr std::array<PaperTable4, kT3ePacketTypes.size()> kPaperTable4{
    {{300, 150}, {480, 400}, {150, 100}, {480, 400}}};

}  // namespace

std::vector<std::array<int, 3>> t3e_sizes() {
  return {{2, 2, 2}, {2, 4, 2}, {4, 4, 2},  {4, 4, 4}, {4, 8, 4},
          {8, 8, 4}, {8, 8, 8}, {8, 16, 8}, {8, 32, 8}};
}

std::vector<T3eTable4Row> t3e_table4(double link_peak_mbps) {
  std::vector<T3eTable4Row> rows;
  for (size_t i = 0; i < kT3ePacketTypes.size(); ++i) {
    const T3ePacketType& t = kT3ePacketTypes[i];
    T3eTable4Row r;
    r.type = std::string(t.name);
    r.paper_name = std::string(t.paper);
    r.request_flits = t.request_flits();
    r.response_flits = t.response_flits();
    r.payload_words = t.payload_words();
    // One-way: the link carries only the packets that hold the words (a
    // Get's responses, a Put's requests), their other half going the other
    // way; symmetrical: both, a word per flit at the link's peak.
    const uint32_t carrier = t.request_words ? r.request_flits : r.response_flits;
    r.one_way_efficiency = double(t.payload_words()) / carrier;
    r.symmetrical_efficiency = double(t.payload_words()) / (r.request_flits + r.response_flits);
    r.one_way_mbps = link_peak_mbps * r.one_way_efficiency;
    r.symmetrical_mbps = link_peak_mbps * r.symmetrical_efficiency;
    r.paper_one_way_mbps = kPaperTable4[i].one_way;
    r.paper_symmetrical_mbps = kPaperTable4[i].symmetrical;
    rows.push_back(r);
  }
  return rows;
}

T3eFigures run_t3e_figures(const std::vector<std::array<int, 3>>& dims_given) {
  const std::vector<std::array<int, 3>> all = dims_given.empty() ? t3e_sizes() : dims_given;
  const TopologyInfo& torus = *Registry::get().topology("torus");
  T3eFigures out;
  for (const std::array<int, 3>& dims : all) {
    Spec spec = profile_defaults("t3e");
    spec.topology.dims = dims;
    const Fabric f = torus.build(spec);
    const uint32_t n = static_cast<uint32_t>(f.endpoints.size());
    if (n < 2) throw std::invalid_argument("a T3E of one node has no routes");
    // The link's peak: one 64-bit word per flit time (70 bits at 14 x 375
    // Mb/s: 13.3 ns, 600 MB/s).
    out.flit_ns = double(f.endpoints[0].unit_ps) / 1000.0;
    out.link_peak_mbps = kT3eWordBytes * 1000.0 / out.flit_ns;

    T3eSizeRow row;
    row.nodes = static_cast<int>(n);
    row.dims = dims;
    // Figure 7: the fall-through of every router crossed, Table 2's
    // (pipeline + the wire it leaves on), traced for every ordered pair.
    const RoutePathFn trace = make_route_path_tracer(spec, f);
    std::vector<uint64_t> sum_ps(n, 0), max_ps(n, 0), hops(n, 0);
    std::vector<uint8_t> bad(n, 0);
    tbb::parallel_for(
        tbb::blocked_range<uint32_t>(0, n), [&](const tbb::blocked_range<uint32_t>& r) {
          std::vector<HopTrace> path;
          for (uint32_t src = r.begin(); src < r.end(); ++src)
            for (uint32_t dst = 0; dst < n; ++dst) {
              if (dst == src) continue;
              if (!trace(trace_meta(src, dst, 1, TrafficClass::request), path)) {
                bad[src] = 1;
                continue;
              }
              uint64_t one_way = 0;
              for (const HopTrace& h : path)
                one_way += h.pipeline_ps + f.routers[h.router].ports[h.out_port].wire_ps;
              sum_ps[src] += one_way;
              max_ps[src] = std::max(max_ps[src], one_way);
              hops[src] += path.size() - 1;
            }
        });
    if (std::count(bad.begin(), bad.end(), 1))
      throw std::runtime_error(
          fmt::format("T3E {}x{}x{}: some routes were unroutable", dims[0], dims[1], dims[2]));
    const double pairs = double(n) * (n - 1);
    double sum = 0, hop_sum = 0;
    uint64_t mx = 0;
    for (uint32_t s = 0; s < n; ++s) {
      sum += double(sum_ps[s]);
      hop_sum += double(hops[s]);
      mx = std::max(mx, max_ps[s]);
    }
    row.avg_hops = hop_sum / pairs;
    row.avg_round_trip_ns = 2 * sum / pairs / 1000.0;
    row.max_round_trip_ns = 2 * double(mx) / 1000.0;

    // Figure 8.
    row.bisection_links = torus.bisection_links(spec, f);
    row.bisection_gbps = 2.0 * double(row.bisection_links) * out.link_peak_mbps / 1000.0;
    row.network_limit_mbps = 2.0 * row.bisection_gbps * 1000.0 / n;
    row.port_limit_mbps = out.link_peak_mbps * n / (n - 1);
    row.per_processor_mbps = std::min(row.network_limit_mbps, row.port_limit_mbps);
    const double ratio = row.network_limit_mbps / row.port_limit_mbps;
    row.bottleneck = std::abs(ratio - 1) <= 0.01 ? "both" : ratio < 1 ? "links" : "port";
    out.sizes.push_back(row);
  }
  if (out.link_peak_mbps == 0) {  // no sizes: the default fabric's link
    Spec spec = profile_defaults("t3e");
    const Fabric f = torus.build(spec);
    out.flit_ns = double(f.endpoints[0].unit_ps) / 1000.0;
    out.link_peak_mbps = kT3eWordBytes * 1000.0 / out.flit_ns;
  }
  out.table4 = t3e_table4(out.link_peak_mbps);
  return out;
}

}  // namespace fabemu
