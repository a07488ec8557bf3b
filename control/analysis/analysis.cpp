#include "control/analysis/analysis.h"

#include <fmt/format.h>
#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <utility>

#include "control/analysis/deadlock.h"
#include "control/topology/registry.h"

namespace fabemu {

namespace {

const RoutingInfo& routing_of(const Spec& spec, const Fabric& fabric) {
  const std::string& family = spec.topology.family.empty() ? fabric.topology : spec.topology.family;
  const std::string& routing = spec.routing.empty() ? fabric.routing : spec.routing;
  const RoutingInfo* info = Registry::get().routing(family, routing);
  if (!info || !info->make_tracer)
    throw std::invalid_argument(
        fmt::format("no routing '{}' for topology family '{}'", routing, family));
  return *info;
}

}  // namespace

RouteTraceFn make_route_tracer(const Spec& spec, const Fabric& fabric) {
  return routing_of(spec, fabric).make_tracer(spec, fabric);
}

RoutePathFn make_route_path_tracer(const Spec& spec, const Fabric& fabric) {
  const RoutingInfo& info = routing_of(spec, fabric);
  if (info.make_path_tracer) return info.make_path_tracer(spec, fabric);
  return
      [trace = info.make_tracer(spec, fabric)](const PacketMeta& m, std::vector<HopTrace>& path) {
        path = trace(m);
        return !path.empty();
      };
}

RouteChoiceFn make_route_choice_tracer(const Spec& spec, const Fabric& fabric) {
  const RoutingInfo& info = routing_of(spec, fabric);
  return info.make_choice_tracer ? info.make_choice_tracer(spec, fabric) : RouteChoiceFn{};
}

PacketMeta trace_meta(uint32_t src_ep, uint32_t dst_ep, uint32_t units, TrafficClass cls,
                      uint16_t hash) {
  PacketMeta m{};
  m.src = src_ep;
  m.dst = dst_ep;
  m.units = static_cast<uint16_t>(units);
  m.cls = static_cast<uint8_t>(cls);
  m.hash = hash;
  m.nseg = 1;
  m.flags = kPktLastSegment;
  return m;
}

ps_t path_latency_ps(const Fabric& fabric, uint32_t src_ep, const std::vector<HopTrace>& path,
                     uint32_t units) {
  if (path.empty()) return kNever;
  // Virtual cut-through, as the engine does it: the head leaves a router
  // after its pipeline, but no packet leaves on a faster link before its
  // tail could follow (its tail arrives units x the input's unit time after
  // its head). The latency is when the tail reaches the destination.
  const FabricEndpoint& src = fabric.endpoints[src_ep];
  ps_t head = src.wire_ps;  // the head reaches the next router
  ps_t in_unit = src.unit_ps;
  ps_t tail = head + static_cast<ps_t>(units) * in_unit;
  for (const HopTrace& h : path) {
    const FabricPort& p = fabric.routers[h.router].ports[h.out_port];
    const ps_t serial = static_cast<ps_t>(units) * p.unit_ps;
    const ps_t leave = std::max(head + h.pipeline_ps, tail > serial ? tail - serial : 0);
    head = leave + p.wire_ps;
    tail = leave + serial + p.wire_ps;
  }
  return tail;
}

ps_t zero_load_latency_ps(const Spec& spec, const Fabric& fabric, uint32_t src_ep, uint32_t dst_ep,
                          uint32_t units, TrafficClass cls) {
  const RouteTraceFn trace = make_route_tracer(spec, fabric);
  return path_latency_ps(fabric, src_ep, trace(trace_meta(src_ep, dst_ep, units, cls)), units);
}

int count_router_links(const Fabric& fabric) {
  int n = 0;
  for (const FabricRouter& r : fabric.routers)
    for (const FabricPort& p : r.ports) n += p.peer_router >= 0;
  return n;
}

FabricSummary summarize(const Spec& spec, const Fabric& fabric) {
  return summarize(spec, fabric, SampleOptions{});
}

FabricSummary summarize(const Spec& spec, const Fabric& fabric, uint32_t packet_units) {
  return summarize(spec, fabric, SampleOptions{}, packet_units);
}

FabricSummary summarize(const Spec& spec, const Fabric& fabric, const SampleOptions& opts,
                        uint32_t packet_units) {
  if (!packet_units) packet_units = static_cast<uint32_t>(std::max(1, spec.packet.header_units));
  FabricSummary s;
  s.routers = static_cast<int>(fabric.routers.size());
  s.endpoints = static_cast<int>(fabric.endpoints.size());
  s.links = count_router_links(fabric);
  s.packet_units = packet_units;

  const std::string& family = spec.topology.family.empty() ? fabric.topology : spec.topology.family;
  if (const TopologyInfo* topo = Registry::get().topology(family); topo && topo->bisection_links)
    s.bisection_links = topo->bisection_links(spec, fabric);

  const RoutePathFn trace = make_route_path_tracer(spec, fabric);
  const RouteChoiceFn choices = make_route_choice_tracer(spec, fabric);
  const uint32_t e = static_cast<uint32_t>(fabric.endpoints.size());
  const RouteSample sample = plan_route_sample(e, opts);
  ChannelDependencyGraph cdg(fabric, /*count_repeats=*/!sample.exact);

  // Sums over one source's row of requests (sampled sources: the means are
  // ratios of these, and their spread gives the intervals); each row is
  // written by the one thread that traces it.
  struct Row {
    uint64_t hops = 0, pairs = 0, latency = 0;
  };
  std::vector<Row> rows(sample.num_sources());
  struct Acc {
    uint64_t traced = 0, bad = 0;
    int max_hops = 0;
    ps_t max_latency = 0;
    uint64_t first_bad = ~uint64_t{0};  // src * 2e + dst * 2 + cls, smallest wins
    std::vector<HopTrace> path;         // reused: one allocation per thread
    std::vector<HopTrace> choice;       // every adaptive choice's route
  };
  tbb::enumerable_thread_specific<Acc> acc;
  const auto start = std::chrono::steady_clock::now();
  for_each_pair(
      sample, acc,
      [&](Acc& a, uint32_t row, uint32_t src, uint32_t dst) {
        for (TrafficClass cls : {TrafficClass::request, TrafficClass::response}) {
          ++a.traced;
          const PacketMeta pm = trace_meta(src, dst, packet_units, cls);
          bool routed = trace(pm, a.path) && cdg.add_path(a.path);
          if (routed && choices)
            routed = choices(pm, a.choice,
                             [&](const std::vector<HopTrace>& p) { routed &= cdg.add_path(p); }) &&
                     routed;
          if (!routed) {
            ++a.bad;
            a.first_bad = std::min<uint64_t>(
                a.first_bad, (uint64_t{src} * e + dst) * 2 + static_cast<uint64_t>(cls));
            continue;
          }
          if (cls != TrafficClass::request) continue;
          const int hops = static_cast<int>(a.path.size()) - 1;
          a.max_hops = std::max(a.max_hops, hops);
          // Latencies from the sources' rows only (the random pairs' hops
          // would be cache misses for a lower bound already taken).
          if (row == kRandomPairRow) continue;
          const ps_t lat = path_latency_ps(fabric, src, a.path, packet_units);
          a.max_latency = std::max(a.max_latency, lat);
          Row& r = rows[row];
          r.hops += static_cast<uint64_t>(hops);
          r.pairs++;
          r.latency += lat;
        }
      },
      opts.progress);
  s.trace_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  Acc total;
  for (const Acc& a : acc) {
    total.traced += a.traced;
    total.bad += a.bad;
    total.max_hops = std::max(total.max_hops, a.max_hops);
    total.max_latency = std::max(total.max_latency, a.max_latency);
    total.first_bad = std::min(total.first_bad, a.first_bad);
  }
  // Means: ratios of sums over the traced rows (every row: exact).
  std::vector<double> hops(rows.size()), pairs(rows.size()), lat(rows.size()),
      dsts(rows.size(), double(e));
  Row sum;
  for (size_t i = 0; i < rows.size(); ++i) {
    hops[i] = double(rows[i].hops);
    pairs[i] = double(rows[i].pairs);
    lat[i] = double(rows[i].latency);
    sum.hops += rows[i].hops;
    sum.pairs += rows[i].pairs;
    sum.latency += rows[i].latency;
  }
  const Estimate avg = ratio_estimate(hops, pairs, e);
  const Estimate with_self = ratio_estimate(hops, dsts, e);  // the self pair: 0 hops
  s.diameter = total.max_hops;
  s.avg_hops = avg.value;
  s.avg_hops_ci95 = avg.ci95;
  s.avg_hops_with_self = with_self.value;
  s.avg_hops_with_self_ci95 = with_self.ci95;
  s.zero_load_ps_typical = sum.pairs ? (sum.latency + sum.pairs / 2) / sum.pairs : 0;
  s.zero_load_ps_typical_ci95 = ratio_estimate(lat, pairs, e).ci95;
  s.zero_load_ps_max = total.max_latency;
  s.routes_traced = total.traced;
  s.unroutable = total.bad;
  if (total.bad) {
    const uint64_t cls = total.first_bad % 2, pair = total.first_bad / 2;
    s.first_unroutable =
        fmt::format("{} -> {} ({})", pair / e, pair % e, cls ? "response" : "request");
  }
  s.exact = sample.exact;
  s.routes_all = sample.routes_all;
  s.sampled_sources = sample.exact ? 0 : sample.num_sources();
  s.random_pairs = sample.random_pairs;
  s.seed = sample.seed;

  // Bisection bound: lambda * E / 4 <= B * link_rate / injection_rate.
  ps_t link_unit = 0, inj_unit = 0;
  for (const FabricRouter& r : fabric.routers) {
    for (const FabricPort& p : r.ports)
      if (p.peer_router >= 0) {
        link_unit = p.unit_ps;
        break;
      }
    if (link_unit) break;
  }
  if (!fabric.endpoints.empty()) inj_unit = fabric.endpoints[0].unit_ps;
  const double rate_ratio = (link_unit && inj_unit) ? double(inj_unit) / double(link_unit) : 1.0;
  s.bisection_bound = 1.0;
  if (e > 1 && s.links > 0) {
    s.capacity = 4.0 * double(s.bisection_links) * rate_ratio / double(e);  // 2 (2 B_one_way) / N
    s.bisection_bound = std::min(1.0, s.capacity);
  }

  const std::vector<Channel> cycle = cdg.find_cycle();
  s.deadlock_free = cycle.empty();
  s.deadlock_cycle = describe_cycle(fabric, cycle);
  s.channels = cdg.num_channels_used();
  s.dependencies = cdg.num_dependencies();
  s.dependencies_seen_once = cdg.num_seen_once();
  return s;
}

}  // namespace fabemu
