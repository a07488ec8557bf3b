// The resolved spec as JSON: every key the loader read (control/spec/
// spec_fields.cpp), with the value the run used after the profile's
// defaults, the file and the --set overrides. The JSON report carries it
// (spec.resolved, docs/json-report.md).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "control/spec/spec.h"

namespace fabemu {

// Nested as the YAML is ({"traffic": {"load": 0.3, ...}, ...}). Keys that
// mean nothing for this spec are left out: those of another topology family
// (topology.rank on a torus), of another router model or switch allocator,
// and strings left empty (no control socket).
nlohmann::json resolved_spec_json(const Spec& spec);

// Keys of the field table that resolved_spec_json has no writer for (a test
// keeps this empty, so a new key cannot be left out of the report).
std::vector<std::string> spec_keys_without_writer();

}  // namespace fabemu
