// Emulated time: integer picoseconds everywhere on the fast path.
#pragma once
#include <cmath>
#include <cstdint>

namespace fabemu {

using ps_t = uint64_t;
inline constexpr ps_t kPsPerNs = 1000;
inline constexpr ps_t kNever = ~ps_t{0};
// A time the spec gives in ns, to the nearest picosecond.
inline ps_t ns_to_ps(double ns) { return static_cast<ps_t>(std::llround(ns * 1000.0)); }

}  // namespace fabemu
