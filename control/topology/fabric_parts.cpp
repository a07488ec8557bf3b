#include "control/topology/fabric_parts.h"

#include <cmath>
#include <utility>

#include "dataplane/codec/codec.h"

namespace fabemu {

Fabric fabric_frame(const Spec& spec, std::string name, std::string topology) {
  Fabric f;
  f.name = std::move(name);
  f.topology = std::move(topology);
  f.routing = spec.routing;
  f.num_vcs = spec.vcs.count;
  for (int v = 0; v < kMaxVcs; ++v)
    f.vc_buffer_units[v] = v < f.num_vcs ? static_cast<uint32_t>(spec.vcs.buffer_units) : 0;
  f.lanes = static_cast<uint32_t>(spec.link.lanes);
  f.credit_delay_ps = static_cast<ps_t>(std::llround(spec.link.credit_delay_ns * 1000.0));
  f.lanes_lower_half = spec.link.width_negotiation == "lower_half";
  f.unit_bits = static_cast<uint32_t>(spec.link.phit_bits * spec.link.phits_per_unit);
  f.unit_name = spec.link.phits_per_unit == 1 ? "phit" : "flit";
  // A profile with a codec of its own names its unit (Spider: micropacket).
  const CodecInfo& codec = codec_info(codec_for(spec.profile, spec.topology.family));
  if (!codec.fallback) f.unit_name = std::string(codec.unit);
  return f;
}

void attach_endpoint(Fabric& f, int32_t ep, int32_t router, int port, ps_t unit, ps_t wire,
                     uint8_t label) {
  FabricPort& p = f.routers[router].ports[port];
  p.endpoint = ep;
  p.unit_ps = unit;
  p.wire_ps = wire;
  p.label = label;
  FabricEndpoint& e = f.endpoints[ep];
  e.id = ep;
  e.router = router;
  e.port = static_cast<int16_t>(port);
  e.unit_ps = unit;
  e.wire_ps = wire;
}

FabricPort router_link(int32_t peer_router, int peer_port, ps_t unit, ps_t wire, uint8_t label) {
  FabricPort p;
  p.peer_router = peer_router;
  p.peer_port = static_cast<int16_t>(peer_port);
  p.unit_ps = unit;
  p.wire_ps = wire;
  p.label = label;
  return p;
}

}  // namespace fabemu
