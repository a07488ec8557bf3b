// A router model: the behaviour of the routers one worker owns, behind one
// small set of operations (RouterModel below) that the engine calls, and a
// narrow host (RouterHost) of the services a router may use. A model owns
// its allocation: when a routed packet may cross, which requester an output
// grants, what waits for credits. The engine routes (the routing policy and
// selection) and moves packets over links; it never looks inside a model.
//
// The model is chosen once per run at compile time: the routing policy R
// may name one (R::RouterModel); without it the input-queued router.
// OnRouter<Policy, Model> gives a policy another model without changing
// its routing, so that one routing has an engine instance per model.
//
// Light on purpose: the build's engine table (CMakeLists.txt) and tests
// name engine instances with these types without the router headers.
#pragma once
#include <concepts>
#include <cstdint>
#include <string>
#include <utility>

#include "dataplane/router/router_event.h"
#include "dataplane/sim/event.h"
#include "dataplane/sim/time.h"

struct rte_mbuf;

namespace fabemu {

struct QEntry;
struct RouteCandidates;
struct RunStats;
struct OutLink;
struct InLink;
struct SenderVc;
struct RouterShape;  // router/router_shape.h
struct RoutedHead;   // router/router_shape.h
class CreditCounter;
enum class DropReason : uint8_t;  // stats/stats.h

// The services of the engine a router model may use, for one worker. Every
// call inlines (the host is a template argument, never a virtual base).
template <class H>
concept RouterHost = requires(H& h, const H& ch, const Event& ev, uint32_t i, uint32_t units,
                              uint8_t vc, ps_t t, ps_t* until, rte_mbuf* m, bool* withhold,
                              DropReason why) {
  { ch.now() } -> std::same_as<ps_t>;
  h.schedule(ev);                                  // an event of the model's own, at ev.t
  { H::kind(RouterEvent::out_wake) } -> std::same_as<EventKind>;  // as the run numbers its kinds
  { ch.cycle_ps() } -> std::same_as<ps_t>;         // a synchronous allocator's cycle
  { h.out(i) } -> std::same_as<OutLink&>;          // output i's link: free_ps, unit_ps, counters
  { ch.in(i) } -> std::same_as<const InLink&>;     // the link into input i (numbered like outputs)
  { ch.vcs(i) } -> std::same_as<const SenderVc*>;  // output i's credits, one per VC
  h.route_head(i, t);  // the new head of input channel i is routed (ready no sooner than t)
  h.route_units(i, vc, units);  // units routed to output i's VC and not yet sent
  h.unroute_units(i, vc, units);
  h.take_link(i, units, vc);         // output i's link starts sending a packet now
  h.deliver(i, i, m, units, vc);     // ... which reaches the far end (local router, output, ...)
  h.deliver(i, i, m, units, vc, t);  // ... t later (a crossbar stage past the switch)
  h.return_credits(i, units, t, t);  // input channel i's units leave its buffer (first, every)
  h.left_input(i, i, m, units);      // input channel i's packet leaves for output i (two-hop
                                     // recovery's ack; the input-queued models call it)
  { ch.discards(i) } -> std::same_as<bool>;  // what output i takes is discarded (a fault)
  { ch.link_dead(i) } -> std::same_as<bool>;
  { ch.progress_timed_out(i) } -> std::same_as<bool>;
  h.discard_at_output(i, m, units, vc);
  h.discard(why, m);  // a message the model itself discards (a time-out), counted with why
  { h.retry_window_full(i, until) } -> std::same_as<bool>;  // link-level retry's window
  { h.damaged_head(i, withhold) } -> std::same_as<bool>;    // ... a damaged head (true: excised)
};

// The operations every router model has, for a host H. A model takes the
// packets that arrive (arrive) and decides when each is routed: at the head
// of its input FIFO (input-queued models), or at once where a model keeps a
// list per output; it routes one through its host (route_head). It owns its
// buffers; the input FIFOs are InputQueuedBuffers' (faults and link-level
// retry remove packets from them).
template <class M, class H>
concept RouterModel = RouterHost<H> &&
    requires(M& m, const M& cm, H& h, const RouterShape& shape, const RoutedHead& at, uint32_t i,
             ps_t t, const Event& ev, QEntry& e, const RouteCandidates& rc, const CreditCounter& cc,
             void (*lost)(rte_mbuf*, uint32_t, uint8_t, uint32_t), void (*each)(rte_mbuf*)) {
  m.init(shape);
  m.set_link_units(i, t, t);          // unit times of the links into and out of port i
  m.arrive(h, i, e, true);            // packet e enters input channel i (late: from another core)
  m.head_routed(h, at, e, rc, t, t);  // input channel i's head has its output (ready, not before)
  m.arm_output(h, i, t);              // output i must look again at t
  m.on_event(h, ev);                  // one of the model's own events
  m.withdraw_head(i, i);              // output i's routed head of channel i leaves uncrossed
  { cm.requests(i) } -> std::convertible_to<uint32_t>;  // heads waiting for output i
  m.offered(i, i, i);             // what requester i of output i offers (progress timer)
  m.credits_back(h, i, i, cc);    // credits for output i's VC reached its counter
  m.output_dead(h, i);            // output i's link died: what waits there goes now
  m.link_ready(h, i, t);          // output i's link can take a packet from t
  m.flush_inside(h, i, lost);     // router i stopped: what is inside it is lost
  m.flush_output(h, i, i, lost);  // ... and what waits at its output i's VC
  m.for_each_packet(each);
  // Link-level retry: the last packet to enter channel i leaves as if it had
  // not come (a damaged copy); the packet i sends now if it came last.
  { m.remove_last(h, i) } -> std::same_as<rte_mbuf*>;
  { m.sending_last(i) } -> std::same_as<QEntry*>;
  m.add_counters(std::declval<RunStats&>());
  { cm.check_inside() } -> std::convertible_to<std::string>;  // "" when credits add up
  { M::earliest_credit(t, t) } -> std::same_as<ps_t>;  // credits leave at most this after arrival
  { M::kChoosesAdaptively } -> std::convertible_to<bool>;  // it selects among adaptive candidates
  { M::kLazySnapshot } -> std::convertible_to<bool>;       // greedy selection on a lazy snapshot
  { M::kInternalBuffers } -> std::convertible_to<bool>;  // heads wait for room inside, not credits
};

class InputQueuedRouter;  // router/input_queued.h
class YarcTiledRouter;    // router/yarc_tiled.h
class IslipRouter;        // router/input_queued_islip.h

template <class R>
struct RouterModelOf {
  using type = InputQueuedRouter;
};
template <class R>
requires requires { typename R::RouterModel; }
struct RouterModelOf<R> {
  using type = typename R::RouterModel;
};

template <class Policy, class Model>
struct OnRouter : Policy {
  using RouterModel = Model;
};

// The YARC tiled router (router/yarc_tiled.h) under a YARC routing.
template <class Policy>
using OnYarcTiles = OnRouter<Policy, YarcTiledRouter>;

// The input-queued router with BookSim's cycle-synchronous VC and switch
// allocation (router.switch_allocator: islip).
template <class Policy>
using OnIslip = OnRouter<Policy, IslipRouter>;

}  // namespace fabemu
