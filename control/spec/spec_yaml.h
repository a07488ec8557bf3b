// Internal to control/spec: from a spec file to one YAML tree the loader can
// walk. Refuses, with file, line and column, what YAML allows but a spec
// cannot mean: a directory or unreadable file, a second document, explicit
// tags (!!str, !custom), and nesting deeper than any key of the spec (an
// alias that contains itself). Memory and time are bounded on any input: a
// file over 16 MiB is not read, values are counted before a tree is built,
// and yaml-cpp's own endless case (a ',' outside brackets) is refused.
#pragma once
#include <yaml-cpp/yaml.h>

#include <string>

namespace fabemu::spec_detail {

// The bytes of the spec file at `path`. Throws SpecError when it is not a
// readable regular file (a directory, missing, no permission) or is larger
// than 16 MiB.
std::string read_spec_file(const std::string& path);

// The one document of `text` (a null node for an empty file). Throws
// SpecError naming `name`, line and column on a syntax error, a second
// document, an explicit tag, nesting deeper than kMaxSpecDepth, or more than
// a million values.
YAML::Node parse_spec_yaml(const std::string& text, const std::string& name);

// Deeper than any spec key (ports[i].macs[j] is four levels).
inline constexpr int kMaxSpecDepth = 16;

}  // namespace fabemu::spec_detail
