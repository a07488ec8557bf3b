#include "dataplane/codec/crc16.h"

#include <rte_branch_prediction.h>
#include <rte_lcore.h>
#include <rte_net_crc.h>

#include <atomic>
#include <mutex>

namespace fabemu {

namespace {
std::atomic<bool> g_chosen{false};
std::once_flag g_choose_once;
}  // namespace

void crc16_init() {
  // Before rte_eal_init the lcore count is 0 and DPDK cannot tell how wide a
  // SIMD unit it may use; asking for SSE4.2 then only logs "requirements not
  // met" and falls back. Ask for the scalar tables directly in that case.
  // RTE_NET_CRC_SSE42 selects AVX-512 first where allowed, then SSE4.2, then
  // scalar, so it is the "best available" request.
  rte_net_crc_set_alg(rte_lcore_count() > 0 ? RTE_NET_CRC_SSE42 : RTE_NET_CRC_SCALAR);
  g_chosen.store(true, std::memory_order_release);
}

uint16_t crc16_ccitt(const void* data, uint32_t len) {
  // Without an explicit choice DPDK's default handler picks one on the first
  // call and writes a global from whichever thread gets there: make that
  // choice once, here, unless start-up code already did.
  if (unlikely(!g_chosen.load(std::memory_order_acquire)))
    std::call_once(g_choose_once, crc16_init);
  return static_cast<uint16_t>(rte_net_crc_calc(data, len, RTE_NET_CRC16_CCITT));
}

}  // namespace fabemu
