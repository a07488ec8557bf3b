// In-process DPDK ports for tests: rte_eth_from_rings gives an ethdev whose
// receive queue is a ring the test fills and whose transmit queue is a ring
// the test drains, so a test plays the hosts on both sides of the fabric.
#pragma once
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <cstdint>
#include <string>
#include <vector>

struct RingPort {
  std::string name;     // the ethdev name a spec's ports[].device names
  rte_ring* to_fabric = nullptr;    // the port's receive queue
  rte_ring* from_fabric = nullptr;  // the port's transmit queue
  uint16_t port_id = 0;
};

// A new ring port with a name unique in the process; name is empty on failure.
RingPort make_ring_port();

// An Ethernet frame: dst, src, ethertype 0x88b5 (local experimental), then
// `len - 14` payload bytes starting with `tag` (4 bytes) and a pattern.
std::vector<uint8_t> test_frame(uint64_t dst, uint64_t src, uint32_t len, uint32_t tag);

// Hands bytes to the fabric as a frame received on the port.
bool send_frame(const RingPort& p, const std::vector<uint8_t>& bytes);

// Frames the fabric has transmitted on the port so far (non-blocking).
std::vector<std::vector<uint8_t>> take_frames(const RingPort& p);

// The 4-byte tag of a test_frame (0 when too short).
uint32_t frame_tag(const std::vector<uint8_t>& f);
