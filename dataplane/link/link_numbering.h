// How a run numbers its links: every connected router port's outgoing link
// (to a router or, ejection, to an endpoint) in router and port order, then
// every endpoint's injection link in endpoint order. The JSON report's
// `links` array, the link statistics and the capture files' link ids all
// use this numbering, and these names (pcap-tools/FORMAT.md).
#pragma once
#include <string>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

// The links of f with their ends (counters zero), in link-id order.
inline std::vector<LinkStats> number_links(const Fabric& f) {
  std::vector<LinkStats> v;
  for (size_t r = 0; r < f.routers.size(); r++) {
    for (size_t p = 0; p < f.routers[r].ports.size(); p++) {
      const FabricPort& fp = f.routers[r].ports[p];
      if (!fp.connected()) continue;
      LinkStats ls;
      ls.router = static_cast<int32_t>(r);
      ls.port = static_cast<int16_t>(p);
      ls.peer_router = fp.peer_router;
      ls.peer_port = fp.peer_port;
      ls.endpoint = fp.endpoint;
      v.push_back(ls);
    }
  }
  for (size_t e = 0; e < f.endpoints.size(); e++) {
    LinkStats ls;
    ls.router = -1;
    ls.endpoint = static_cast<int32_t>(e);
    ls.peer_router = f.endpoints[e].router;
    ls.peer_port = f.endpoints[e].port;
    v.push_back(ls);
  }
  return v;
}

// "r3.p2>r7.p5" (router to router), "ep4>r1.p0" (injection),
// "r1.p0>ep4" (ejection).
inline std::string link_name(const LinkStats& l) {
  const std::string peer = "r" + std::to_string(l.peer_router) + ".p" + std::to_string(l.peer_port);
  if (l.router < 0) return "ep" + std::to_string(l.endpoint) + ">" + peer;
  const std::string self = "r" + std::to_string(l.router) + ".p" + std::to_string(l.port);
  return self + ">" + (l.peer_router >= 0 ? peer : "ep" + std::to_string(l.endpoint));
}

}  // namespace fabemu
