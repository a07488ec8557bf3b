// CRC-16 CCITT for link-level checks: the YARC EOP phit and Spider's LLP.
//
// Computed by DPDK's rte_net_crc (RTE_NET_CRC16_CCITT), whose 22.11
// definition is the reflected CCITT polynomial 0x1021 (0x8408 reflected),
// initial value 0xFFFF, final XOR 0xFFFF: the variant catalogued as
// CRC-16/X-25 (also IBM-SDLC, ISO-HDLC). Check value: "123456789" -> 0x906E.
// (It is not CRC-16/KERMIT, 0x2189, which has initial value 0 and no final
// XOR; measured on this DPDK, see tests/unit/codec_test.cpp.)
//
// rte_net_crc needs no rte_eal_init: its lookup tables are filled by a
// library constructor. Without EAL the SIMD width is unknown, so only the
// scalar table-driven path is used; after rte_eal_init, crc16_init() picks
// the SSE4.2/PCLMULQDQ (or AVX-512) path where the CPU has it.
#pragma once
#include <cstdint>

namespace fabemu {

inline constexpr uint16_t kCrc16CheckValue = 0x906E;  // CRC of "123456789"

// Selects the fastest rte_net_crc algorithm the CPU and EAL allow. Call once
// at start-up, after rte_eal_init and before workers start: DPDK keeps the
// choice in one unsynchronised global. crc16_ccitt() calls it on first use
// if nobody did (thread-safe, but then possibly the scalar path).
void crc16_init();

// CRC-16/X-25 of len bytes.
uint16_t crc16_ccitt(const void* data, uint32_t len);

}  // namespace fabemu
