// Refusing a loaded spec: a problem found after loading (by the topology
// builder, the packet codec check, the memory estimate) is reported like the
// loader's own errors, against the field the user wrote and the line or
// --set it came from (Spec::origins).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"

namespace fabemu {

// Throws a SpecError about the first of `paths` the file or a --set gave a
// value (else the first), at that line or --set. `file` names the spec.
[[noreturn]] void refuse_spec(const std::string& file,
                              const std::map<std::string, SpecOrigin>& origins,
                              const std::vector<std::string>& paths, const std::string& msg);
[[noreturn]] inline void refuse_spec(const Spec& s, const std::vector<std::string>& paths,
                                     const std::string& msg) {
  refuse_spec(s.file, s.origins, paths, msg);
}

// Where a field's value came from, for a message: "line 4", "--set
// 'topology.family=clos'", "the default of profile 't3e'".
std::string origin_text(const std::map<std::string, SpecOrigin>& origins, const std::string& path);

// Builds the spec's fabric through the Registry. A builder's FieldError, or
// any other refusal, becomes a SpecError on the field it names.
Fabric build_spec_fabric(const Spec& s);

}  // namespace fabemu
