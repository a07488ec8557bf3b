// Internal to control/spec: where a value came from (Origin), the reading
// context that turns a bad YAML node into a SpecError naming file, line,
// column and field (Ctx), and one row of the field table (Field). Shared by
// the field table (spec_fields.cpp) and the loader (spec_loader.cpp).
#pragma once
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "control/spec/spec_problem.h"
#include "control/spec/numbers.h"
#include "control/spec/profiles.h"
#include "control/topology/registry.h"
#include "dataplane/engine/engine_base.h"
#include "dataplane/core/fabric.h"
#include "dataplane/endpoint/traffic.h"
#include "control/spec/spec_error.h"

namespace fabemu {
namespace spec_detail {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
// Synthetic messages are at most the largest IP datagram: enough for any
// traffic mix the papers describe, and it keeps a message's segment count
// well inside the 16-bit segment index of PacketMeta.
constexpr int64_t kMaxMessageBytes = 65536;
using ::fabemu::kMaxRouters;  // control/spec/spec_problem.h
// Highest CPU number run.cores may name (glibc's cpu_set_t holds 1024).
constexpr int64_t kMaxCpu = 1023;
constexpr int kTorusDirections = 6;
// Torus coordinates are bytes in the T3E routing tables.
constexpr int64_t kMaxTorusRadix = 255;

// Bounds of times and rates: what the engine's integer picosecond clock
// represents and what makes physical sense. Below them a time rounds to 0 ps
// (a zero-latency link stalls conservative windows, a zero unit time has no
// rate); above them a run never ends or its clock overflows.
constexpr double kClockTickNs = 0.001;  // 1 ps
constexpr double kMaxLatencyNs = 1e6;   // 1 ms per link or router
constexpr double kMaxRunNs = 1e10;      // 10 s of emulated time per run phase
constexpr double kMaxWallS = 1e6;       // 11.6 days of wall clock
constexpr const char* kLatencyWhy =
    "the engine's clock ticks in picoseconds, so a latency rounds to 0 below 0.001 ns, and a "
    "link or router pipeline slower than 1 ms is no fabric";
constexpr const char* kRunWhy =
    "a virtual-time run emulates a few milliseconds of a 64-router fabric per wall-clock "
    "second, so 10 s of emulated time (1e10 ns) already takes hours";
constexpr const char* kWallWhy = "longer runs are better made as several";

// Where the current value of a field came from (spec.h), so that a
// cross-field error can point at the line the user wrote (or the --set they
// typed).
using Origin = SpecOrigin;

inline std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) {
    if (!s.empty()) s += sep;
    s += x;
  }
  return s.empty() ? std::string("(none registered in this build)") : s;
}

// How a node looks to a user, for "expected X, got Y".
inline std::string shown(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return "nothing";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Scalar:
      break;
  }
  return n.Tag() == "!" ? "the quoted string \"" + printable(n.Scalar()) + "\""
                        : "'" + printable(n.Scalar()) + "'";
}

// Edit distance, for "did you mean" on unknown keys.
inline size_t distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Reads one value (or one element of a list value) and reports problems
// against the right field and location. Readers in the field table get one.
class Ctx {
 public:
  Ctx(const std::string* file, const Origin* base, std::map<std::string, Origin>* origins,
      std::string path, const char* help, YAML::Mark fallback)
      : file_(file),
        base_(base),
        origins_(origins),
        path_(std::move(path)),
        help_(help),
        fallback_(fallback) {}

  const std::string& path() const { return path_; }
  // " at line N" for a value from the file; "" otherwise (a --set value has
  // no line worth naming).
  std::string at_line(const YAML::Node& n) const {
    if (base_->kind != Origin::Kind::file || n.Mark().is_null()) return "";
    return fmt::format(" at line {}", n.Mark().line + 1);
  }
  Ctx item(size_t i) const { return derived(fmt::format("{}[{}]", path_, i)); }
  Ctx member(const std::string& key) const { return derived(path_ + "." + key); }
  // A key of a list item that has a row of its own in the field table
  // (ports[].vlan): its errors carry that row's help instead of the list's.
  Ctx member(const std::string& key, const char* help_key, const char* help) const {
    Ctx c = member(key);
    c.help_key_ = help_key;
    c.help_ = help;
    return c;
  }

