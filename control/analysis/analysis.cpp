#include "control/analysis/analysis.h"

#include <fmt/format.h>
#include <tbb/enumerable_thread_specific.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <utility>

#include "control/analysis/bisection.h"
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

namespace {

// Hops of `path` before the first at a dead router or out of a dead port,
// where its packets are discarded (path.size(): none).
size_t live_hops(const Fabric& f, const std::vector<HopTrace>& path) {
  for (size_t i = 0; i < path.size(); ++i) {
    const FabricRouter& r = f.routers[size_t(path[i].router)];
    if (r.dead || r.ports[path[i].out_port].dead) return i;
  }
  return path.size();
}

bool same_route(const std::vector<HopTrace>& a, const std::vector<HopTrace>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const HopTrace& x, const HopTrace& y) {
                      return x.router == y.router && x.out_port == y.out_port;
                    });
}

// Keeps the n smallest keys, in increasing order.
void keep_smallest(std::vector<uint64_t>& keys, uint64_t key, size_t n) {
  if (keys.size() == n && key >= keys.back()) return;
  keys.insert(std::upper_bound(keys.begin(), keys.end(), key), key);
  if (keys.size() > n) keys.pop_back();
}

// summarize() and, with `healthy`, summarize_degraded().
FabricSummary summarize_fabric(const Spec& spec, const Fabric& fabric, const Fabric* healthy,
                               const SampleOptions& opts, uint32_t packet_units) {
  if (!packet_units) packet_units = static_cast<uint32_t>(std::max(1, spec.packet.header_units));
  FabricSummary s;
  s.routers = static_cast<int>(fabric.routers.size());
  s.endpoints = static_cast<int>(fabric.endpoints.size());
  s.links = count_router_links(fabric);
  s.packet_units = packet_units;

  const std::string& family = spec.topology.family.empty() ? fabric.topology : spec.topology.family;
  if (const TopologyInfo* topo = Registry::get().topology(family); topo && topo->bisection_links)
    s.bisection_links = topo->bisection_links(spec, fabric);
  s.faults.healthy_bisection_links = s.bisection_links;
  const bool dead_parts = has_dead_parts(fabric);
  if (dead_parts) s.bisection_links = live_bisection_links(spec, fabric, s.bisection_links);

  const RoutePathFn trace = make_route_path_tracer(spec, fabric);
  const RouteChoiceFn choices = make_route_choice_tracer(spec, fabric);
  const RoutePathFn healthy_trace = healthy ? make_route_path_tracer(spec, *healthy) : nullptr;
  const uint32_t e = static_cast<uint32_t>(fabric.endpoints.size());
  const RouteSample sample = plan_route_sample(e, opts);
  ChannelDependencyGraph cdg(fabric, /*count_repeats=*/!sample.exact);

  // Sums over one source's row of requests (sampled sources: the means are
  // ratios of these, and their spread gives the intervals); each row is
  // written by the one thread that traces it.
  struct Row {
    uint64_t hops = 0, pairs = 0, latency = 0;
    uint64_t healthy_hops = 0, healthy_pairs = 0;
  };
  std::vector<Row> rows(sample.num_sources());
  struct Acc {
    uint64_t traced = 0, bad = 0, pairs = 0, bad_pairs = 0;
    uint64_t routes_changed = 0, pairs_changed = 0, requests_changed = 0;
    int64_t hops_added = 0;
    int max_hops = 0, healthy_max_hops = 0;
    ps_t max_latency = 0;
    uint64_t first_bad = ~uint64_t{0};  // src * 2e + dst * 2 + cls, smallest wins
    std::vector<uint64_t> bad_pair_keys;  // src * e + dst, the smallest few
    std::vector<HopTrace> path;           // reused: one allocation per thread
    std::vector<HopTrace> choice;         // every adaptive choice's route
    std::vector<HopTrace> healthy_path;   // the healthy tables' route
    std::vector<HopTrace> reached;        // a route up to where a fault discards it
  };
  tbb::enumerable_thread_specific<Acc> acc;
  // Adds a route's dependencies; false when a fault discards its packets
  // (their dependencies up to there are real ones) or the graph refuses it.
  const auto add_route = [&](Acc& a, const std::vector<HopTrace>& p) {
    if (!dead_parts) return cdg.add_path(p);
    const size_t live = live_hops(fabric, p);
    if (live == p.size()) return cdg.add_path(p);
    a.reached.assign(p.begin(), p.begin() + static_cast<ptrdiff_t>(live));
    cdg.add_path(a.reached);
    return false;
  };
  const auto start = std::chrono::steady_clock::now();
  for_each_pair(
      sample, acc,
      [&](Acc& a, uint32_t row, uint32_t src, uint32_t dst) {
        bool pair_bad = false, pair_changed = false;
        ++a.pairs;
        for (TrafficClass cls : {TrafficClass::request, TrafficClass::response}) {
          ++a.traced;
          const bool request = cls == TrafficClass::request;
          const PacketMeta pm = trace_meta(src, dst, packet_units, cls);
          bool routed = trace(pm, a.path) && add_route(a, a.path);
          if (routed && choices)
            routed = choices(pm, a.choice,
                             [&](const std::vector<HopTrace>& p) { routed &= add_route(a, p); }) &&
                     routed;
          int healthy_hops = -1;
          if (healthy_trace && healthy_trace(pm, a.healthy_path)) {
            healthy_hops = static_cast<int>(a.healthy_path.size()) - 1;
            if (request) {
              a.healthy_max_hops = std::max(a.healthy_max_hops, healthy_hops);
              if (row != kRandomPairRow) {
                rows[row].healthy_hops += static_cast<uint64_t>(healthy_hops);
                rows[row].healthy_pairs++;
              }
            }
          }
          if (!routed) {
            ++a.bad;
            pair_bad = true;
            a.first_bad = std::min<uint64_t>(
                a.first_bad, (uint64_t{src} * e + dst) * 2 + static_cast<uint64_t>(cls));
            continue;
          }
          const int hops = static_cast<int>(a.path.size()) - 1;
          if (healthy_hops >= 0 && !same_route(a.path, a.healthy_path)) {
            ++a.routes_changed;
            pair_changed = true;
            if (request) {
              ++a.requests_changed;
              a.hops_added += hops - healthy_hops;
            }
          }
          if (!request) continue;
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
        if (pair_bad) {
          ++a.bad_pairs;
          keep_smallest(a.bad_pair_keys, uint64_t{src} * e + dst, kUnroutableExamples);
        }
        a.pairs_changed += pair_changed && !pair_bad;
      },
      opts.progress);
  s.trace_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  Acc total;
  for (const Acc& a : acc) {
    total.traced += a.traced;
    total.bad += a.bad;
    total.pairs += a.pairs;
    total.bad_pairs += a.bad_pairs;
    total.routes_changed += a.routes_changed;
    total.pairs_changed += a.pairs_changed;
    total.requests_changed += a.requests_changed;
    total.hops_added += a.hops_added;
    total.max_hops = std::max(total.max_hops, a.max_hops);
    total.healthy_max_hops = std::max(total.healthy_max_hops, a.healthy_max_hops);
    total.max_latency = std::max(total.max_latency, a.max_latency);
    total.first_bad = std::min(total.first_bad, a.first_bad);
    for (uint64_t key : a.bad_pair_keys)
      keep_smallest(total.bad_pair_keys, key, kUnroutableExamples);
  }
  // Means: ratios of sums over the traced rows (every row: exact). With
  // self, each source's route to itself adds a pair of 0 hops where its
  // router is alive.
  std::vector<double> hops(rows.size()), pairs(rows.size()), lat(rows.size()), dsts(rows.size()),
      healthy_hops(rows.size()), healthy_pairs(rows.size());
  Row sum;
  for (size_t i = 0; i < rows.size(); ++i) {
    hops[i] = double(rows[i].hops);
    pairs[i] = double(rows[i].pairs);
    lat[i] = double(rows[i].latency);
    healthy_hops[i] = double(rows[i].healthy_hops);
    healthy_pairs[i] = double(rows[i].healthy_pairs);
    const uint32_t src = sample.source(static_cast<uint32_t>(i));
    dsts[i] = dead_parts ? pairs[i] + !fabric.routers[size_t(fabric.endpoints[src].router)].dead
                         : double(e);
    sum.hops += rows[i].hops;
    sum.pairs += rows[i].pairs;
    sum.latency += rows[i].latency;
  }
  const Estimate avg = ratio_estimate(hops, pairs, e);
  const Estimate with_self = ratio_estimate(hops, dsts, e);
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
    s.faults.healthy_capacity =
        4.0 * double(s.faults.healthy_bisection_links) * rate_ratio / double(e);
  }

  const std::vector<Channel> cycle = cdg.find_cycle();
  s.deadlock_free = cycle.empty();
  s.deadlock_cycle = describe_cycle(fabric, cycle);
  s.channels = cdg.num_channels_used();
  s.dependencies = cdg.num_dependencies();
  s.dependencies_seen_once = cdg.num_seen_once();
  s.deadlock_scope = routing_of(spec, fabric).deadlock_scope;
  if (!s.exact && s.deadlock_free)
    if (const RoutingInfo& info = routing_of(spec, fabric); info.prove_deadlock_free)
      if (std::string proof = info.prove_deadlock_free(spec, fabric);
          !proof.empty() && proof.rfind("not proven", 0) != 0)
        s.deadlock_proof = std::move(proof);

  FabricSummary::Faults& f = s.faults;
  f.degraded = healthy != nullptr;
  f.pairs_traced = total.pairs;
  f.unroutable_pairs = total.bad_pairs;
  for (uint64_t key : total.bad_pair_keys)
    f.unroutable_examples.emplace_back(uint32_t(key / e), uint32_t(key % e));
  f.routes_changed = total.routes_changed;
  f.pairs_changed = total.pairs_changed;
  f.requests_changed = total.requests_changed;
  f.hops_added = total.hops_added;
  f.healthy_diameter = total.healthy_max_hops;
  const Estimate healthy_avg = ratio_estimate(healthy_hops, healthy_pairs, e);
  f.healthy_avg_hops = healthy_avg.value;
  f.healthy_avg_hops_ci95 = healthy_avg.ci95;
  return s;
}

}  // namespace

FabricSummary summarize(const Spec& spec, const Fabric& fabric, const SampleOptions& opts,
                        uint32_t packet_units) {
  return summarize_fabric(spec, fabric, nullptr, opts, packet_units);
}

FabricSummary summarize_degraded(const Spec& spec, const Fabric& healthy, const Fabric& degraded,
                                 const SampleOptions& opts, uint32_t packet_units) {
  return summarize_fabric(spec, degraded, &healthy, opts, packet_units);
}

}  // namespace fabemu
