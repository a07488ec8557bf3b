// A run's links from its fabric (link_wiring.h).
#include "dataplane/link/link_wiring.h"

#include <algorithm>

#include "dataplane/link/link_channel.h"
#include "dataplane/link/link_numbering.h"

namespace fabemu {

bool index_links(const Fabric& f, uint32_t max_ports, LinkIndex* out, std::string* err) {
  out->links = number_links(f);  // link_numbering.h
  out->out_link.assign(f.routers.size() * max_ports, ~0u);
  out->ep_link.assign(f.endpoints.size(), 0);
  for (uint32_t l = 0; l < out->links.size(); l++) {
    const LinkStats& ls = out->links[l];
    if (ls.router < 0) {
      const uint32_t e = static_cast<uint32_t>(ls.endpoint);
      const FabricEndpoint& fe = f.endpoints[e];
      if (fe.router < 0 || static_cast<uint32_t>(fe.router) >= f.routers.size() || fe.port < 0 ||
          static_cast<uint32_t>(fe.port) >= f.routers[fe.router].ports.size() ||
          f.routers[fe.router].ports[fe.port].endpoint != static_cast<int32_t>(e)) {
        *err = "endpoint " + std::to_string(e) + " is not attached to the router port it names";
        return false;
      }
      out->ep_link[e] = l;
      continue;
    }
    const uint32_t r = static_cast<uint32_t>(ls.router), p = static_cast<uint32_t>(ls.port);
    const FabricPort& fp = f.routers[r].ports[p];
    if (fp.unit_ps == 0) {
      *err = "router " + std::to_string(r) + " port " + std::to_string(p) +
             " has a zero unit time (link rate missing)";
      return false;
    }
    out->out_link[size_t(r) * max_ports + p] = l;
  }
  return true;
}

bool wire_links(const LinkWiring& lw, int worker, const std::vector<int32_t>& routers,
                std::vector<OutLink>& outputs, std::vector<InLink>& inputs,
                std::vector<SenderVc>& vcs) {
  const Fabric& f = *lw.fabric;
  const std::vector<uint16_t>& router_worker = *lw.router_worker;
  const std::vector<uint32_t>& router_local = *lw.router_local;
  const uint32_t max_ports = lw.max_ports, nv = lw.nv;
  const uint32_t nlr = static_cast<uint32_t>(routers.size());
  const size_t nout = size_t(nlr) * max_ports;
  outputs.assign(nout, OutLink{});
  inputs.assign(nout, InLink{});
  vcs.assign(nout * nv, SenderVc{});
  bool mixed = false;
  for (uint32_t lr = 0; lr < nlr; lr++) {
    const uint32_t r = static_cast<uint32_t>(routers[lr]);
    for (uint32_t p = 0; p < f.routers[r].ports.size(); p++) {
      const FabricPort& fp = f.routers[r].ports[p];
      if (!fp.connected()) continue;
      const uint32_t o = lr * max_ports + p;
      OutLink& ol = outputs[o];
      ol.unit_ps = fp.unit_ps;
      ol.wire_ps = fp.wire_ps;
      ol.peer_router = fp.peer_router;
      ol.peer_port = static_cast<uint16_t>(fp.peer_port < 0 ? 0 : fp.peer_port);
      ol.peer_endpoint = fp.endpoint;
      ol.peer_worker = fp.peer_router >= 0 ? router_worker[fp.peer_router] : worker;
      ol.channel = channel_kind(worker, ol.peer_worker);
      if (fp.peer_router >= 0)
        ol.peer_channel0 = (router_local[fp.peer_router] * max_ports + ol.peer_port) * nv;
      ol.stats = lw.index->out_link[size_t(r) * max_ports + p];
      for (uint32_t v = 0; v < nv; v++)
        vcs[size_t(o) * nv + v].credits = CreditCounter((*lw.vc_buffer_units)[v]);
      // The input side of the same port: where its credits go back to.
      InLink& in = inputs[o];
      if (fp.endpoint >= 0) {
        in.up_endpoint = fp.endpoint;
        in.up_wire_ps = f.endpoints[fp.endpoint].wire_ps + f.credit_delay_ps;
        in.unit_ps = f.endpoints[fp.endpoint].unit_ps;
        in.stats = lw.index->ep_link[fp.endpoint];
      } else if (fp.peer_router >= 0) {
        in.up_router = fp.peer_router;
        in.up_port = static_cast<uint16_t>(fp.peer_port);
        in.up_worker = router_worker[fp.peer_router];
        in.channel = channel_kind(worker, in.up_worker);
        in.up_output = router_local[fp.peer_router] * max_ports + in.up_port;
        in.up_wire_ps = f.routers[fp.peer_router].ports[fp.peer_port].wire_ps + f.credit_delay_ps;
        in.unit_ps = f.routers[fp.peer_router].ports[fp.peer_port].unit_ps;
        in.stats = lw.index->out_link[size_t(fp.peer_router) * max_ports + fp.peer_port];
      }
    }
    // Links of several rates at one router (link.router_rate).
    ps_t in_max = 0, out_min = kNever;
    for (uint32_t p = 0; p < f.routers[r].ports.size(); p++) {
      if (!f.routers[r].ports[p].connected()) continue;
      const uint32_t o = lr * max_ports + p;
      in_max = std::max(in_max, inputs[o].unit_ps);
      out_min = std::min(out_min, outputs[o].unit_ps);
    }
    if (in_max > out_min) mixed = true;
  }
  return mixed;
}

}  // namespace fabemu
