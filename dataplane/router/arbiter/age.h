// Age arbiter: the crossbar arbitration of the SGI Spider chip (Galles,
// "Spider: A High-Speed Network Interconnect", IEEE Micro 1997, "Crossbar
// arbitration"). Each virtual channel of each input keeps a list per output
// port, and every (input, VC, output) list with a message at its head is a
// candidate: up to 120 on the 6-port, 4-VC chip (6 x 4 x 5). Each
// arbitration cycle picks up to six winners, at most one per input port
// and one per output port (a crossbar connects each input to one output),
// to fill as many outputs as it can. Priority is the message's network
// age, an 8-bit header field that grows while it waits in a router, so a
// message that has come far or waited long goes first and a hot spot does
// not starve distant sources; among equally old candidates the arbiter
// rotates ("rotates the arbiter each arbitration cycle"), here as a round
// robin pointer that moves past the cycle's first winner, so that no
// candidate of the oldest age waits more than one turn of the pointer.
//
// Winners are taken oldest first, each the candidate nearest the pointer
// among the oldest whose input and output are still free: a greedy maximal
// match, as a wavefront arbiter (the paper's comparison) builds. The state
// is the caller's pointer; pick() reads the candidates' slots in place and
// allocates nothing. Header-only.
#pragma once
#include <cstdint>

namespace fabemu {

struct AgeArbiter {
  // Slots: Spider's 120 candidates sit in 144 (6 outputs x 6 ports x 4 VCs,
  // a port's own output unused), a 15-port chip with 1 VC in 225.
  static constexpr uint32_t kMaxCandidates = 256;
  static constexpr uint32_t kMaxPorts = 64;         // input and output port numbers
  static constexpr uint32_t kWords = kMaxCandidates / 64;

  // The slots a crossbar of `ports` inputs and outputs takes with `vcs`
  // lists per (input, output), the VCs rounded up to a power of two: a
  // router fits when this is at most kMaxCandidates.
  static constexpr uint32_t slots(uint32_t ports, uint32_t vcs) {
    uint32_t v = 1;
    while (v < vcs) v <<= 1;
    return ports * ports * v;
  }

  // req: nbits <= kMaxCandidates candidate slots as a bit set in 64-bit
  // words (set: the slot requests this cycle); input[i], output[i] and
  // age[i]: slot i's ports (< kMaxPorts) and age. *ptr: the rotation
  // pointer (slot index), moved past the first winner. Writes up to
  // max_winners winning slots to winners, oldest first, and returns how
  // many.
  static uint32_t pick(const uint64_t* req, uint32_t nbits, const uint8_t* input,
                       const uint8_t* output, const uint8_t* age, uint16_t* ptr,
                       uint32_t max_winners, uint16_t* winners) {
    uint64_t left[kWords] = {};
    const uint32_t words = (nbits + 63) / 64;
    for (uint32_t w = 0; w < words; w++) left[w] = req[w];
    const uint32_t start = *ptr < nbits ? *ptr : 0;
    uint64_t inputs_busy = 0, outputs_busy = 0;
    uint32_t won = 0;
    while (won < max_winners) {
      int32_t best = -1;
      uint32_t best_age = 0, best_dist = 0;
      for (uint32_t w = 0; w < words; w++) {
        for (uint64_t bits = left[w]; bits; bits &= bits - 1) {
          const uint32_t i = w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
          if ((inputs_busy >> input[i] & 1) || (outputs_busy >> output[i] & 1)) {
            left[w] &= ~(uint64_t{1} << (i & 63));  // its input or output is taken
            continue;
          }
          const uint32_t dist = i >= start ? i - start : i + nbits - start;
          if (best < 0 || age[i] > best_age || (age[i] == best_age && dist < best_dist)) {
            best = static_cast<int32_t>(i);
            best_age = age[i];
            best_dist = dist;
          }
        }
      }
      if (best < 0) break;
      const uint32_t b = static_cast<uint32_t>(best);
      winners[won++] = static_cast<uint16_t>(b);
      left[b >> 6] &= ~(uint64_t{1} << (b & 63));
      inputs_busy |= uint64_t{1} << input[b];
      outputs_busy |= uint64_t{1} << output[b];
    }
    if (won > 0) {
      const uint32_t next = winners[0] + 1u;
      *ptr = static_cast<uint16_t>(next >= nbits ? 0 : next);
    }
    return won;
  }
};

}  // namespace fabemu
