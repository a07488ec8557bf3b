// Link-level retry timing of one router-to-router link (go-back-N,
// dataplane/link/go_back_n.h): the round trip a good packet's
// acknowledgement takes, and the sender's time-out, which must not be
// shorter (good packets would be sent again, for ever). The one rule for
// `fabemu check` (control/cli/commands.cpp) and the engine's set-up.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

#include "dataplane/sim/time.h"

namespace fabemu {

struct RetryTiming {
  ps_t round_trip = 0;  // the longest packet's tail arrives; its acknowledgement a wire later
  ps_t timeout = 0;
};

// A link with `wire_ps` latency and `unit_ps` a flow unit, packets of up to
// `max_units`; timeout_ps 0: the round trip plus one longest packet.
inline RetryTiming retry_timing(ps_t wire_ps, ps_t unit_ps, uint32_t max_units, ps_t timeout_ps) {
  const ps_t longest = ps_t{max_units} * unit_ps;
  const ps_t round_trip = 2 * wire_ps + longest;
  return {round_trip, timeout_ps ? timeout_ps : round_trip + longest};
}

// Empty, or why the time-out is too short for the link that leaves router
// `router` by port `port`.
inline std::string retry_timeout_problem(const RetryTiming& t, int32_t router, int32_t port) {
  if (t.timeout >= t.round_trip) return {};
  char text[400];
  std::snprintf(text, sizeof(text),
                "link.retry_timeout_ns (%.6g ns) is shorter than the round trip of the link from "
                "router %d port %d (%.6g ns: twice its wire plus its longest packet), so good "
                "packets would be sent again; raise it to at least that or leave it out (0: "
                "chosen per link)",
                double(t.timeout) / 1e3, router, port, double(t.round_trip) / 1e3);
  return text;
}

}  // namespace fabemu
