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
// not starve distant sources.
//
// Among equally old candidates the arbiter rotates ("rotates the arbiter
// each arbitration cycle ... starvation avoidance"); the paper does not say
// how. Here each output has a round-robin pointer that moves past that
// output's winner, so equal ages at a busy output take turns whatever the
// other outputs win (one pointer per chip, moved past the cycle's first
// winner, let a winner at another output reset it and sent the ties to the
// lowest input). Two rules keep a turn from being lost to an input
// conflict: which output picks first among equal ages rotates each look,
// and an output whose nearest equal-age candidate lost its input to an
// equal-age winner elsewhere keeps its pointer there (it has lost no turn
// to an older message, only to the order of the outputs).
//
// Winners are taken oldest first; among equal ages output by output in the
// rotation, each output's candidate nearest its pointer whose input is
// still free: a greedy maximal match, as a wavefront arbiter (the paper's
// comparison) builds. The state is the caller's pointers; pick() reads the
// candidates' slots in place and allocates nothing. Header-only.
#pragma once
#include <cstdint>

namespace fabemu {

struct AgeArbiter {
  // Slots: Spider's 120 candidates sit in 144 (6 outputs x 6 ports x 4 VCs,
  // a port's own output unused), a 15-port chip with 1 VC in 225.
  static constexpr uint32_t kMaxCandidates = 256;
  static constexpr uint32_t kMaxPorts = 64;  // input and output port numbers
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
  // age[i]: slot i's ports (< kMaxPorts) and age. out_ptr[o] (one per
  // output port): output o's rotation pointer, a slot index; *first: the
  // output that picks first among equal ages, moved to the next output
  // with a candidate. Writes up to max_winners winning slots to winners,
  // oldest first, and returns how many.
  static uint32_t pick(const uint64_t* req, uint32_t nbits, const uint8_t* input,
                       const uint8_t* output, const uint8_t* age, uint16_t* out_ptr, uint8_t* first,
                       uint32_t max_winners, uint16_t* winners) {
    uint64_t left[kWords] = {};
    const uint32_t words = (nbits + 63) / 64;
    uint32_t asking = 0;
    for (uint32_t w = 0; w < words; w++) {
      left[w] = req[w];
      asking += static_cast<uint32_t>(__builtin_popcountll(req[w]));
    }
    if (asking == 1 && max_winners > 0) {  // (the common case below saturation: it wins)
      uint32_t w = 0;
      while (!left[w]) w++;
      const uint32_t b = w * 64 + static_cast<uint32_t>(__builtin_ctzll(left[w]));
      winners[0] = static_cast<uint16_t>(b);
      out_ptr[output[b]] = static_cast<uint16_t>(b + 1 >= nbits ? 0 : b + 1);
      *first = output[b];
      return 1;
    }
    const uint32_t f = *first;
    uint64_t inputs_busy = 0, outputs_busy = 0, outputs_asked = 0, parked = 0;
    uint8_t won_age[kMaxPorts];  // [input]: its winner's age (read once busy)
    uint16_t park[kMaxPorts];    // [output]: its nearest parked candidate (read once parked)
    uint32_t won = 0;
    while (won < max_winners) {
      // One key orders all: age, then the output's place in the rotation,
      // then the slot's distance from its output's pointer (each < 256).
      int32_t best = -1;
      uint32_t best_key = 0, best_dist = 0;
      for (uint32_t w = 0; w < words; w++) {
        for (uint64_t bits = left[w]; bits; bits &= bits - 1) {
          const uint32_t i = w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
          const uint32_t o = output[i], in = input[i];
          const uint32_t p = out_ptr[o] < nbits ? out_ptr[o] : 0;
          const uint32_t dist = i >= p ? i - p : i + nbits - p;
          outputs_asked |= uint64_t{1} << o;
          if ((inputs_busy >> in & 1) || (outputs_busy >> o & 1)) {
            left[w] &= ~(uint64_t{1} << (i & 63));  // its input or output is taken
            if (!(outputs_busy >> o & 1) && won_age[in] == age[i] &&
                (!(parked >> o & 1) || dist < park[o])) {
              parked |= uint64_t{1} << o;
              park[o] = static_cast<uint16_t>(dist);
            }
            continue;
          }
          const uint32_t turn = (o - f) & (kMaxPorts - 1);
          const uint32_t key = uint32_t{age[i]} << 16 | (kMaxPorts - 1 - turn) << 8 | (255 - dist);
          if (best < 0 || key > best_key) {
            best = static_cast<int32_t>(i);
            best_key = key;
            best_dist = dist;
          }
        }
      }
      if (best < 0) break;
      const uint32_t b = static_cast<uint32_t>(best), o = output[b];
      winners[won++] = static_cast<uint16_t>(b);
      left[b >> 6] &= ~(uint64_t{1} << (b & 63));
      inputs_busy |= uint64_t{1} << input[b];
      outputs_busy |= uint64_t{1} << o;
      won_age[input[b]] = age[b];
      if (!(parked >> o & 1) || park[o] > best_dist)
        out_ptr[o] = static_cast<uint16_t>(b + 1 >= nbits ? 0 : b + 1);
    }
    // The next output with a candidate after the one that went first.
    const uint64_t after = outputs_asked & ~((uint64_t{2} << f) - 1);
    if (outputs_asked)
      *first = static_cast<uint8_t>(__builtin_ctzll(after ? after : outputs_asked));
    return won;
  }
};

}  // namespace fabemu
