// A problem a registered component (a topology family, a router model)
// finds in a spec, for the validator to refuse (control/spec/
// spec_validate.cpp blames the first of `keys` the user wrote).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "control/spec/spec.h"

namespace fabemu {

// The largest fabric the emulator sizes its tables for (BlackWidow's R3
// scales to 32K processors).
constexpr int64_t kMaxRouters = 32768;

// The message and the keys involved. An empty message: no problem.
struct SpecProblem {
  std::vector<std::string> keys;
  std::string message;
};

// Whether the spec file or a --set gave a key (not a profile's default).
using WrittenFn = std::function<bool(const std::string& path)>;

// A whole packet of the largest size must fit `units` of buffer `field`
// (virtual cut-through); `what` names the buffer.
SpecProblem packet_fits_problem(const Spec& s, const char* field, int units, const char* what);

}  // namespace fabemu
