#include "control/spec/spec_yaml.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "control/spec/spec_error.h"

namespace fabemu::spec_detail {

namespace {

// Values a spec file may hold, aliases expanded: far beyond any real spec (a
// 32K-endpoint placement list is about 230K), and a stop for alias bombs.
constexpr long kMaxSpecValues = 1'000'000;

std::string tag_text(const std::string& tag) {
  const std::string core = "tag:yaml.org,2002:";
  return tag.compare(0, core.size(), core) == 0 ? "!!" + tag.substr(core.size()) : tag;
}

// Walks every node once per path (aliases are followed), refusing tags and
// runaway nesting. `path` is the dotted field path, for the message.
class PlainChecker {
 public:
  explicit PlainChecker(const std::string& name) : name_(name) {}

  void check(const YAML::Node& n, const std::string& path, int depth) {
    if (++values_ > kMaxSpecValues)
      fail(n, path,
           fmt::format("the file holds more than {} values once its aliases are expanded: no "
                       "spec is that large; write the values out instead of nesting aliases",
                       kMaxSpecValues));
    if (depth > kMaxSpecDepth)
      fail(n, path,
           fmt::format("values nested more than {} levels deep: no spec key is (an alias "
                       "that contains itself?); write the value out",
                       kMaxSpecDepth));
    // "?": no tag (plain scalars, maps, lists); "!": a quoted scalar; "": null.
    const std::string& tag = n.Tag();
    if (!tag.empty() && tag != "?" && tag != "!")
      fail(n, path,
           fmt::format("explicit YAML tag '{}': a spec takes plain values, each key knows its "
                       "type; remove the tag (quote the value if you mean a string)",
                       printable(tag_text(tag))));
    if (n.IsMap()) {
      for (auto it = n.begin(); it != n.end(); ++it) {
        const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
        const std::string sub = path.empty() ? key : path + "." + key;
        check(it->first, sub, depth + 1);
        check(it->second, sub, depth + 1);
      }
    } else if (n.IsSequence()) {
      for (size_t i = 0; i < n.size(); ++i) check(n[i], fmt::format("{}[{}]", path, i), depth + 1);
    }
  }

 private:
  [[noreturn]] void fail(const YAML::Node& n, const std::string& path, const std::string& msg) {
    const YAML::Mark m = n.Mark();
    throw SpecError(name_, m.is_null() ? 1 : m.line + 1, m.is_null() ? 1 : m.column + 1, path, msg);
  }
  const std::string& name_;
  long values_ = 0;
};

// The line (0-based) of the "---" that opens the document at `line`, after
// line `after`, or -1.
int marker_line(const std::string& text, int line, int after) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  for (int i = std::min<int>(line, static_cast<int>(lines.size()) - 1); i > after; --i)
    if (lines[i].compare(0, 3, "---") == 0 &&
        (lines[i].size() == 3 || std::isspace(static_cast<unsigned char>(lines[i][3]))))
      return i;
  return -1;
}

}  // namespace

std::string read_spec_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::vector<std::string> yaml;
    for (const auto& e : std::filesystem::directory_iterator(path, ec))
      if (e.path().extension() == ".yaml" || e.path().extension() == ".yml")
        yaml.push_back(e.path().string());
    std::sort(yaml.begin(), yaml.end());
    throw SpecError(path, 0, 0, "",
                    yaml.empty()
                        ? std::string("is a directory, not a spec file: give the path of a YAML "
                                      "spec, e.g. topologies/t3e-4x4x4.yaml")
                        : fmt::format("is a directory, not a spec file: give one of its {} YAML "
                                      "files, e.g. {}",
                                      yaml.size(), printable(yaml.front(), 200)));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw SpecError(
        path, 0, 0, "",
        fmt::format("cannot read the spec file ({}): check the path", std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    throw SpecError(path, 0, 0, "",
                    fmt::format("cannot read the spec file ({})", std::strerror(errno)));
  return ss.str();
}

YAML::Node parse_spec_yaml(const std::string& text, const std::string& name) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::ParserException& e) {
    throw SpecError(name, e.mark.line + 1, e.mark.column + 1, "",
                    fmt::format("YAML syntax error: {}; check the indentation, the ':' after each "
                                "key and matching brackets",
                                printable(e.msg)));
  } catch (const YAML::Exception& e) {
    throw SpecError(name, 1, 1, "", fmt::format("cannot parse the YAML: {}", printable(e.msg)));
  }
  if (docs.size() > 1) {
    const YAML::Mark m = docs[1].Mark();
    const int at = m.is_null() ? -1 : m.line;
    const YAML::Mark first = docs[0].Mark();
    const int marker = marker_line(text, at < 0 ? 1 << 30 : at, first.is_null() ? -1 : first.line);
    const int line = marker >= 0 ? marker + 1 : at + 1;
    throw SpecError(name, std::max(line, 1), marker >= 0 || m.is_null() ? 1 : m.column + 1, "",
                    "a second YAML document starts here: a spec file is one document; remove "
                    "this '---' and what follows it, or merge its keys into the first document");
  }
  if (docs.empty()) return YAML::Node();
  PlainChecker(name).check(docs[0], "", 0);
  return docs[0];
}

}  // namespace fabemu::spec_detail
