// The kernel's event kind (sim/event.h: one byte it does not read) as the
// engine composes it of the components' own kinds: the component in the
// high four bits, its kind in the low four. Dispatch stays one switch on
// the byte (engine_hop.h); each component gets its kinds through its host,
// whose kind() is event_kind() below.
#pragma once
#include <cstdint>

#include "dataplane/barrier/barrier_network.h"
#include "dataplane/endpoint/endpoint_event.h"
#include "dataplane/ethernet/bridge_event.h"
#include "dataplane/link/link_event.h"
#include "dataplane/router/router_event.h"
#include "dataplane/sim/event.h"

namespace fabemu {

enum class EventOwner : uint8_t { router, link, endpoint, bridge, barrier };

constexpr EventKind compose_kind(EventOwner owner, uint8_t own) {
  return static_cast<EventKind>(static_cast<uint8_t>(owner) << 4 | own);
}
constexpr EventOwner owner_of(EventKind k) { return static_cast<EventOwner>(k >> 4); }
constexpr EventKind event_kind(RouterEvent k) {
  return compose_kind(EventOwner::router, static_cast<uint8_t>(k));
}
constexpr EventKind event_kind(LinkEvent k) {
  return compose_kind(EventOwner::link, static_cast<uint8_t>(k));
}
constexpr EventKind event_kind(EndpointEvent k) {
  return compose_kind(EventOwner::endpoint, static_cast<uint8_t>(k));
}
constexpr EventKind event_kind(BridgeEvent k) {
  return compose_kind(EventOwner::bridge, static_cast<uint8_t>(k));
}
constexpr EventKind event_kind(BarrierEvent k) {
  return compose_kind(EventOwner::barrier, static_cast<uint8_t>(k));
}

}  // namespace fabemu
