// Emulated time: integer picoseconds everywhere on the fast path.
#pragma once
#include <cstdint>

namespace fabemu {

using ps_t = uint64_t;
inline constexpr ps_t kPsPerNs = 1000;
inline constexpr ps_t kNever = ~ps_t{0};

}  // namespace fabemu
