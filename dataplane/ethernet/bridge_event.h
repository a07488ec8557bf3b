// The bridge's event kinds. The engine composes them into the kernel's
// one-byte kind (engine/event_kinds.h); the bridge gets it from its host
// (kind(), bridge.h).
#pragma once
#include <cstdint>

namespace fabemu {

enum class BridgeEvent : uint8_t {
  port_replay,  // a replayed host sends its next frame (a = port binding)
  mac_learn,    // another core learned MAC unit_ps behind endpoint a (real time)
};

}  // namespace fabemu
