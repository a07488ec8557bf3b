#include "control/topology/slices.h"

#include <fmt/format.h>

#include <stdexcept>

namespace fabemu {

Fabric replicate_slices(Fabric one, uint32_t slices) {
  if (one.slices != 1)
    throw std::invalid_argument(
        fmt::format("replicate_slices: the fabric already has {} slices", one.slices));
  if (slices == 0 || slices > kMaxSlices)
    throw std::invalid_argument(
        fmt::format("topology.slices is {}: give 1 to {} network slices", slices, kMaxSlices));
  const auto R = static_cast<int32_t>(one.routers.size());
  const auto P = static_cast<int32_t>(one.endpoints.size());
  one.slice_routers = static_cast<uint32_t>(R);
  one.slice_endpoints = static_cast<uint32_t>(P);
  if (slices == 1) return one;
  Fabric f = std::move(one);
  f.routers.reserve(size_t(R) * slices);
  f.endpoints.reserve(size_t(P) * slices);
  for (uint32_t s = 1; s < slices; s++) {
    const int32_t dr = static_cast<int32_t>(s) * R, de = static_cast<int32_t>(s) * P;
    for (int32_t r = 0; r < R; r++) {
      FabricRouter copy = f.routers[size_t(r)];
      copy.id += dr;
      for (FabricPort& p : copy.ports) {
        if (p.peer_router >= 0) p.peer_router += dr;
        if (p.endpoint >= 0) p.endpoint += de;
      }
      f.routers.push_back(std::move(copy));
    }
    for (int32_t e = 0; e < P; e++) {
      FabricEndpoint copy = f.endpoints[size_t(e)];
      copy.id += de;
      copy.router += dr;
      f.endpoints.push_back(copy);
    }
  }
  f.slices = slices;
  return f;
}

Fabric first_slice(const Fabric& sliced) {
  Fabric f = sliced;  // every field, then the copies off
  if (sliced.slices <= 1) return f;
  f.routers.resize(sliced.slice_routers);
  f.endpoints.resize(sliced.processors());
  f.slices = 1;
  return f;
}

}  // namespace fabemu
