// A run's links made from its fabric: each indexed by the router output
// (router * max_ports + port) or endpoint it leaves (numbered as
// link_numbering.h numbers them), and a worker's links wired: each output's
// sender with its credits (OutLink, SenderVc) and the input side of the same
// port (InLink), with the channel each ends in (same core or another).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/link/link.h"
#include "dataplane/stats/stats.h"

namespace fabemu {

struct LinkIndex {
  std::vector<LinkStats> links;    // every link, zero counters, in link-id order
  std::vector<uint32_t> out_link;  // global output -> link id (~0u: not connected)
  std::vector<uint32_t> ep_link;   // endpoint -> its injection link's id
};

// Indexes f's links. False, with *err, when an endpoint is not attached to
// the port it names or a router port has no unit time.
bool index_links(const Fabric& f, uint32_t max_ports, LinkIndex* out, std::string* err);

// Where the routers live (sim/placement.h) and the links' buffers.
struct LinkWiring {
  const Fabric* fabric;
  const LinkIndex* index;
  const std::vector<uint16_t>* router_worker;    // global router -> worker
  const std::vector<uint32_t>* router_local;     // global router -> index on its worker
  const std::vector<uint32_t>* vc_buffer_units;  // [vc]: the far input's buffer, in credits
  uint32_t max_ports, nv;
};

// Worker `worker`'s router links (routers: local router -> global id;
// output o = local router * max_ports + port, router/router_shape.h).
// Returns whether some router's inputs are slower than one of its outputs
// (a packet from a slower input must not leave on a faster output before
// its tail has arrived).
bool wire_links(const LinkWiring& lw, int worker, const std::vector<int32_t>& routers,
                std::vector<OutLink>& outputs, std::vector<InLink>& inputs,
                std::vector<SenderVc>& vcs);

}  // namespace fabemu
