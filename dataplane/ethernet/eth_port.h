// A DPDK Ethernet port opened for a port-bound endpoint: resolved from the
// spec's device string, configured with one receive and one transmit queue,
// promiscuous (the fabric is a bridge) and started.
#pragma once
#include <rte_mempool.h>

#include <cstdint>
#include <string>

namespace fabemu {

struct EthPort {
  std::string device;        // as the spec gave it
  std::string name;          // the ethdev name (device up to the first ',')
  uint16_t port_id = 0;
  uint16_t mtu = 1500;
  uint64_t mac = 0;          // the port's own address (not used for bridging)
  bool probed = false;       // we created the device (rte_dev_probe); remove it on close
  bool started = false;
  rte_mempool* rx_pool = nullptr;
};

// True when the device names a PCI address (0000:03:00.0 or 03:00.0), which
// needs the EAL's PCI bus.
bool device_is_pci(const std::string& device);

// Opens the port the device string names: an existing ethdev of that name
// (e.g. one from --vdev or rte_eth_from_rings), else a virtual or PCI device
// probed now (rte_dev_probe: "net_af_packet0,iface=veth0", "net_null0",
// "0000:03:00.0"). Receive buffers come from a pool on `socket` big enough for
// MTU-sized frames. false and *err (what, which device, what to do) on failure.
bool eth_port_open(const std::string& device, int socket, EthPort* port, std::string* err);

// Stops the port, removes a device we probed and frees the receive pool.
void eth_port_close(EthPort* port);

// Link up (true when the driver cannot tell).
bool eth_port_link_up(uint16_t port_id);

}  // namespace fabemu
