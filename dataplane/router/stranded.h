// Where packets wait when a run stalled: the router input channels holding
// packets, with what their heads wait for, causes first: heads that could
// have gone (a lost wake-up), then heads waiting for an endpoint's credits
// (a sink that stopped taking), then those waiting behind other routers'
// buffers, then heads not routed.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dataplane/link/credit_counter.h"

namespace fabemu {

class StrandedReport {
 public:
  enum Rank : uint8_t { lost_wake, at_sink, behind, unrouted };
  void add(Rank rank, std::string where, uint32_t packets) {
    found_.emplace_back(rank, std::move(where));
    packets_ += packets;
  }
  // The report: the first few channels by cause; `all`: every packet the
  // run still holds anywhere (the rest are in other buffers or on links).
  std::string text(uint64_t all) const;

 private:
  std::vector<std::pair<Rank, std::string>> found_;
  uint64_t packets_ = 0;
};

// The input channels of a router model's `routers` local routers
// (router/router_model.h). H gives: int32_t router_id(uint32_t lr),
// bool to_endpoint(uint32_t output), const CreditCounter& credits(uint32_t
// output, uint32_t vc).
template <class Router, class H>
void find_stranded(Router& rt, uint32_t routers, uint32_t max_ports, uint32_t nv, H& h,
                   StrandedReport& report) {
  using std::to_string;
  for (uint32_t lr = 0; lr < routers; lr++)
    for (uint32_t p = 0; p < max_ports; p++)
      for (uint32_t v = 0; v < nv; v++) {
        const uint32_t c = rt.channel(lr, p, v), n = rt.len(c);
        if (n == 0) continue;
        std::string at = "router " + to_string(h.router_id(lr)) + " input port " + to_string(p) +
                         " VC " + to_string(v) + ": " + to_string(n) +
                         (n == 1 ? " packet" : " packets");
        const auto& e = rt.head(c);
        if (!e.routed) {
          report.add(StrandedReport::unrouted, at + ", its head not routed", n);
          continue;
        }
        const uint32_t o = rt.output(lr, e.out_port);
        const bool sink = h.to_endpoint(o);
        at += ", its head (" + to_string(e.units) + " units) for output port " +
              to_string(e.out_port) + (sink ? " (an endpoint)" : "");
        if constexpr (Router::kInternalBuffers) {  // it waits for room inside, not for credits
          report.add(sink ? StrandedReport::at_sink : StrandedReport::behind,
                     at + " across the tiles", n);
          continue;
        }
        const CreditCounter& cc = h.credits(o, e.out_vc);
        // With no event left, every credit stream the counter holds comes.
        const bool enough = cc.held() >= e.units;
        at += " VC " + to_string(e.out_vc) + " with " + to_string(cc.held()) + " credits" +
              (enough ? " (enough: a lost wake-up)" : " (short: waiting for credits)");
        report.add(enough ? StrandedReport::lost_wake
                   : sink ? StrandedReport::at_sink
                          : StrandedReport::behind,
                   std::move(at), n);
      }
}

// The VCs the packets that ask output o of model rt for it want (a bit
// each): the arbiter's requesters, none of them granted here and the
// round-robin pointer left where it was (the forward-progress timer's
// question, link/progress_timer.h).
template <class Router>
uint32_t requested_vcs(Router& rt, uint32_t o, uint32_t max_ports, uint32_t nv) {
  uint32_t waiting = 0;
  if (rt.requests(o)) {
    const uint32_t ch0 = (o - o % max_ports) * nv;
    rt.arbitrate(o, [&](uint32_t i) {
      const uint32_t c = ch0 + rt.requester_port(i) * nv + rt.requester_vc(i);
      waiting |= 1u << rt.offered(o, i, c).out_vc;
      return false;
    });
  }
  return waiting;
}

}  // namespace fabemu
