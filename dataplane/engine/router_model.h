// Which router model an Engine<R> runs, chosen once per run at compile
// time: the routing policy R may name one (R::RouterModel); without it the
// input-queued router (router/input_queued.h). OnRouter<Policy, Model>
// gives a policy another model without changing its routing, so that one
// routing has an engine instance per router model (engine/instances/).
//
// Light on purpose: control/ names engine instances with these types
// without the router headers (the engine includes them).
#pragma once

namespace fabemu {

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
