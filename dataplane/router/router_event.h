// The router's event kinds: the model's own wake-ups and the routing of a
// head at its arrival. The engine composes them into the kernel's one-byte
// kind (engine/event_kinds.h); a model gets it from its host
// (RouterHost::kind, router_model.h).
#pragma once
#include <cstdint>

namespace fabemu {

enum class RouterEvent : uint8_t {
  out_wake,   // look at a router output again: link free, credits or a requester ready (a = output)
  link_wake,  // switch speedup: an output link looks at its output queues again (a = output)
  tile,       // inside a tiled router: a row bus, column channel or buffer's credits (port = what,
              // a = which; router/yarc_tiled.h)
  route,      // an adaptively routed head reaches its input: route it with the state of now
              // (a = channel)
  // A model's own further kinds (time-outs, aging, ...): model_own + 0..7,
  // each given to the model's on_event like the wake-ups above; the model
  // says what its port and a mean.
  model_own = 8,
};

}  // namespace fabemu
