// A flattened butterfly's router digits, for the flatfly tests: router r's
// coordinate in dimension d is digit d of r in radix k (0-based: the
// paper's dimension d + 1), and a minimal route takes one hop per digit in
// which two routers differ.
#pragma once
#include <cstdint>

namespace fabemu {

inline int64_t ipow(int64_t k, int e) {
  int64_t v = 1;
  for (int i = 0; i < e; ++i) v *= k;
  return v;
}

inline int digit(int64_t r, int d, int k) { return static_cast<int>((r / ipow(k, d)) % k); }

inline int differing_digits(int64_t a, int64_t b, int k, int dims) {
  int n = 0;
  for (int d = 0; d < dims; ++d) n += digit(a, d, k) != digit(b, d, k);
  return n;
}

}  // namespace fabemu
