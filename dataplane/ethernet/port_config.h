// The bridge's configuration: the port-bound endpoints as control/ resolved
// them (EngineConfig derives from BridgeConfig).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/ethernet/replay.h"

namespace fabemu {

// A port-bound endpoint as the engine sees it: control/ has opened the DPDK
// port (dataplane/ethernet/eth_port.h) and resolved the spec's binding.
struct PortEndpointConfig {
  std::string name;           // label in reports
  std::string device;         // as the spec gave it
  uint16_t port_id = 0;       // DPDK port to poll and transmit on
  uint32_t endpoint = 0;      // fabric endpoint the frames enter and leave at
  uint16_t vlan = 0;          // 0: untagged; else only frames of this 802.1Q VLAN
  std::vector<uint64_t> macs; // pinned MAC addresses (48-bit, network order in the low bytes)
  uint32_t queue_frames = 64; // ingress queue bound (frames)
  uint32_t max_frame_bytes = 1514;  // untagged frame limit: port MTU + Ethernet header
  // A replayed host (no DPDK port): its frames, sent at their recorded
  // times divided by replay_speed, replay_loops times (0: until the end).
  std::shared_ptr<const ReplayTrace> replay;
  double replay_speed = 1.0;
  uint32_t replay_loops = 1;
};

struct BridgeConfig {
  double mac_aging_s = 300;
  std::vector<PortEndpointConfig> ports;
};

}  // namespace fabemu
