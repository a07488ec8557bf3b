// The endpoints' event kinds. The engine composes them into the kernel's
// one-byte kind (engine/event_kinds.h); the endpoints get it from their
// host (kind(), endpoints.h).
#pragma once
#include <cstdint>

namespace fabemu {

enum class EndpointEvent : uint8_t {
  generate,  // an endpoint's traffic source produces its next message (a = endpoint)
  wake,      // an endpoint's injection link may send again (a = endpoint)
  deliver,   // the tail of a packet reaches its destination endpoint (a = endpoint, m)
  join,      // a processor ends its phase: it joins the phase's barrier (a = endpoint; phases.h)
};

}  // namespace fabemu
