#include "control/spec/spec_problem.h"

#include <fmt/format.h>

namespace fabemu {

SpecProblem packet_fits_problem(const Spec& s, const char* field, int units, const char* what) {
  if (s.packet.max_units <= units) return {};
  return {{field, "packet.max_units"},
          fmt::format("a packet of up to {} units (packet.max_units) does not fit the {}-unit {}: "
                      "raise {} or lower packet.max_units",
                      s.packet.max_units, units, what, field)};
}

}  // namespace fabemu
