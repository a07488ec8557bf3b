// A divisor fixed when a run is set up (VCs per port, ports per router),
// divided by with one multiplication instead of the CPU's divide: every hop
// splits channel and output indices into (router, port, VC) several times,
// and a 32-bit divide costs tens of cycles where a multiply costs three.
//
// Lemire, Kaser and Kurz, "Faster remainder by direct computation" (2019):
// with M = ceil(2^64 / d), the quotient of any 32-bit n is the high 64 bits
// of M * n, exactly. (libdivide's general divider takes a load, a branch and
// four more operations per quotient: measurably slower here.) d = 1 has no
// 64-bit M; a mask adds n back instead, without a branch. d must not be 0
// (the engine refuses such a fabric before it makes one).
#pragma once
#include <cstdint>

namespace fabemu {

class Divisor {
 public:
  Divisor() : Divisor(1) {}
  explicit Divisor(uint32_t d)
      : m_(d > 1 ? UINT64_MAX / d + 1 : 0), d_(d), one_(d == 1 ? UINT32_MAX : 0) {}

  uint32_t value() const { return d_; }
  uint32_t div(uint32_t n) const {
    return static_cast<uint32_t>((static_cast<unsigned __int128>(m_) * n) >> 64) + (n & one_);
  }
  uint32_t mod(uint32_t n) const { return n - div(n) * d_; }

 private:
  uint64_t m_;
  uint32_t d_;
  uint32_t one_;  // all ones when d_ is 1
};

}  // namespace fabemu
