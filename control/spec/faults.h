// What a fault names (spec `faults`; the same text without its time is what a
// running process will take from a control socket, not built yet):
//
//   TIME TARGET WHAT        in the spec: at emulated TIME (20us, 1500ns, 2ms)
//   TARGET WHAT             while running: now (parse_fault with_time = false)
//
//   TARGET  link=rR:pP      the link at router R's port P, both directions
//           link=rR:pP lane=L   lane L of that link (0 to link.lanes - 1), both
//                           directions (dataplane/link/lanes.h)
//           router=R        router R, every link into and out of it
//           endpoint=E      endpoint E (its sink)
//   WHAT    down | up       dead (all lanes) or back; a lane: out of service
//                           (the link runs narrower; its last lane takes the
//                           link down) or back
//           ber=X           bit errors at rate X on the link, or on the bits
//                           that cross the lane (link.retry on)
//           stop | start    the endpoint stops accepting packets, or accepts
//                           again (BlackWidow 7.7: a processor that stops
//                           accepting, which router.forward_progress_ns catches)
//
// Parsed here for the spec's syntax check; resolved against the fabric (the
// router and port exist, the port is a router-to-router link) by
// control/run/fault_plan.h. The papers' behaviour: BlackWidow §7.7 (a dead
// link's sender discards what is bound for it; system software reprograms
// the up-routing tables around the fault's shadow), T3E §2 and §9 (routes
// that avoid the link, adaptivity disabled).
#pragma once
#include <string>

#include "dataplane/sim/time.h"

namespace fabemu {

struct FaultSpec {
  ps_t at = 0;  // emulated time (spec); the control socket: now
  enum class Target { link, router, endpoint } target = Target::link;
  int router = -1, port = -1, endpoint = -1;
  int lane = -1;  // a link's lane; -1: the whole link
  enum class Kind { down, up, ber, stop, start } kind = Kind::down;
  double ber = 0;
  std::string text;  // as written, for messages and reports
};

// False with *why saying what is wrong and what is accepted. with_time: the
// text starts with its emulated time (the spec's form).
bool parse_fault(const std::string& text, bool with_time, FaultSpec* fault, std::string* why);

// An emulated time as a fault gives it ("20us", "1500ns", "2ms", "0"):
// false when `text` is none.
bool parse_emulated_time(const std::string& text, ps_t* at);

// The grammar, for help texts and messages.
inline constexpr const char* kFaultForms =
    "TIME TARGET WHAT, e.g. \"20us link=r0:p33 down\", \"50us link=r0:p33 up\", \"10us router=5 "
    "down\", \"0ns link=r2:p1 ber=1e-5\", \"5us link=r0:p33 lane=1 down\", \"0ns link=r0:p33 "
    "lane=0 ber=1e-4\", \"5us endpoint=7 stop\" (TIME in ns, us or ms; TARGET link=rR:pP, "
    "link=rR:pP lane=L, router=R or endpoint=E; WHAT down, up or ber=X, for an endpoint stop or "
    "start)";

}  // namespace fabemu
