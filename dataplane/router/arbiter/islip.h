// iSLIP (McKeown, IEEE/ACM ToN 1999): a separable input-first allocator
// for one switch cycle. Each unmatched output grants the requesting
// unmatched input at or after its grant pointer; each input accepts the
// granting output at or after its accept pointer. Pointers move one past
// the partner only on an accept in the first iteration, which is what
// desynchronises them under load; later iterations only fill the match.
// At most 64 inputs and outputs (one bit each in a word).
#pragma once
#include <cstdint>

namespace fabemu {

struct IslipPointers {
  uint8_t grant[64] = {};   // per output: the input it favours next
  uint8_t accept[64] = {};  // per input: the output it favours next
};

// The first set bit of `bits` at or after `from`, wrapping (bits != 0).
inline uint32_t islip_first_from(uint64_t bits, uint32_t from) {
  const uint64_t ahead = from < 64 ? bits & (~0ull << from) : 0;
  return static_cast<uint32_t>(__builtin_ctzll(ahead ? ahead : bits));
}

// As islip_match below, given `asking`, the inputs whose req is not 0 (a
// bit each): only their req is read and only their match written, so that
// a cycle of a radix-63 router with two inputs asking costs two, not 63.
inline uint32_t islip_match_asking(const uint64_t* req, uint32_t n, uint64_t asking,
                                   IslipPointers& ptr, uint32_t iterations, int8_t* match) {
  uint64_t req_out[64];  // the inputs each output hears from (the requested outputs only)
  uint64_t requested = 0;
  for (uint64_t ib = asking; ib; ib &= ib - 1) requested |= req[__builtin_ctzll(ib)];
  for (uint64_t ob = requested; ob; ob &= ob - 1) req_out[__builtin_ctzll(ob)] = 0;
  for (uint64_t ib = asking; ib; ib &= ib - 1) {
    const uint32_t i = static_cast<uint32_t>(__builtin_ctzll(ib));
    match[i] = -1;
    for (uint64_t b = req[i]; b; b &= b - 1) req_out[__builtin_ctzll(b)] |= 1ull << i;
  }
  uint64_t inputs = asking;
  uint64_t free_out = requested;  // (an output nobody requests grants nothing)
  uint32_t matched = 0;
  for (uint32_t it = 0; it < iterations && inputs; it++) {
    uint64_t granted[64];  // per input: the outputs that granted it
    uint64_t granted_any = 0;
    for (uint64_t ob = free_out; ob; ob &= ob - 1) {
      const uint32_t o = static_cast<uint32_t>(__builtin_ctzll(ob));
      const uint64_t asking = req_out[o] & inputs;
      if (!asking) continue;
      const uint32_t i = islip_first_from(asking, ptr.grant[o]);
      if (!((granted_any >> i) & 1)) granted[i] = 0;
      granted[i] |= 1ull << o;
      granted_any |= 1ull << i;
    }
    if (!granted_any) break;
    for (uint64_t ib = granted_any; ib; ib &= ib - 1) {
      const uint32_t i = static_cast<uint32_t>(__builtin_ctzll(ib));
      const uint32_t o = islip_first_from(granted[i], ptr.accept[i]);
      match[i] = static_cast<int8_t>(o);
      matched++;
      inputs &= ~(1ull << i);
      free_out &= ~(1ull << o);
      if (it == 0) {
        ptr.grant[o] = static_cast<uint8_t>(i + 1 == n ? 0 : i + 1);
        ptr.accept[i] = static_cast<uint8_t>(o + 1 == n ? 0 : o + 1);
      }
    }
  }
  return matched;
}

// req[i]: the outputs input i requests (bit o), for n inputs and n
// outputs. Fills match[i] with input i's output or -1 and returns the
// number of pairs matched.
inline uint32_t islip_match(const uint64_t* req, uint32_t n, IslipPointers& ptr,
                            uint32_t iterations, int8_t* match) {
  uint64_t asking = 0;
  for (uint32_t i = 0; i < n; i++) {
    match[i] = -1;
    if (req[i]) asking |= 1ull << i;
  }
  return islip_match_asking(req, n, asking, ptr, iterations, match);
}

}  // namespace fabemu
