#include "ring_port.h"

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include <atomic>
#include <cstring>

#include "eal_fixture.h"

RingPort make_ring_port() {
  static std::atomic<int> seq{0};
  RingPort p;
  if (!test_eal_init()) return p;
  const int n = seq.fetch_add(1);
  const std::string base = "tring" + std::to_string(n);
  p.to_fabric = rte_ring_create((base + "_rx").c_str(), 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
  p.from_fabric = rte_ring_create((base + "_tx").c_str(), 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
  if (!p.to_fabric || !p.from_fabric) return p;
  const int id = rte_eth_from_rings(base.c_str(), &p.to_fabric, 1, &p.from_fabric, 1, SOCKET_ID_ANY);
  if (id < 0) return p;
  p.port_id = static_cast<uint16_t>(id);
  // rte_eth_from_rings names the ethdev "net_ring_<name>".
  char name[RTE_ETH_NAME_MAX_LEN];
  if (rte_eth_dev_get_name_by_port(p.port_id, name) == 0) p.name = name;
  return p;
}

std::vector<uint8_t> test_frame(uint64_t dst, uint64_t src, uint32_t len, uint32_t tag) {
  std::vector<uint8_t> f(len, 0);
  for (int i = 0; i < 6; i++) {
    f[i] = static_cast<uint8_t>(dst >> (40 - 8 * i));
    f[6 + i] = static_cast<uint8_t>(src >> (40 - 8 * i));
  }
  f[12] = 0x88;
  f[13] = 0xb5;
  for (uint32_t i = 14; i < len; i++) f[i] = static_cast<uint8_t>(i * 31 + tag);
  if (len >= 18) std::memcpy(&f[14], &tag, 4);
  return f;
}

uint32_t frame_tag(const std::vector<uint8_t>& f) {
  uint32_t tag = 0;
  if (f.size() >= 18) std::memcpy(&tag, &f[14], 4);
  return tag;
}

bool send_frame(const RingPort& p, const std::vector<uint8_t>& bytes) {
  rte_mbuf* m = rte_pktmbuf_alloc(test_mempool());
  if (!m) return false;
  char* d = rte_pktmbuf_append(m, static_cast<uint16_t>(bytes.size()));
  if (!d) {
    rte_pktmbuf_free(m);
    return false;
  }
  std::memcpy(d, bytes.data(), bytes.size());
  if (rte_ring_enqueue(p.to_fabric, m) != 0) {
    rte_pktmbuf_free(m);
    return false;
  }
  return true;
}

std::vector<std::vector<uint8_t>> take_frames(const RingPort& p) {
  std::vector<std::vector<uint8_t>> out;
  void* objs[64];
  unsigned n;
  while ((n = rte_ring_dequeue_burst(p.from_fabric, objs, 64, nullptr)) > 0) {
    for (unsigned i = 0; i < n; i++) {
      auto* m = static_cast<rte_mbuf*>(objs[i]);
      std::vector<uint8_t> f(rte_pktmbuf_pkt_len(m));
      rte_pktmbuf_read(m, 0, static_cast<uint32_t>(f.size()), f.data());
      const void* src = rte_pktmbuf_read(m, 0, static_cast<uint32_t>(f.size()), f.data());
      if (src != f.data()) std::memcpy(f.data(), src, f.size());
      out.push_back(std::move(f));
      rte_pktmbuf_free(m);
    }
  }
  return out;
}
