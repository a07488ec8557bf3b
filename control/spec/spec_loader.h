// Loading a fabric spec: profile defaults, then the YAML file, then --set
// overrides, then validation. Every key the loader accepts is declared once,
// in the field table of spec_loader.cpp, next to the code that reads it; the
// same table lists the known keys in error messages and generates the
// spec reference in docs/spec-reference.md (`fabemu spec-reference`).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "control/spec/spec.h"
#include "control/spec/spec_error.h"

namespace fabemu {

// Reads the YAML file at `path`, applies the defaults of its profile
// (`profile:`, default t3e), the file's fields, then each `KEY=VALUE` of
// `sets` in order (KEY a dotted path such as traffic.load, VALUE a YAML
// scalar or flow collection such as 0.3 or [8,8,8]), and validates the
// result. Throws SpecError (file, line, column, field, what to do) on any
// problem; nothing else escapes.
Spec load_spec(const std::string& path, const std::vector<std::string>& sets);

// The same from YAML text; `name` stands for the file in error messages.
Spec load_spec_text(const std::string& yaml, const std::vector<std::string>& sets,
                    const std::string& name = "<spec>");

// The spec a profile gives before any file or --set is applied (not
// validated: the custom profile leaves topology.family empty). Throws
// SpecError for an unknown profile name.
Spec profile_defaults(const std::string& profile);

// Endpoints the spec's topology has, or -1 when the loader does not know the
// family's sizing rule.
int64_t spec_endpoint_count(const Spec& s);

// One row of the spec reference.
struct SpecFieldDoc {
  std::string path;         // dotted key, e.g. "traffic.load"
  std::string type;         // "int", "number", "string", "bool", "[int, int, int]", ...
  std::string unit;         // "ns", "Gb/s", "flow units", ...; empty if none
  // As YAML, one per machine profile in profiles() order (custom, which
  // takes the t3e column, has none); empty: not used by the profile.
  std::vector<std::string> defaults;
  std::string source;  // where the default comes from (paper, table, section)
  std::string help;
};
std::vector<SpecFieldDoc> spec_field_docs();

// The spec reference as a markdown section (what `fabemu spec-reference`
// prints and docs/spec-reference.md carries).
std::string spec_reference_markdown();

}  // namespace fabemu