  // Remembers where this (sub)value came from, for cross-field checks.
  void record(const YAML::Node& n) const { (*origins_)[path_] = origin(n); }
  // Drops what was recorded for the items of this list (a new value of the
  // list replaces them all, and an item key left out must not keep the
  // location of an earlier value).
  void forget_items() const {
    const std::string prefix = path_ + "[";
    for (auto it = origins_->lower_bound(prefix);
         it != origins_->end() && it->first.compare(0, prefix.size(), prefix) == 0;)
      it = origins_->erase(it);
  }

  Origin origin(const YAML::Node& n) const {
    Origin o = *base_;
    if (o.kind == Origin::Kind::file) {
      YAML::Mark m = n.Mark();
      if (m.is_null()) m = fallback_;
      o.line = m.line + 1;
      o.column = m.column + 1;
    }
    return o;
  }

  // The message says what was wrong; the field's help is appended so the
  // user sees what the key means and can pick a sensible value.
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const {
    std::string m = msg;
    if (help_ && *help_) m += fmt::format(" ({}: {})", root_path(), help_);
    const Origin o = origin(n);
    switch (o.kind) {
      case Origin::Kind::file:
        throw SpecError(*file_, o.line, o.column, path_, m);
      case Origin::Kind::set:
        throw SpecError(*file_, 0, 0, path_, m, o.set_arg);
      case Origin::Kind::profile:
        break;
    }
    throw SpecError(
        *file_, 0, 0, path_,
        fmt::format("the default of profile '{}' is invalid, a bug in fabemu: {}", o.profile, m));
  }

  void expect_scalar(const YAML::Node& n, const char* what) const {
    if (!n.IsScalar()) fail(n, fmt::format("expected {}, got {}", what, shown(n)));
  }

  int64_t integer(const YAML::Node& n, int64_t lo, int64_t hi) const {
    const char* what = "an integer";
    expect_scalar(n, what);
    if (n.Tag() == "!")
      fail(n, fmt::format("expected {}, got {}: remove the quotes", what, shown(n)));
    std::string t = n.Scalar();
    const char* b = t.data() + (!t.empty() && t[0] == '+');
    int64_t v = 0;
    auto [p, ec] = std::from_chars(b, t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size() || b == p)
      fail(n, fmt::format("expected {}, got {}", what, shown(n)));
    if (v < lo || v > hi) {
      std::string range = hi >= kIntMax ? (lo == 1   ? std::string("a positive integer")
                                           : lo == 0 ? std::string("an integer >= 0")
                                                     : fmt::format("an integer >= {}", lo))
                                        : fmt::format("an integer from {} to {}", lo, hi);
      fail(n, fmt::format("got {}, but it must be {}", v, range));
    }
    return v;
  }

  uint64_t uinteger(const YAML::Node& n) const {
    expect_scalar(n, "an integer >= 0");
    std::string t = n.Scalar();
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (n.Tag() == "!" || ec != std::errc() || p != t.data() + t.size() || t.empty())
      fail(n, fmt::format("expected an integer from 0 to {}, got {}",
                          std::numeric_limits<uint64_t>::max(), shown(n)));
    return v;
  }

