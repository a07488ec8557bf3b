#include "dataplane/ethernet/eth_port.h"

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <atomic>
#include <cctype>

#include <net/if.h>

#include "dataplane/core/packet_meta.h"

namespace fabemu {

namespace {
constexpr uint16_t kRxDesc = 1024;
constexpr uint16_t kTxDesc = 1024;
constexpr uint32_t kRxPoolMbufs = 8191;
std::atomic<int> g_pool_seq{0};

std::string errtext(int rc) { return rte_strerror(rc < 0 ? -rc : rc); }
}  // namespace

bool device_is_pci(const std::string& device) {
  // [dddd:]bb:dd.f
  const std::string d = device.substr(0, device.find(','));
  int colons = 0, dots = 0;
  for (char c : d) {
    if (c == ':') colons++;
    else if (c == '.') dots++;
    else if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return (colons == 1 || colons == 2) && dots == 1;
}

bool eth_port_open(const std::string& device, int socket, EthPort* port, std::string* err) {
  port->device = device;
  port->name = device.substr(0, device.find(','));
  uint16_t pid = 0;
  if (rte_eth_dev_get_port_by_name(port->name.c_str(), &pid) != 0) {
    // The commonest mistake gets its own answer: an af_packet interface that
    // does not exist (DPDK would only say "operation not permitted").
    const size_t at = device.find("iface=");
    if (port->name.rfind("net_af_packet", 0) == 0 && at != std::string::npos) {
      const std::string iface = device.substr(at + 6, device.find(',', at) - (at + 6));
      if (if_nametoindex(iface.c_str()) == 0) {
        *err = "network interface '" + iface + "' of device '" + device +
               "' does not exist here (see `ip link`; in a namespace, run fabemu where the "
               "interface is)";
        return false;
      }
    }
    // DPDK has a fixed number of port slots (RTE_MAX_ETHPORTS, a build-time
    // constant); when they are taken a probe fails with a misleading errno.
    if (rte_eth_dev_count_total() >= RTE_MAX_ETHPORTS) {
      *err = "device '" + device + "' would be DPDK port " +
             std::to_string(rte_eth_dev_count_total() + 1) + ", but this DPDK build has room for " +
             std::to_string(RTE_MAX_ETHPORTS) +
             " ports (RTE_MAX_ETHPORTS): use fewer devices; several bindings can share one device "
             "by VLAN (ports[].vlan) or MAC set (ports[].macs)";
      return false;
    }
    const int rc = rte_dev_probe(device.c_str());
    if (rc != 0) {
      *err = "DPDK could not create device '" + device + "' (" + errtext(rc) +
             "; its log above says why)" +
             (device_is_pci(device)
                  ? " (is the NIC bound to vfio-pci or uio?)"
                  : " (expected a virtual device such as net_af_packet0,iface=IF, net_tap0, "
                    "net_null0, net_ring0, or an existing port name)");
      return false;
    }
    port->probed = true;
    // A PCI device's ethdev is named by its address; a vdev by its name.
    if (rte_eth_dev_get_port_by_name(port->name.c_str(), &pid) != 0) {
      *err = "DPDK created device '" + device + "' but no Ethernet port named '" + port->name +
             "' appeared: it is not a network device";
      return false;
    }
  }
  port->port_id = pid;
  rte_eth_dev_info info;
  int rc = rte_eth_dev_info_get(pid, &info);
  if (rc != 0) {
    *err = "cannot query DPDK port '" + port->name + "': " + errtext(rc);
    return false;
  }
  uint16_t mtu = 1500;
  if (rte_eth_dev_get_mtu(pid, &mtu) == 0 && mtu > 0) port->mtu = mtu;
  rte_ether_addr addr;
  if (rte_eth_macaddr_get(pid, &addr) == 0) {
    port->mac = 0;
    for (int i = 0; i < 6; i++) port->mac = (port->mac << 8) | addr.addr_bytes[i];
  }
  const uint32_t frame = port->mtu + 14 + 4 + 4;  // header, one VLAN tag, FCS room
  const uint16_t room = static_cast<uint16_t>(
      std::max<uint32_t>(RTE_MBUF_DEFAULT_BUF_SIZE, frame + RTE_PKTMBUF_HEADROOM));
  const std::string pool_name = "rx" + std::to_string(g_pool_seq.fetch_add(1)) + "_" +
                                std::to_string(pid);
  port->rx_pool = rte_pktmbuf_pool_create(pool_name.c_str(), kRxPoolMbufs, 256, kMbufPrivSize,
                                          room, socket < 0 ? SOCKET_ID_ANY : socket);
  if (!port->rx_pool) {
    *err = "cannot create the receive buffer pool of port '" + port->name +
           "': " + rte_strerror(rte_errno) + "; give DPDK more memory (FABEMU_DPDK_MEM_MB)";
    return false;
  }
  rte_eth_conf conf{};
  if (port->mtu > RTE_ETHER_MTU) conf.rxmode.mtu = port->mtu;
  rc = rte_eth_dev_configure(pid, 1, 1, &conf);
  if (rc != 0) {
    *err = "cannot configure DPDK port '" + port->name + "': " + errtext(rc);
    return false;
  }
  uint16_t nrx = kRxDesc, ntx = kTxDesc;
  rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nrx, &ntx);
  const int sock = rte_eth_dev_socket_id(pid);
  rc = rte_eth_rx_queue_setup(pid, 0, nrx, sock < 0 ? SOCKET_ID_ANY : sock, nullptr, port->rx_pool);
  if (rc == 0) rc = rte_eth_tx_queue_setup(pid, 0, ntx, sock < 0 ? SOCKET_ID_ANY : sock, nullptr);
  if (rc != 0) {
    *err = "cannot set up the queues of DPDK port '" + port->name + "': " + errtext(rc);
    return false;
  }
  rc = rte_eth_dev_start(pid);
  if (rc != 0) {
    *err = "cannot start DPDK port '" + port->name + "': " + errtext(rc);
    return false;
  }
  port->started = true;
  // The fabric bridges every host address: receive frames for all of them.
  // Drivers without the notion (ring, null) say -ENOTSUP, which is fine.
  rte_eth_promiscuous_enable(pid);
  return true;
}

void eth_port_close(EthPort* port) {
  if (port->started) {
    rte_eth_dev_stop(port->port_id);
    port->started = false;
  }
  if (port->probed) {
    rte_eth_dev_close(port->port_id);
    rte_eal_hotplug_remove(device_is_pci(port->device) ? "pci" : "vdev", port->name.c_str());
    port->probed = false;
  }
  if (port->rx_pool) {
    rte_mempool_free(port->rx_pool);
    port->rx_pool = nullptr;
  }
}

bool eth_port_link_up(uint16_t port_id) {
  rte_eth_link link{};
  if (rte_eth_link_get_nowait(port_id, &link) != 0) return true;
  return link.link_status == RTE_ETH_LINK_UP;
}

}  // namespace fabemu
