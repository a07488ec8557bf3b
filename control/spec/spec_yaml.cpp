#include "control/spec/spec_yaml.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

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
// yaml-cpp keeps about 500 bytes a value: this bounds the tree it builds.
constexpr long kMaxSpecValues = 1'000'000;
// Bytes a spec file may hold: 16 MiB, where such a placement list is about
// 2 MB; a larger file (a trace or an image given by mistake) is not read.
constexpr size_t kMaxSpecBytes = size_t{16} << 20;

// A value count past kMaxSpecValues, found before any tree is built.
struct TooManyValues {
  YAML::Mark mark;
};

// The documents of a YAML stream and its values, from the parser's events
// alone (nothing is built, so a huge file costs no tree).
class StreamScan : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;  // where each document read so far starts

  void OnDocumentStart(const YAML::Mark& m) override { starts.push_back(m); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                const std::string&) override {
    count(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    count(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    count(m);
  }
  void OnMapEnd() override {}

 private:
  void count(const YAML::Mark& m) {
    if (++values_ > kMaxSpecValues) throw TooManyValues{m};
  }
  long values_ = 0;
};

// `expanded`: counted with aliases expanded (an alias bomb), else as written.
[[noreturn]] void too_many_values(const std::string& name, int line, int column,
                                  const std::string& path, bool expanded) {
  throw SpecError(name, line, column, path,
                  fmt::format("the file holds more than {} values{}: no spec is that large; {}",
                              kMaxSpecValues, expanded ? " once its aliases are expanded" : "",
                              expanded ? "write the values out instead of nesting aliases"
                                       : "check that this is the spec you meant"));
}

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
    if (++values_ > kMaxSpecValues) {
      const YAML::Mark m = n.Mark();
      too_many_values(name_, m.is_null() ? 1 : m.line + 1, m.is_null() ? 1 : m.column + 1, path,
                      true);
    }
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
  // In chunks up to one byte past the limit: a spec is a few kB, and a
  // load (sweeps load many) should not zero the limit's 16 MiB each time.
  std::string text;
  char chunk[64 * 1024];
  while (text.size() <= kMaxSpecBytes && in) {
    in.read(chunk, sizeof(chunk));
    text.append(chunk, static_cast<size_t>(in.gcount()));
  }
  if (in.bad())
    throw SpecError(path, 0, 0, "",
                    fmt::format("cannot read the spec file ({})", std::strerror(errno)));
  if (text.size() > kMaxSpecBytes)
    throw SpecError(path, 0, 0, "",
                    fmt::format("is larger than {} MiB, which no spec is: check that this is the "
                                "spec you meant",
                                kMaxSpecBytes >> 20));
  return text;
}

YAML::Node parse_spec_yaml(const std::string& text, const std::string& name) {
  const auto syntax_error = [&](const YAML::ParserException& e) {
    return SpecError(name, e.mark.line + 1, e.mark.column + 1, "",
                     fmt::format("YAML syntax error: {}; check the indentation, the ':' after each "
                                 "key and matching brackets",
                                 printable(e.msg)));
  };
  // First the events alone: yaml-cpp 0.7 takes a ',' that no bracket opened
  // for an empty document and leaves it unread, so YAML::LoadAll adds empty
  // documents until memory runs out. Three documents at most tell a second
  // document from a token read twice; the values are counted before any tree
  // is built.
  StreamScan scan;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    for (int i = 0; i < 3 && parser.HandleNextDocument(scan); ++i) {
    }
  } catch (const TooManyValues& t) {
    too_many_values(name, t.mark.line + 1, t.mark.column + 1, "", false);
  } catch (const YAML::ParserException& e) {
    throw syntax_error(e);
  } catch (const YAML::Exception& e) {
    throw SpecError(name, 1, 1, "", fmt::format("cannot parse the YAML: {}", printable(e.msg)));
  }
  const std::vector<YAML::Mark>& starts = scan.starts;
  for (size_t i = 1; i < starts.size(); ++i) {
    if (starts[i].pos != starts[i - 1].pos) continue;
    const auto at = static_cast<size_t>(starts[i].pos);
    throw SpecError(name, starts[i].line + 1, starts[i].column + 1, "",
                    at < text.size() && text[at] == ','
                        ? "YAML syntax error: a ',' outside brackets; a ',' separates the items "
                          "of a [list] or a {map}: remove it, or quote the value if you mean the "
                          "text (\",\")"
                        : "YAML syntax error: nothing can start with what stands here; remove it, "
                          "or quote the value if you mean the text");
  }
  if (starts.size() > 1) {
    const YAML::Mark m = starts[1];
    const int marker = marker_line(text, m.line, starts[0].line);
    throw SpecError(name, marker >= 0 ? marker + 1 : m.line + 1, marker >= 0 ? 1 : m.column + 1, "",
                    "a second YAML document starts here: a spec file is one document; remove "
                    "this '---' and what follows it, or merge its keys into the first document");
  }
  if (starts.empty()) return YAML::Node();
  YAML::Node root;
  try {
    root = YAML::Load(text);  // the one document, as the scan read it
  } catch (const YAML::ParserException& e) {
    throw syntax_error(e);
  }
  PlainChecker(name).check(root, "", 0);
  return root;
}

}  // namespace fabemu::spec_detail
