// Internal to control/spec: the readers of the spec keys that need more
// than a number (message sizes, the endpoint map, EAL arguments, core lists,
// capture taps and types, MAC sets, port bindings), which the field table
// (spec_fields.cpp) names for those keys.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "control/spec/spec_context.h"

namespace fabemu {
namespace spec_detail {

void read_sizes(Spec& s, const YAML::Node& n, const Ctx& c);
void read_t3e_packets(Spec& s, const YAML::Node& n, const Ctx& c);
void read_endpoint_map(Spec& s, const YAML::Node& n, const Ctx& c);
void read_eal(Spec& s, const YAML::Node& n, const Ctx& c);
void read_cores(Spec& s, const YAML::Node& n, const Ctx& c);
// run.partition: an MPI rank per router (control/mpi/rank_partition.h).
void read_partition(Spec& s, const YAML::Node& n, const Ctx& c);
// A list of integers in [lo, hi]; `what` describes it for the error.
std::vector<int> read_int_list(const YAML::Node& n, const Ctx& c, int64_t lo, int64_t hi,
                               const char* what);
void read_capture_taps(Spec& s, const YAML::Node& n, const Ctx& c);
void read_capture_types(Spec& s, const YAML::Node& n, const Ctx& c);
void read_faults(Spec& s, const YAML::Node& n, const Ctx& c);
void read_macs(Spec& s, const YAML::Node& n, const Ctx& c);
// `ports:` through its item rows of the table, refusing ambiguous bindings.
void read_ports(Spec& s, const YAML::Node& n, const Ctx& c);

}  // namespace spec_detail
}  // namespace fabemu
