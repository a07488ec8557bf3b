#include "control/analysis/analysis.h"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <map>
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
  const FabricEndpoint& src = fabric.endpoints[src_ep];
  ps_t t = src.wire_ps;
  ps_t unit = src.unit_ps;
  for (const HopTrace& h : path) {
    const FabricPort& p = fabric.routers[h.router].ports[h.out_port];
    t += h.pipeline_ps + p.wire_ps;
    unit = std::max(unit, p.unit_ps);
  }
  return t + static_cast<ps_t>(units) * unit;
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
  return summarize(spec, fabric, static_cast<uint32_t>(std::max(1, spec.packet.header_units)));
}

FabricSummary summarize(const Spec& spec, const Fabric& fabric, uint32_t packet_units) {
  FabricSummary s;
  s.routers = static_cast<int>(fabric.routers.size());
  s.endpoints = static_cast<int>(fabric.endpoints.size());
  s.links = count_router_links(fabric);
  s.packet_units = packet_units;

  const std::string& family = spec.topology.family.empty() ? fabric.topology : spec.topology.family;
  if (const TopologyInfo* topo = Registry::get().topology(family); topo && topo->bisection_links)
    s.bisection_links = topo->bisection_links(spec, fabric);

  const RoutePathFn trace = make_route_path_tracer(spec, fabric);
  ChannelDependencyGraph cdg(fabric);
  const uint32_t e = static_cast<uint32_t>(fabric.endpoints.size());

  struct Acc {
    uint64_t hops = 0, pairs = 0, latency = 0, traced = 0, bad = 0;
    int max_hops = 0;
    ps_t max_latency = 0;
    uint64_t first_bad = ~uint64_t{0};  // src * 2e + dst * 2 + cls, smallest wins
    std::vector<HopTrace> path;         // reused: one allocation per thread
  };
  tbb::enumerable_thread_specific<Acc> acc;
  tbb::parallel_for(
      tbb::blocked_range<uint32_t>(0, e), [&](const tbb::blocked_range<uint32_t>& rg) {
        Acc& a = acc.local();
        for (uint32_t src = rg.begin(); src != rg.end(); ++src)
          for (uint32_t dst = 0; dst < e; ++dst) {
            if (dst == src) continue;
            for (TrafficClass cls : {TrafficClass::request, TrafficClass::response}) {
              std::vector<HopTrace>& p = a.path;
              ++a.traced;
              if (!trace(trace_meta(src, dst, packet_units, cls), p) || !cdg.add_path(p)) {
                ++a.bad;
                a.first_bad = std::min<uint64_t>(
                    a.first_bad, (uint64_t{src} * e + dst) * 2 + static_cast<uint64_t>(cls));
                continue;
              }
              if (cls != TrafficClass::request) continue;
              const int hops = static_cast<int>(p.size()) - 1;
              a.hops += static_cast<uint64_t>(hops);
              a.max_hops = std::max(a.max_hops, hops);
              a.pairs++;
              const ps_t lat = path_latency_ps(fabric, src, p, packet_units);
              a.latency += lat;
              a.max_latency = std::max(a.max_latency, lat);
            }
          }
      });
  Acc total;
  for (const Acc& a : acc) {
    total.hops += a.hops;
    total.pairs += a.pairs;
    total.latency += a.latency;
    total.traced += a.traced;
    total.bad += a.bad;
    total.max_hops = std::max(total.max_hops, a.max_hops);
    total.max_latency = std::max(total.max_latency, a.max_latency);
    total.first_bad = std::min(total.first_bad, a.first_bad);
  }
  s.diameter = total.max_hops;
  s.avg_hops = total.pairs ? double(total.hops) / double(total.pairs) : 0.0;
  s.avg_hops_with_self = e ? double(total.hops) / (double(e) * double(e)) : 0.0;
  s.zero_load_ps_typical = total.pairs ? (total.latency + total.pairs / 2) / total.pairs : 0;
  s.zero_load_ps_max = total.max_latency;
  s.routes_traced = total.traced;
  s.unroutable = total.bad;
  if (total.bad) {
    const uint64_t cls = total.first_bad % 2, pair = total.first_bad / 2;
    s.first_unroutable =
        fmt::format("{} -> {} ({})", pair / e, pair % e, cls ? "response" : "request");
  }

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
  if (e > 1 && s.links > 0)
    s.bisection_bound = std::min(1.0, 4.0 * double(s.bisection_links) * rate_ratio / double(e));

  const std::vector<Channel> cycle = cdg.find_cycle();
  s.deadlock_free = cycle.empty();
  s.deadlock_cycle = describe_cycle(fabric, cycle);
  s.channels = cdg.num_channels_used();
  s.dependencies = cdg.num_dependencies();
  return s;
}

}  // namespace fabemu
