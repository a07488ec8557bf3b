// Every route of a fabric through its programmed tables, for the topology
// tests that check each one (hop count, order, VCs).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "control/analysis/analysis.h"

namespace fabemu {

// Traces each (source, destination, class) of `f` (19-unit packets) and
// hands the route to check(src, dst, cls, path); an unroutable one fails.
template <class Check>
void for_every_route(const Spec& spec, const Fabric& f, Check&& check) {
  const RouteTraceFn trace = make_route_tracer(spec, f);
  const uint32_t n = static_cast<uint32_t>(f.endpoints.size());
  for (uint32_t s = 0; s < n; ++s)
    for (uint32_t d = 0; d < n; ++d)
      for (TrafficClass cls : {TrafficClass::request, TrafficClass::response}) {
        const std::vector<HopTrace> p = trace(trace_meta(s, d, 19, cls));
        ASSERT_FALSE(p.empty()) << s << " -> " << d;
        check(s, d, cls, p);
      }
}

}  // namespace fabemu