  // A number in the interval lo..hi, each end open or closed.
  double number(const YAML::Node& n, double lo, bool lo_open, double hi, bool hi_open) const {
    expect_scalar(n, "a number");
    if (n.Tag() == "!")
      fail(n, fmt::format("expected a number, got {}: remove the quotes", shown(n)));
    const std::string t = n.Scalar();
    double v = 0;
    if (!decimal_number(t, &v))
      fail(n, fmt::format("expected a number, got {}{}", shown(n), decimal_hint(t)));
    const bool below = lo_open ? !(v > lo) : v < lo;
    const bool above = hi_open ? !(v < hi) : v > hi;
    if (below || above) {
      std::string range;
      if (hi == kInf && lo == 0)
        range = lo_open ? "a positive number" : "a number >= 0";
      else if (hi == kInf)
        range = fmt::format("a number {} {}", lo_open ? ">" : ">=", lo);
      else
        range =
            fmt::format("a number in {}{}, {}{}", lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']');
      fail(n, fmt::format("got {}, but it must be {}", printable(t), range));
    }
    return v;
  }
  // A number from lo to hi (0 too when zero_ok: a value that turns something
  // off); `why` says where the bounds come from.
  double bounded(const YAML::Node& n, double lo, double hi, const char* why,
                 bool zero_ok = false) const {
    const double v = number(n, -kInf, false, kInf, false);
    if ((zero_ok && v == 0) || (v >= lo && v <= hi)) return v;
    fail(n, fmt::format("got {}, but it must be {}from {:g} to {:g}: {}", printable(n.Scalar()),
                        zero_ok ? "0 or " : "", lo, hi, why));
  }
  double positive(const YAML::Node& n) const { return number(n, 0, true, kInf, false); }
  double non_negative(const YAML::Node& n) const { return number(n, 0, false, kInf, false); }

  bool boolean(const YAML::Node& n) const {
    expect_scalar(n, "true or false");
    std::string t = n.Scalar();
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    if (n.Tag() != "!") {
      if (t == "true" || t == "yes" || t == "on") return true;
      if (t == "false" || t == "no" || t == "off") return false;
    }
    fail(n, fmt::format("expected true or false, got {}", shown(n)));
  }

  // A non-empty string; `what` says what it names, for the messages.
  std::string text(const YAML::Node& n, const char* what = "a name") const {
    expect_scalar(n, what);
    if (n.Scalar().empty()) fail(n, fmt::format("expected {}, got an empty string", what));
    return n.Scalar();
  }

  std::string one_of(const YAML::Node& n, const std::vector<std::string>& allowed) const {
    std::string t = text(n);
    if (std::find(allowed.begin(), allowed.end(), t) == allowed.end())
      fail(n, fmt::format("unknown value '{}': use one of {}", printable(t), join(allowed)));
    return t;
  }

  void expect_list(const YAML::Node& n, const char* what) const {
    if (!n.IsSequence()) fail(n, fmt::format("expected {}, got {}", what, shown(n)));
  }

  // Checks that a map (a list element such as {bytes, weight}) has only the
  // given keys, each once.
  void expect_keys(const YAML::Node& n, const std::vector<std::string>& known) const {
    std::set<std::string> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string k = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
      Ctx kc = member(k);
      if (std::find(known.begin(), known.end(), k) == known.end())
        kc.fail(it->first,
                fmt::format("unknown key '{}'; known keys here: {}", printable(k), join(known)));
      if (!seen.insert(k).second)
        kc.fail(it->first, fmt::format("key '{}' is given twice; keep one", printable(k)));
    }
  }

 private:
  Ctx derived(std::string path) const {
    Ctx c(file_, base_, origins_, std::move(path), help_, fallback_);
    c.help_key_ = help_key_;
    return c;
  }
  // "traffic.sizes" for "traffic.sizes[2].bytes": the key the help is about.
  std::string root_path() const {
    return help_key_.empty() ? path_.substr(0, path_.find('[')) : help_key_;
  }

  const std::string* file_;
  const Origin* base_;
  std::map<std::string, Origin>* origins_;
  std::string path_;
  const char* help_;
  std::string help_key_;  // the table row help_ comes from, when not root_path()
  YAML::Mark fallback_;
};

using ReadFn = void (*)(Spec&, const YAML::Node&, const Ctx&);

// One spec key. The defaults are YAML text, read by the same reader as the
// user's value, so a profile cannot hold a value the loader would refuse.
// An empty default means the profile does not use the key (it keeps the
// built-in value of spec.h). Rows "LIST[].KEY" (ports[].vlan) are the keys
// of one item of a list: the list's reader applies them (an empty default
// there means the key is required); a spec cannot name them directly.
struct Field {
  const char* path;
  const char* type;
  const char* unit;
  const char* source;
  const char* help;
  ReadFn read;
  // The topology families the key means something for ("torus"); nullptr:
  // every family. A file or --set that gives it for another family is
  // refused rather than ignored.
  const char* families = nullptr;
};


}  // namespace spec_detail
}  // namespace fabemu
