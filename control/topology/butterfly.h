// Conventional butterfly family "butterfly" (profile flatfly): the k-ary
// n-fly the flattened butterfly paper compares against in Figure 6 (Kim,
// Dally & Abts, ISCA 2007, section 3.3: 2 stages of radix-32 routers at
// N = 1024, destination routing), built as merged rows
// (dataplane/routing/butterfly_dest.h gives the port layout and why).
//
// N = k^n endpoints; rows 0 .. k^(n-1) - 1, row i's digit d is digit d of i
// in radix k. Row i holds stage 0 .. n-1 of the butterfly: endpoint e
// injects into stage 0 of row e / k and ejects from stage n-1 of that row on
// port e mod k. Stage d of row i (d < n-1) has a channel to stage d + 1 of
// each row that differs from i in digit d only, and of row i itself (the
// loop). Every channel has the spec's unit and wire time, as the flatfly's.
#pragma once
#include <cstdint>
#include <string>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"

namespace fabemu {

// Empty when a k-ary n-fly can be built (k >= 2, n >= 2, merged radix n k
// within kMaxPorts, N = k^n within the YARC head phit's 15-bit destination);
// otherwise what is wrong and what to do.
std::string butterfly_size_problem(int64_t k, int64_t n);

// Throws std::invalid_argument with butterfly_size_problem()'s message.
Fabric build_butterfly(const Spec& spec);

}  // namespace fabemu
