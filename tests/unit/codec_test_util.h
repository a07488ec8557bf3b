// Shared by the codec tests: a reference CRC-16/X-25 and an mbuf freed at
// scope exit.
#pragma once
#include <rte_mbuf.h>

#include <cstddef>
#include <cstdint>

#include "tests/unit/eal_fixture.h"

namespace fabemu::test {

// Bit-serial CRC-16/X-25: reflected 0x1021, init 0xFFFF, xorout 0xFFFF.
inline uint16_t ref_crc_x25(const uint8_t* d, size_t n) {
  uint16_t crc = 0xFFFF;
  for (size_t i = 0; i < n; i++) {
    crc ^= d[i];
    for (int b = 0; b < 8; b++)
      crc = (crc & 1) ? static_cast<uint16_t>((crc >> 1) ^ 0x8408) : crc >> 1;
  }
  return static_cast<uint16_t>(~crc);
}

// An mbuf freed at scope exit.
struct Mbuf {
  rte_mbuf* m = test_mbuf();
  ~Mbuf() {
    if (m != nullptr) rte_pktmbuf_free(m);
  }
  const uint8_t* bytes() const { return rte_pktmbuf_mtod(m, const uint8_t*); }
  uint8_t* bytes() { return rte_pktmbuf_mtod(m, uint8_t*); }
  void reset() { rte_pktmbuf_reset(m); }
};

}  // namespace fabemu::test
