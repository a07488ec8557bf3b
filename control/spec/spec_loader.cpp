// Spec loading: the field table (every key, its type, unit, profile defaults,
// source and meaning, beside the code that reads it), the YAML walk that
// applies it with unknown-key and duplicate-key checks, --set overrides, and
// the cross-field validation that needs the whole spec (routing vs family,
// VC counts, packet vs buffer sizes, endpoint mapping).
#include "control/spec/spec_loader.h"

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

#include "control/spec/profiles.h"
#include "control/topology/registry.h"
#include "dataplane/engine/engine_base.h"
#include "dataplane/core/fabric.h"
#include "dataplane/endpoint/traffic.h"

namespace fabemu {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
// Synthetic messages are at most the largest IP datagram: enough for any
// traffic mix the papers describe, and it keeps a message's segment count
// well inside the 16-bit segment index of PacketMeta.
constexpr int64_t kMaxMessageBytes = 65536;
// The largest fabric the emulator sizes its tables for (BlackWidow's R3
// scales to 32K processors).
constexpr int64_t kMaxRouters = 32768;
constexpr int kTorusDirections = 6;
// Torus coordinates are bytes in the T3E routing tables.
constexpr int64_t kMaxTorusRadix = 255;

// Where the current value of a field came from, so that a cross-field error
// can point at the line the user wrote (or the --set they typed).
struct Origin {
  enum class Kind { profile, file, set };
  explicit Origin(Kind k = Kind::profile) : kind(k) {}
  Kind kind;
  int line = 0;  // 1-based (file only)
  int column = 0;
  std::string set_arg;  // the --set argument (set only)
  std::string profile;  // the profile whose default it is (profile only)
};

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) {
    if (!s.empty()) s += sep;
    s += x;
  }
  return s.empty() ? std::string("(none registered in this build)") : s;
}

// How a node looks to a user, for "expected X, got Y".
std::string shown(const YAML::Node& n) {
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
  return n.Tag() == "!" ? "the quoted string \"" + n.Scalar() + "\"" : "'" + n.Scalar() + "'";
}

// Edit distance, for "did you mean" on unknown keys.
size_t distance(const std::string& a, const std::string& b) {
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
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v))
      fail(n, fmt::format("expected a number, got {}", shown(n)));
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
      fail(n, fmt::format("got {}, but it must be {}", t, range));
    }
    return v;
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
      fail(n, fmt::format("unknown value '{}': use one of {}", t, join(allowed)));
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
        kc.fail(it->first, fmt::format("unknown key '{}'; known keys here: {}", k, join(known)));
      if (!seen.insert(k).second)
        kc.fail(it->first, fmt::format("key '{}' is given twice; keep one", k));
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
  const char* t3e;
  const char* yarc;
  const char* source;
  const char* help;
  ReadFn read;
};

// Spec names of the traffic patterns of dataplane/engine/engine_base.h.
const std::vector<std::pair<std::string, Pattern>>& patterns() {
  static const std::vector<std::pair<std::string, Pattern>> v{
      {"uniform", Pattern::uniform},  {"transpose", Pattern::transpose},
      {"bitcomp", Pattern::bitcomp},  {"tornado", Pattern::tornado},
      {"hotspot", Pattern::hotspot},  {"permutation", Pattern::permutation},
      {"neighbor", Pattern::neighbor}};
  return v;
}

std::vector<std::string> pattern_names() {
  std::vector<std::string> v;
  for (const auto& p : patterns()) v.push_back(p.first);
  return v;
}

Pattern pattern_of(const std::string& name) {
  for (const auto& p : patterns())
    if (p.first == name) return p.second;
  return Pattern::uniform;
}

std::vector<std::string> profile_list() {
  std::vector<std::string> v;
  for (const auto& p : profiles()) v.emplace_back(p.name);
  return v;
}

void read_sizes(Spec& s, const YAML::Node& n, const Ctx& c) {
  c.expect_list(n, "a list of message sizes, e.g. [64] or [{bytes: 8, weight: 3}, {bytes: 64}]");
  if (n.size() == 0) c.fail(n, "the size mix is empty: give at least one size");
  std::vector<PacketSize> v;
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node e = n[i];
    const Ctx ec = c.item(i);
    PacketSize ps;
    if (e.IsMap()) {
      ec.expect_keys(e, {"bytes", "weight"});
      if (!e["bytes"]) ec.fail(e, "this size has no 'bytes': give {bytes: N, weight: W}");
      ps.bytes = static_cast<uint32_t>(ec.member("bytes").integer(e["bytes"], 1, kMaxMessageBytes));
      if (e["weight"]) ps.weight = ec.member("weight").positive(e["weight"]);
    } else {
      ps.bytes = static_cast<uint32_t>(ec.integer(e, 1, kMaxMessageBytes));
    }
    v.push_back(ps);
  }
  s.traffic.sizes = std::move(v);
}

void read_endpoint_map(Spec& s, const YAML::Node& n, const Ctx& c) {
  c.expect_list(n, "a list of {id, router, port} entries");
  std::vector<EndpointMap> v;
  std::map<int, size_t> by_id;
  std::map<std::pair<int, int>, size_t> by_port;
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node e = n[i];
    const Ctx ec = c.item(i);
    if (!e.IsMap())
      ec.fail(e, fmt::format("expected a map {{id, router, port}}, got {}", shown(e)));
    ec.expect_keys(e, {"id", "router", "port"});
    for (const char* k : {"id", "router", "port"})
      if (!e[k]) ec.fail(e, fmt::format("this entry has no '{}': give {{id, router, port}}", k));
    EndpointMap m;
    m.id = static_cast<int>(ec.member("id").integer(e["id"], 0, kIntMax));
    m.router = static_cast<int>(ec.member("router").integer(e["router"], 0, kMaxRouters - 1));
    m.port = static_cast<int>(ec.member("port").integer(e["port"], 0, kMaxPorts - 1));
    ec.record(e);
    // Duplicates are reported on the second entry, naming the first, so the
    // user sees both places.
    if (auto it = by_id.find(m.id); it != by_id.end())
      ec.member("id").fail(e["id"], fmt::format("endpoint {} is mapped twice (also entry {}{}); "
                                                "give each endpoint one entry",
                                                m.id, it->second, c.at_line(n[it->second])));
    if (auto it = by_port.find({m.router, m.port}); it != by_port.end())
      ec.fail(
          e, fmt::format("router {} port {} already hosts endpoint {} (entry {}{}); "
                         "attach each endpoint to its own port",
                         m.router, m.port, v[it->second].id, it->second, c.at_line(n[it->second])));
    by_id[m.id] = i;
    by_port[{m.router, m.port}] = i;
    v.push_back(m);
  }
  s.endpoint_map = std::move(v);
}

void read_eal(Spec& s, const YAML::Node& n, const Ctx& c) {
  c.expect_list(n, "a list of EAL arguments, e.g. [\"--vdev=net_null0\"]");
  std::vector<std::string> v;
  for (size_t i = 0; i < n.size(); ++i)
    v.push_back(c.item(i).text(n[i], "an EAL argument such as --vdev=net_null0"));
  s.run.eal = std::move(v);
}

// "02:00:00:00:00:01" (hex in either case) in lower case; fails on anything
// that is not the unicast address of one host.
std::string mac_address(const YAML::Node& n, const Ctx& c) {
  const std::string t = c.text(n, "a MAC address such as \"02:00:00:00:00:01\"");
  const auto hex = [](char ch) { return std::isxdigit(static_cast<unsigned char>(ch)) != 0; };
  bool ok = t.size() == 17;
  for (size_t i = 0; ok && i < t.size(); ++i) ok = i % 3 == 2 ? t[i] == ':' : hex(t[i]);
  if (!ok)
    c.fail(n, fmt::format("'{}' is not a MAC address: write six hex octets separated by colons, "
                          "e.g. \"02:00:00:00:00:01\"",
                          t));
  std::string mac = t;
  std::transform(mac.begin(), mac.end(), mac.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (mac == "00:00:00:00:00:00")
    c.fail(n, "00:00:00:00:00:00 is no host's address: give the MAC of a host behind the port");
  if (std::stoi(mac.substr(0, 2), nullptr, 16) & 1)
    c.fail(n,
           fmt::format("{} is a group (multicast or broadcast) address: the low bit of its first "
                       "octet is set; give the unicast MAC of a host behind the port",
                       mac));
  return mac;
}

void read_macs(Spec& s, const YAML::Node& n, const Ctx& c) {
  c.expect_list(n, "a list of MAC addresses, e.g. [\"02:00:00:00:00:01\"]");
  std::vector<std::string> v;
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string mac = mac_address(n[i], c.item(i));
    if (auto it = std::find(v.begin(), v.end(), mac); it != v.end())
      c.item(i).fail(
          n[i], fmt::format("{} is listed twice (also item {}); keep one", mac, it - v.begin()));
    v.push_back(mac);
  }
  s.ports.back().macs = std::move(v);
}

const std::vector<Field>& fields();

// The rows "ports[].KEY" of the field table read the keys of one binding.
constexpr std::string_view kPortKey = "ports[].";

bool is_item_key(const char* path) { return std::strchr(path, '[') != nullptr; }

// The device a binding names: a vdev's arguments follow its name after a
// comma ("net_af_packet0,iface=fe0").
std::string device_name(const std::string& device) { return device.substr(0, device.find(',')); }

// Reads `ports:` through its item rows (each key's default and reader are in
// the table, like every other key), then refuses what would make two
// bindings ambiguous. Like read_endpoint_map, a clash is reported on the
// later binding and names the earlier one with its line.
void read_ports(Spec& s, const YAML::Node& n, const Ctx& c) {
  c.expect_list(n, "a list of port bindings, e.g. [{device: net_ring0, endpoint: 0}]");
  c.forget_items();
  std::vector<const Field*> rows;
  std::vector<std::string> known, required, optional;
  for (const Field& f : fields()) {
    if (std::string_view(f.path).substr(0, kPortKey.size()) != kPortKey) continue;
    rows.push_back(&f);
    known.emplace_back(f.path + kPortKey.size());
    (*f.t3e ? optional : required).push_back(known.back());
  }
  const std::string keys_hint = fmt::format("{{{}}}", join(required));
  s.ports.clear();
  for (size_t i = 0; i < n.size(); ++i) {
    const YAML::Node e = n[i];
    const Ctx ec = c.item(i);
    if (!e.IsMap())
      ec.fail(e, fmt::format("expected a map {} (optional: {}), got {}", keys_hint, join(optional),
                             shown(e)));
    ec.expect_keys(e, known);
    for (const auto& k : required)
      if (!e[k])
        ec.fail(e, fmt::format("this binding has no '{}': give at least {}", k, keys_hint));
    ec.record(e);
    s.ports.emplace_back();  // the item rows fill s.ports.back()
    for (const Field* f : rows) {
      const std::string key = f->path + kPortKey.size();
      const Ctx kc = ec.member(key, f->path, f->help);
      if (e[key]) {
        f->read(s, e[key], kc);
        kc.record(e[key]);
      } else {  // an item's default is the same in both columns
        std::string def = f->t3e;
        if (const size_t at = def.find("<i>"); at != std::string::npos)
          def.replace(at, 3, std::to_string(i));
        f->read(s, YAML::Load(def), kc);
      }
    }
    const PortBinding& b = s.ports.back();
    const auto key_ctx = [&](const std::string& key) {
      const Field* f = *std::find_if(rows.begin(), rows.end(), [&](const Field* r) {
        return key == r->path + kPortKey.size();
      });
      return ec.member(key, f->path, f->help);
    };
    // Where a key of item i is (the item itself when the key was left out).
    const auto at = [&](const std::string& key) { return e[key] ? e[key] : e; };
    for (size_t j = 0; j + 1 < s.ports.size(); ++j) {
      const PortBinding& o = s.ports[j];
      const std::string other = fmt::format("ports[{}] '{}'{}", j, o.name, c.at_line(n[j]));
      if (o.name == b.name)
        key_ctx("name").fail(at("name"), fmt::format("name '{}' is already taken by {}; give each "
                                                     "binding its own name",
                                                     b.name, other));
      if (o.endpoint == b.endpoint)
        key_ctx("endpoint")
            .fail(e["endpoint"], fmt::format("endpoint {} is already bound to {}; bind each "
                                             "endpoint to one port",
                                             b.endpoint, other));
      if (device_name(o.device) == device_name(b.device) && o.device != b.device)
        key_ctx("device").fail(e["device"],
                               fmt::format("device '{}' is given as '{}' in {}: one DPDK device "
                                           "has one set of arguments; write the same string",
                                           device_name(b.device), o.device, other));
      for (size_t m = 0; m < b.macs.size(); ++m)
        if (std::find(o.macs.begin(), o.macs.end(), b.macs[m]) != o.macs.end())
          key_ctx("macs").item(m).fail(
              e["macs"][m], fmt::format("{} is already pinned to {}: frames from it could not be "
                                        "told apart; give each MAC to one binding",
                                        b.macs[m], other));
      if (o.device == b.device && o.vlan == b.vlan && (o.macs.empty() || b.macs.empty()))
        key_ctx("macs").fail(
            at("macs"),
            fmt::format(
                "{} is on the same device '{}' and {}: frames could not be told apart; "
                "bindings that share a device and VLAN need non-empty, disjoint macs "
                "(their hosts' MACs), or give them different vlans or devices",
                other, b.device,
                b.vlan ? fmt::format("VLAN {}", b.vlan) : std::string("untagged (vlan 0)")));
    }
  }
}

// Short names for the sources in the table; spec_reference_markdown() spells
// them out.
#define T3E "[T3E]"
#define BW "[BW]"

// clang-format off
const std::vector<Field>& fields() {
  static const std::vector<Field> table{
    // --- profile: read before every other key (its defaults come first).
    {"profile", "string", "", "t3e", "yarc", "fabemu default (t3e)",
     "which defaults to start from: t3e, yarc, or custom (t3e numbers, topology.family required)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.profile = c.one_of(n, profile_list()); }},

    // --- topology: read by the topology builders (control/topology).
    {"topology.family", "string", "", "torus", "clos", T3E " §1; " BW " §2.2",
     "topology family, as registered by the builders: torus, clos",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.topology.family = c.text(n); }},
    {"topology.dims", "[int, int, int]", "routers", "[4, 4, 4]", "", T3E " §1 (up to 8x32x8)",
     "torus size kx, ky, kz; each at least 2",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       c.expect_list(n, "three sizes [kx, ky, kz]");
       if (n.size() != 3)
         c.fail(n, fmt::format("got {} sizes: give three, [kx, ky, kz]", n.size()));
       for (size_t i = 0; i < 3; ++i) {
         const int64_t k = c.item(i).integer(n[i], std::numeric_limits<int32_t>::min(), kIntMax);
         if (k < 2)
           c.item(i).fail(n[i], fmt::format("a torus dimension of {} has no links: give at least 2", k));
         if (k > kMaxTorusRadix)
           c.item(i).fail(n[i], fmt::format("got {}: a dimension of more than {} routers is not supported", k, kMaxTorusRadix));
         s.topology.dims[i] = static_cast<int>(k);
       }
     }},
    {"topology.rank", "int", "", "", "1", BW " §2.2 (R1: 32 processors; R2: up to 1024)",
     "clos rank: 1 (one stage, up to 32 endpoints) or 2 (33 to 1024 endpoints)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       const int64_t r = c.integer(n, std::numeric_limits<int32_t>::min(), kIntMax);
       if (r != 1 && r != 2) c.fail(n, fmt::format("clos rank {} is not supported: give 1 or 2", r));
       s.topology.rank = static_cast<int>(r);
     }},
    {"topology.endpoints", "int", "endpoints", "", "32", BW " §2.2",
     "clos endpoints: 1..32 at rank 1, 33..1024 at rank 2",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       s.topology.endpoints = static_cast<int>(c.integer(n, 1, kIntMax));
     }},
    {"topology.endpoints_per_router", "int", "endpoints", "1", "", T3E " §1 (one PE per router)",
     "torus endpoints attached to each router",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       s.topology.endpoints_per_router = static_cast<int>(c.integer(n, 1, kMaxPorts - kTorusDirections));
     }},

    // --- link: read by the topology builders to time each link.
    {"link.lanes", "int", "lanes", "14", "3", T3E " §1 (14-bit phit); " BW " abstract (3 x 6.25 Gb/s)",
     "signal lanes per link direction",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.lanes = static_cast<int>(c.integer(n, 1, 256)); }},
    {"link.lane_gbps", "number", "Gb/s", "0.375", "6.25", T3E " §10 (375 MHz); " BW " §4.4",
     "raw signalling rate of one lane",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.lane_gbps = c.positive(n); }},
    {"link.coding", "number", "", "1.0", "0.8", T3E " §10 (clock forwarded, no line code); " BW " §6 (16b20b)",
     "line-coding efficiency, in (0, 1]: payload bits per signalled bit",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.coding = c.number(n, 0, true, 1, false); }},
    {"link.phit_bits", "int", "bits", "14", "24", T3E " §1; " BW " §4.1",
     "phit width",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.phit_bits = static_cast<int>(c.integer(n, 1, 1024)); }},
    {"link.phits_per_unit", "int", "phits", "5", "1", T3E " §1 (flit = 5 phits, one per 13.3 ns); " BW " §4.2 (the phit is the flit)",
     "phits per flow-control unit (flit); 1 when flow control counts phits",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.phits_per_unit = static_cast<int>(c.integer(n, 1, 64)); }},
    {"link.wire_ns", "number", "ns", "5", "10", "assumption: " T3E " §10 cables up to ~1 m; " BW ": SerDes + a few metres of cable",
     "SerDes plus wire latency of one link; the t3e router latencies already include it",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.wire_ns = c.positive(n); }},

    // --- router: read by the routing policies (pipeline latency per hop).
    {"router.latency_ns", "number", "ns", "", "31.25", BW " §3 (25 stages at 800 MHz)",
     "router pipeline latency, input to output (clos)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.latency_ns = c.positive(n); }},
    {"router.straight_ns", "number", "ns", "40", "", T3E " Table 2",
     "torus fall-through going straight, input pins to next input pins",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.straight_ns = c.positive(n); }},
    {"router.turn_ns", "number", "ns", "80", "", T3E " Table 2",
     "torus fall-through when changing dimension",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.turn_ns = c.positive(n); }},
    {"router.endpoint_ns", "number", "ns", "133", "", T3E " Table 2",
     "torus fall-through at the source and destination routers",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.endpoint_ns = c.positive(n); }},
    {"router.radix", "int", "ports", "", "64", BW " §3",
     "router ports (clos)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.radix = static_cast<int>(c.integer(n, 2, kMaxPorts)); }},
    {"router.input_speedup", "int", "packets", "1", "1", "input-queued router with a separable allocator (inputs, then outputs)",
     "packets one input port may send through the switch at the same time (its VCs share them); 1..4",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.input_speedup = static_cast<int>(c.integer(n, 1, 4)); }},
    {"router.output_speedup", "int", "packets", "1", "1", "input-queued router: an output link serialises one packet at a time",
     "packets one output may accept at the same time; only 1 until a router model with output buffers exists",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.output_speedup = static_cast<int>(c.integer(n, 1, 1)); }},

    // --- vcs: read by the engine (credits and buffers per port and VC).
    {"vcs.count", "int", "VCs", "5", "2", T3E " §1 (5 VCs); " BW " §4.2 (request, response)",
     "virtual channels per port; the routing algorithm bounds it",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.vcs.count = static_cast<int>(c.integer(n, 1, kMaxVcs)); }},
    {"vcs.buffer_units", "int", "flow units", "12", "256", T3E " §1 (12 flits); " BW " §4.2 (256 phits)",
     "input buffer per port and VC; must hold a whole packet (virtual cut-through)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.vcs.buffer_units = static_cast<int>(c.integer(n, 1, 1 << 20)); }},
    {"vcs.adaptive_buffer_units", "int", "flow units", "22", "", T3E " §1 (22 flits)",
     "input buffer of the torus adaptive VC",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.vcs.adaptive_buffer_units = static_cast<int>(c.integer(n, 1, 1 << 20)); }},

    // --- routing: resolved once through the Registry.
    {"routing", "string", "", "direction_order", "updown", T3E " §2.1; " BW " §5",
     "routing algorithm for the family: torus: direction_order; clos: updown",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.routing = c.text(n); }},

    // --- packet: read by the codecs and the traffic sources.
    {"packet.max_units", "int", "flow units", "10", "19", T3E " Table 3 (vector put, 10 flits); " BW " §7.5 (19 phits)",
     "longest packet, header included; longer messages are segmented",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.packet.max_units = static_cast<int>(c.integer(n, 1, 4096)); }},
    {"packet.header_units", "int", "flow units", "2", "6", T3E " Table 3 (two header flits); " BW " §4.1 (head, hash, 4 transport phits)",
     "header units per packet (a 32-byte yarc write: 6 header + 12 data + 1 EOP = 19 phits)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.packet.header_units = static_cast<int>(c.integer(n, 1, 4096)); }},

    // --- traffic: read by the synthetic sources.
    {"traffic.pattern", "string", "", "uniform", "uniform", "fabemu default",
     "destinations: uniform, transpose, bitcomp, tornado, hotspot, permutation, neighbor",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.pattern = c.one_of(n, pattern_names()); }},
    {"traffic.load", "number", "fraction", "0.3", "0.3", "fabemu default",
     "offered load per endpoint as a fraction of its injection bandwidth, in [0, 1]; 0: no "
     "synthetic traffic (real time: only the ports' frames)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.load = c.number(n, 0, false, 1, false); }},
    {"traffic.process", "string", "", "bernoulli", "bernoulli", "fabemu default",
     "injection process: bernoulli (independent messages) or batch (batch_size at once)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.process = c.one_of(n, {"bernoulli", "batch"}); }},
    {"traffic.batch_size", "int", "messages", "1", "1", "fabemu default",
     "messages injected back to back by the batch process",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.batch_size = static_cast<int>(c.integer(n, 1, 65536)); }},
    {"traffic.sizes", "list of int or {bytes, weight}", "bytes", "[64]", "[32]", T3E " Table 3 (vector put, 8 words); " BW " §4.1 (32-byte write)",
     "message payload mix, e.g. [64] or [{bytes: 8, weight: 3}, {bytes: 64, weight: 1}]",
     read_sizes},
    {"traffic.reply_fraction", "number", "fraction", "0.0", "0.0", "fabemu default",
     "fraction of messages that are requests answered by a response, in [0, 1]",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.reply_fraction = c.number(n, 0, false, 1, false); }},
    {"traffic.reply_bytes", "int", "bytes", "8", "8", "fabemu default",
     "payload of each response",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.reply_bytes = static_cast<uint32_t>(c.integer(n, 1, kMaxMessageBytes)); }},
    {"traffic.hotspot", "int", "endpoint", "0", "0", "fabemu default",
     "the hot-spot endpoint of pattern hotspot",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.hotspot = static_cast<int>(c.integer(n, 0, kIntMax)); }},
    {"traffic.hotspot_fraction", "number", "fraction", "0.1", "0.1", "fabemu default",
     "fraction of messages sent to the hot spot, in [0, 1]",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.hotspot_fraction = c.number(n, 0, false, 1, false); }},

    // --- run: read by the runner (control/run).
    {"run.mode", "string", "", "virtual", "virtual", "fabemu default",
     "virtual: synthetic traffic as fast as possible, deterministic for a seed; realtime: emulated time follows the TSC (required for ports)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.mode = c.one_of(n, {"virtual", "realtime"}); }},
    {"run.seed", "int", "", "1", "1", "fabemu default",
     "random seed; the same seed gives the same run",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.seed = c.uinteger(n); }},
    {"run.warmup_ns", "number", "ns", "20000", "20000", "fabemu default",
     "emulated time before measurement starts",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.warmup_ns = c.non_negative(n); }},
    {"run.measure_ns", "number", "ns", "100000", "100000", "fabemu default",
     "emulated time during which generated packets are measured",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.measure_ns = c.positive(n); }},
    {"run.drain_ns", "number", "ns", "1000000", "1000000", "fabemu default",
     "longest emulated time to wait for measured packets after measurement",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.drain_ns = c.non_negative(n); }},
    {"run.workers", "int", "cores", "1", "1", "fabemu default",
     "worker cores, each owning a share of the routers",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.workers = static_cast<int>(c.integer(n, 1, 1024)); }},
    {"run.check_invariants", "bool", "", "false", "false", "fabemu default",
     "check credit conservation at every event (slow; for tests)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.check_invariants = c.boolean(n); }},
    {"run.progress_s", "number", "s", "1.0", "1.0", "fabemu default",
     "wall-clock period of the progress line; 0 turns it off",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.progress_s = c.non_negative(n); }},
    {"run.source_queue_packets", "int", "packets", "256", "256", "fabemu default",
     "bound of each endpoint's source queue; messages beyond it are counted as dropped",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.source_queue_packets = static_cast<int>(c.integer(n, 1, 1 << 24)); }},
    {"run.time_scale", "number", "wall ns per ns", "1", "1", "fabemu default",
     "realtime: wall-clock ns per emulated ns, at least 1; 10 runs the fabric ten times slower than the wall clock",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.time_scale = c.number(n, 1, false, kInf, false); }},
    {"run.duration_s", "number", "s", "0", "0", "fabemu default",
     "realtime: wall-clock seconds to run; 0 runs until SIGINT or SIGTERM",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.duration_s = c.non_negative(n); }},
    {"run.lateness_bound_ns", "number", "ns", "1000", "1000", "fabemu default",
     "realtime: how far an event may fall behind its emulated time before the run warns",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.lateness_bound_ns = c.positive(n); }},
    {"run.mac_aging_s", "number", "s", "300", "300", "fabemu default",
     "realtime: a MAC address learned on a port expires after this long unseen",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.mac_aging_s = c.positive(n); }},
    {"run.eal", "list of strings", "", "[]", "[]", "fabemu default",
     "extra DPDK EAL arguments, e.g. [\"--vdev=net_null0\"]; `fabemu run --eal` adds more after them",
     read_eal},

    // --- endpoints: optional explicit placement, read by the topology builders.
    {"endpoints", "list of {id, router, port}", "", "[]", "[]", "fabemu default (the topology's own placement)",
     "explicit endpoint placement; each id and each router port at most once",
     read_endpoint_map},

    // --- ports: DPDK ports bound to endpoints, read by the runner (control/run).
    // The rows ports[].KEY are the keys of one binding: read_ports applies
    // their defaults (the same in both columns; an empty one: required) and
    // their readers fill s.ports.back().
    {"ports", "list of {name, device, endpoint, vlan, macs, queue_frames}", "", "[]", "[]", "fabemu default (no ports)",
     "DPDK ports whose hosts' Ethernet frames enter and leave the fabric, e.g. [{device: net_ring0, endpoint: 0}]; needs run.mode: realtime; a binding's keys: ports[].KEY",
     read_ports},
    {"ports[].name", "string", "", "port<i>", "port<i>", "fabemu default",
     "label of the binding in reports and messages, unique; `port<i>` is port0, port1, ... by position",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.ports.back().name = c.text(n); }},
    {"ports[].device", "string", "", "", "", "",
     "required: a DPDK port name, vdev arguments (\"net_af_packet0,iface=fe0\") or a PCI address; bindings may share one",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       s.ports.back().device = c.text(n, "a DPDK device (port name, vdev arguments or PCI address)");
     }},
    {"ports[].endpoint", "int", "endpoint", "", "", "",
     "required: the fabric endpoint the port attaches to; each endpoint is bound at most once",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.ports.back().endpoint = static_cast<int>(c.integer(n, 0, kIntMax)); }},
    {"ports[].vlan", "int", "VLAN id", "0", "0", "fabemu default",
     "0: untagged frames; 1..4094: only the frames of this 802.1Q VLAN",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.ports.back().vlan = static_cast<int>(c.integer(n, 0, 4094)); }},
    {"ports[].macs", "list of MAC strings", "", "[]", "[]", "fabemu default",
     "unicast MACs (\"02:00:00:00:00:01\") of the hosts whose frames belong to this binding; bindings on the same device and VLAN need non-empty, disjoint lists",
     read_macs},
    {"ports[].queue_frames", "int", "frames", "64", "64", "fabemu default",
     "ingress queue bound, 1..65536; frames beyond it are tail-dropped",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.ports.back().queue_frames = static_cast<int>(c.integer(n, 1, 65536)); }},
  };
  return table;
}
// clang-format on

#undef T3E
#undef BW

// Keys a spec may set directly (not the ports[].KEY rows of a list item).
const Field* find_field(const std::string& path) {
  for (const auto& f : fields())
    if (path == f.path && !is_item_key(f.path)) return &f;
  return nullptr;
}

bool is_section(const std::string& path) {
  if (path.empty()) return true;
  const std::string prefix = path + ".";
  for (const auto& f : fields())
    if (std::string_view(f.path).substr(0, prefix.size()) == prefix && !is_item_key(f.path))
      return true;
  return false;
}

// The keys a map at `prefix` may hold, in table order.
std::vector<std::string> keys_at(const std::string& prefix) {
  std::vector<std::string> keys;
  const std::string p = prefix.empty() ? "" : prefix + ".";
  for (const auto& f : fields()) {
    std::string_view path(f.path);
    if (path.substr(0, p.size()) != p || is_item_key(f.path)) continue;
    std::string k(path.substr(p.size()));
    k = k.substr(0, k.find('.'));
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  return keys;
}

std::string known_keys_message(const std::string& prefix, const std::string& key) {
  const std::vector<std::string> keys = keys_at(prefix);
  std::string msg = fmt::format(
      "unknown key '{}'{}; known keys {}: {}", key, prefix.empty() ? "" : " in '" + prefix + "'",
      prefix.empty() ? "at the top level" : "in '" + prefix + "'", join(keys));
  std::string best;
  size_t best_d = 3;  // suggest only close misspellings
  for (const auto& k : keys) {
    const size_t d = distance(key, k);
    if (d < best_d) best_d = d, best = k;
  }
  if (!best.empty()) msg += fmt::format(" (did you mean '{}'?)", best);
  return msg;
}

class Loader {
 public:
  explicit Loader(std::string file) : file_(std::move(file)) {}

  Spec load(const YAML::Node& root, const std::vector<std::string>& sets) {
    const Origin file_origin{Origin::Kind::file};
    if (root && !root.IsNull() && !root.IsMap()) {
      Ctx c(&file_, &file_origin, &origins_, "", nullptr, root.Mark());
      c.fail(root, fmt::format("a spec is a YAML map of sections ({}), got {}", join(keys_at("")),
                               shown(root)));
    }

    // The profile decides the defaults every other value overrides, so it is
    // found first: the last --set profile=..., else the file's, else t3e.
    std::vector<std::pair<std::string, YAML::Node>> parsed_sets;
    for (const auto& arg : sets) parsed_sets.push_back(parse_set(arg));
    std::string profile = "t3e";
    Origin profile_origin{Origin::Kind::profile};
    profile_origin.profile = "t3e";
    if (root && root.IsMap() && root["profile"]) {
      Ctx c(&file_, &file_origin, &origins_, "profile", find_field("profile")->help, root.Mark());
      profile = c.one_of(root["profile"], profile_list());
      profile_origin = c.origin(root["profile"]);
    }
    for (size_t i = 0; i < sets.size(); ++i) {
      if (parsed_sets[i].first != "profile") continue;
      Origin o{Origin::Kind::set};
      o.set_arg = sets[i];
      Ctx c(&file_, &o, &origins_, "profile", find_field("profile")->help, YAML::Mark());
      profile = c.one_of(parsed_sets[i].second, profile_list());
      profile_origin = o;
    }

    Spec s;
    apply_defaults(s, profile);
    origins_["profile"] = profile_origin;
    if (root && root.IsMap()) apply_map(s, root, "", file_origin, root.Mark());
    for (size_t i = 0; i < sets.size(); ++i) {
      Origin o{Origin::Kind::set};
      o.set_arg = sets[i];
      apply_value(s, parsed_sets[i].first, parsed_sets[i].second, o, YAML::Mark());
    }
    s.profile = profile;
    s.file = file_;
    validate(s);
    return s;
  }

  void apply_defaults(Spec& s, const std::string& name) {
    const ProfileInfo* p = find_profile(name);
    if (!p)
      throw SpecError(file_, 0, 0, "profile",
                      fmt::format("unknown profile '{}': use one of {}", name, profile_names()));
    Origin o{Origin::Kind::profile};
    o.profile = name;
    for (const auto& f : fields()) {
      const char* def = p->column == ProfileInfo::Column::yarc ? f.yarc : f.t3e;
      if (!*def || is_item_key(f.path)) continue;
      Ctx c(&file_, &o, &origins_, f.path, f.help, YAML::Mark());
      f.read(s, YAML::Load(def), c);
      origins_[f.path] = o;
    }
    if (p->needs_family) s.topology.family.clear();
    s.profile = name;
  }

 private:
  // "KEY=VALUE" -> (KEY, VALUE parsed as YAML).
  std::pair<std::string, YAML::Node> parse_set(const std::string& arg) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0)
      throw SpecError(file_, 0, 0, "",
                      "expected KEY=VALUE with KEY a dotted path, e.g. --set traffic.load=0.3 or "
                      "--set topology.dims=[8,8,8]",
                      arg);
    std::string key = arg.substr(0, eq);
    try {
      return {key, YAML::Load(arg.substr(eq + 1))};
    } catch (const YAML::Exception& e) {
      throw SpecError(file_, 0, 0, key,
                      fmt::format("the value is not valid YAML ({}); quote it, e.g. "
                                  "--set '{}=\"...\"'",
                                  e.msg, key),
                      arg);
    }
  }

  void apply_map(Spec& s, const YAML::Node& map, const std::string& prefix, const Origin& base,
                 YAML::Mark map_mark) {
    std::map<std::string, int> seen;  // key -> line of its first occurrence
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;
      const std::string name = key.IsScalar() ? key.Scalar() : std::string();
      const std::string path = prefix.empty() ? name : prefix + "." + name;
      Ctx kc(&file_, &base, &origins_, path, nullptr, map_mark);
      if (!key.IsScalar() || name.empty())
        kc.fail(key, fmt::format("keys must be names; known keys {}: {}",
                                 prefix.empty() ? "at the top level" : "in '" + prefix + "'",
                                 join(keys_at(prefix))));
      if (auto [at, fresh] = seen.emplace(name, key.Mark().line + 1); !fresh)
        kc.fail(key,
                fmt::format("'{}' is given twice (first at line {}); keep one", name, at->second));
      if (path == "profile") continue;  // applied before everything else
      apply_value(s, path, it->second, base, key.Mark());
    }
  }

  void apply_value(Spec& s, const std::string& path, const YAML::Node& value, const Origin& base,
                   YAML::Mark key_mark) {
    if (path == "profile") return;
    if (const Field* f = find_field(path)) {
      Ctx c(&file_, &base, &origins_, path, f->help, key_mark);
      f->read(s, value, c);
      c.record(value);
      return;
    }
    if (is_section(path)) {
      Ctx c(&file_, &base, &origins_, path, nullptr, key_mark);
      if (value.IsNull()) return;  // an empty section keeps the defaults
      if (!value.IsMap())
        c.fail(value, fmt::format("'{}' is a section: expected a map of its keys ({}), got {}",
                                  path, join(keys_at(path)), shown(value)));
      apply_map(s, value, path, base, key_mark);
      return;
    }
    // The deepest section the path does name: the next component is the
    // unknown key (only a --set can name several levels at once).
    std::string prefix;
    size_t next = 0;
    for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1)) {
      if (!is_section(path.substr(0, dot))) break;
      prefix = path.substr(0, dot);
      next = dot + 1;
    }
    const std::string key = path.substr(next, path.find('.', next) - next);
    const std::string named = prefix.empty() ? key : prefix + "." + key;
    std::string msg = known_keys_message(prefix, key);
    if (named != path && find_field(named))
      msg = fmt::format(
          "'{}' is a single value with no keys of its own: set it whole, e.g. "
          "--set '{}=...'",
          named, named);
    // In the file, point at the key rather than its value: the key is wrong.
    if (base.kind == Origin::Kind::file)
      throw SpecError(file_, key_mark.line + 1, key_mark.column + 1, path, msg);
    throw SpecError(file_, 0, 0, path, msg, base.set_arg);
  }

  // Reports a problem that involves several fields against the one the user
  // wrote (the first of `paths` set by the file or a --set), so the location
  // is a line they can edit rather than a profile default.
  [[noreturn]] void blame(std::initializer_list<std::string> paths, const std::string& msg) const {
    std::string chosen = *paths.begin();
    for (const auto& p : paths) {
      auto it = origins_.find(p);
      if (it != origins_.end() && it->second.kind != Origin::Kind::profile) {
        chosen = p;
        break;
      }
    }
    auto it = origins_.find(chosen);
    if (it == origins_.end())  // a key the profile leaves at spec.h's value
      throw SpecError(file_, 0, 0, chosen, msg + " (the value is fabemu's built-in default)");
    const Origin o = it->second;
    switch (o.kind) {
      case Origin::Kind::file:
        throw SpecError(file_, o.line, o.column, chosen, msg);
      case Origin::Kind::set:
        throw SpecError(file_, 0, 0, chosen, msg, o.set_arg);
      case Origin::Kind::profile:
        break;
    }
    throw SpecError(file_, 0, 0, chosen,
                    msg + fmt::format(" (the value is the default of profile '{}')", o.profile));
  }

  void validate(Spec& s) const {
    const ProfileInfo* profile = find_profile(s.profile);
    const Registry& reg = Registry::get();
    if (s.topology.family.empty())
      blame({"topology.family", "profile"},
            fmt::format("profile '{}' has no topology of its own: set topology.family (known: {})",
                        profile ? profile->name : s.profile, join(reg.topology_names())));
    if (!reg.topology(s.topology.family))
      blame({"topology.family"}, fmt::format("unknown topology family '{}'; known families: {}",
                                             s.topology.family, join(reg.topology_names())));
    const RoutingInfo* routing = reg.routing(s.topology.family, s.routing);
    if (!routing)
      blame({"routing", "topology.family"},
            fmt::format("routing '{}' does not exist for topology family '{}': set routing to one "
                        "of {}",
                        s.routing, s.topology.family, join(reg.routing_names(s.topology.family))));
    if (s.vcs.count > routing->max_vcs)
      blame({"vcs.count", "routing"},
            fmt::format("{} VCs is more than routing '{}' can use: set vcs.count to at most {}",
                        s.vcs.count, s.routing, routing->max_vcs));
    if (s.vcs.count < routing->min_vcs)
      blame({"vcs.count", "routing"},
            fmt::format("routing '{}' needs at least {} VCs to be deadlock-free, got {}: set "
                        "vcs.count to at least {}",
                        s.routing, routing->min_vcs, s.vcs.count, routing->min_vcs));

    if (s.topology.family == "torus") {
      int64_t routers = 1;
      for (int k : s.topology.dims) routers *= k;
      if (routers > kMaxRouters)
        blame({"topology.dims"},
              fmt::format("{}x{}x{} is {} routers, more than the {} fabemu supports: use smaller "
                          "dimensions",
                          s.topology.dims[0], s.topology.dims[1], s.topology.dims[2], routers,
                          kMaxRouters));
      if (s.packet.max_units > s.vcs.adaptive_buffer_units)
        blame({"vcs.adaptive_buffer_units", "packet.max_units"},
              fmt::format("a packet of up to {} units (packet.max_units) does not fit the {}-unit "
                          "adaptive VC buffer; virtual cut-through needs room for a whole packet: "
                          "raise vcs.adaptive_buffer_units or lower packet.max_units",
                          s.packet.max_units, s.vcs.adaptive_buffer_units));
    }
    if (s.topology.family == "clos") {
      const int lo = s.topology.rank == 1 ? 1 : 33;
      const int hi = s.topology.rank == 1 ? 32 : 1024;
      if (s.topology.endpoints < lo || s.topology.endpoints > hi)
        blame({"topology.endpoints", "topology.rank"},
              fmt::format("a rank-{} clos has {} to {} endpoints, got {}: {}", s.topology.rank, lo,
                          hi, s.topology.endpoints,
                          s.topology.rank == 1 ? "use rank 2 for more than 32"
                                               : "use rank 1 for 32 or fewer"));
    }

    if (s.packet.header_units >= s.packet.max_units)
      blame({"packet.header_units", "packet.max_units"},
            fmt::format("{} header units leave no room for payload in a packet of at most {} "
                        "units: lower packet.header_units or raise packet.max_units",
                        s.packet.header_units, s.packet.max_units));
    if (s.packet.max_units > s.vcs.buffer_units)
      blame({"vcs.buffer_units", "packet.max_units"},
            fmt::format("a packet of up to {} units (packet.max_units) does not fit the {}-unit VC "
                        "buffer; virtual cut-through needs room for a whole packet: raise "
                        "vcs.buffer_units or lower packet.max_units",
                        s.packet.max_units, s.vcs.buffer_units));

    const int64_t endpoints = spec_endpoint_count(s);
    if (endpoints > 0 && s.traffic.pattern == "hotspot" && s.traffic.hotspot >= endpoints)
      blame({"traffic.hotspot", "traffic.pattern"},
            fmt::format("hot spot {} is not an endpoint: the fabric has endpoints 0 to {}",
                        s.traffic.hotspot, endpoints - 1));
    if (s.traffic.process == "bernoulli" && s.traffic.batch_size > 1)
      blame({"traffic.batch_size", "traffic.process"},
            fmt::format("batch_size {} needs traffic.process: batch (bernoulli injects one "
                        "message at a time)",
                        s.traffic.batch_size));

    validate_ports(s, endpoints);
    validate_with_fabric(s, endpoints);
  }

  // What the port bindings need from the rest of the spec (clashes between
  // bindings are refused as the list is read, in read_ports).
  void validate_ports(const Spec& s, int64_t endpoints) const {
    if (s.run.mode == "virtual" && s.traffic.load == 0)
      blame({"traffic.load", "run.mode"},
            "a virtual-time run with traffic.load 0 has nothing to emulate: give a load in (0, 1], "
            "or use run.mode: realtime with ports");
    if (!s.ports.empty() && s.run.mode != "realtime")
      blame({"run.mode", "ports"},
            fmt::format("ports carry real frames in wall-clock time: set run.mode: realtime "
                        "(run.mode is '{}')",
                        s.run.mode));
    for (size_t i = 0; i < s.ports.size(); ++i) {
      const PortBinding& p = s.ports[i];
      if (endpoints > 0 && p.endpoint >= endpoints)
        blame({fmt::format("ports[{}].endpoint", i), fmt::format("ports[{}]", i), "ports"},
              fmt::format("endpoint {} does not exist: this fabric has endpoints 0 to {}; bind "
                          "the port to one of them",
                          p.endpoint, endpoints - 1));
    }
  }

  // Checks that need the built fabric: explicit endpoint placement (router
  // and port ranges are the builder's) and the fixed traffic patterns (which
  // need, e.g., a square torus). Building is skipped when neither applies, so
  // a plain `check` stays cheap.
  void validate_with_fabric(const Spec& s, int64_t endpoints) const {
    for (size_t i = 0; i < s.endpoint_map.size(); ++i) {
      const EndpointMap& m = s.endpoint_map[i];
      if (endpoints > 0 && m.id >= endpoints)
        blame({fmt::format("endpoints[{}]", i), "endpoints"},
              fmt::format("endpoint {} does not exist: this fabric has endpoints 0 to {}", m.id,
                          endpoints - 1));
    }
    const Pattern pattern = pattern_of(s.traffic.pattern);
    const bool fixed_pattern = pattern != Pattern::uniform && pattern != Pattern::hotspot;
    if (s.endpoint_map.empty() && !fixed_pattern) return;
    const TopologyInfo* topo = Registry::get().topology(s.topology.family);
    if (!topo || !topo->build) return;
    Fabric f;
    try {
      f = topo->build(s);
    } catch (const SpecError&) {
      throw;
    } catch (const std::exception& e) {
      blame({s.endpoint_map.empty() ? "topology.family" : "endpoints", "topology.family"},
            fmt::format("the {} builder refused this spec: {}", s.topology.family, e.what()));
    }
    for (size_t i = 0; i < s.endpoint_map.size(); ++i) {
      const EndpointMap& m = s.endpoint_map[i];
      const std::string item = fmt::format("endpoints[{}]", i);
      if (m.router >= static_cast<int>(f.routers.size()))
        blame({item, "endpoints"},
              fmt::format("router {} does not exist: this fabric has routers 0 to {}", m.router,
                          f.routers.size() - 1));
      const auto& ports = f.routers[m.router].ports;
      if (m.port < static_cast<int>(ports.size()) && ports[m.port].peer_router >= 0)
        blame({item, "endpoints"},
              fmt::format("router {} port {} is a link to router {}, not an endpoint port",
                          m.router, m.port, ports[m.port].peer_router));
    }
    if (fixed_pattern) {
      EngineConfig cfg;
      cfg.pattern = pattern;
      cfg.hotspot = static_cast<uint32_t>(s.traffic.hotspot);
      cfg.hotspot_fraction = s.traffic.hotspot_fraction;
      TrafficPattern tp;
      std::string err;
      if (!tp.init(f, cfg, &err))
        blame({"traffic.pattern", "topology.dims", "topology.endpoints"},
              fmt::format("pattern '{}' does not fit this fabric: {}; choose another pattern or "
                          "another size",
                          s.traffic.pattern, err));
    }
  }

  std::string file_;
  std::map<std::string, Origin> origins_;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw SpecError(
        path, 0, 0, "",
        fmt::format("cannot read the spec file ({}): check the path", std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Spec load_from_text(const std::string& text, const std::vector<std::string>& sets,
                    const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw SpecError(name, e.mark.line + 1, e.mark.column + 1, "",
                    fmt::format("YAML syntax error: {}; check the indentation, the ':' after each "
                                "key and matching brackets",
                                e.msg));
  } catch (const YAML::Exception& e) {
    throw SpecError(name, 0, 0, "", fmt::format("cannot parse the YAML: {}", e.msg));
  }
  try {
    return Loader(name).load(root, sets);
  } catch (const SpecError&) {
    throw;
  } catch (const YAML::Exception& e) {
    // A yaml-cpp conversion we did not anticipate: still a spec error, never
    // a crash.
    throw SpecError(name, e.mark.line + 1, e.mark.column + 1, "", e.msg);
  }
}

std::string md_cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

Spec load_spec(const std::string& path, const std::vector<std::string>& sets) {
  return load_from_text(read_file(path), sets, path);
}

Spec load_spec_text(const std::string& yaml, const std::vector<std::string>& sets,
                    const std::string& name) {
  return load_from_text(yaml, sets, name);
}

Spec profile_defaults(const std::string& profile) {
  Loader l("<profile " + profile + ">");
  Spec s;
  l.apply_defaults(s, profile);
  return s;
}

int64_t spec_endpoint_count(const Spec& s) {
  if (s.topology.family == "torus") {
    int64_t n = s.topology.endpoints_per_router;
    for (int k : s.topology.dims) n *= k;
    return n;
  }
  if (s.topology.family == "clos") return s.topology.endpoints;
  return -1;
}

std::vector<SpecFieldDoc> spec_field_docs() {
  std::vector<SpecFieldDoc> v;
  for (const auto& f : fields())
    v.push_back({f.path, f.type, f.unit, f.t3e, f.yarc, f.source, f.help});
  return v;
}

std::string spec_reference_markdown() {
  std::string out;
  out += "Profiles (`profile:`; the defaults every other key overrides):\n\n";
  for (const auto& p : profiles())
    out += fmt::format("- `{}`: {}. Source: {}.\n", p.name, p.machine, p.source);
  out +=
      "\nSources: [T3E] Scott & Thorson, \"The Cray T3E Network: Adaptive Routing in a High "
      "Performance 3D Torus\", Hot Interconnects IV, 1996. [BW] Scott, Abts, Kim & Dally, \"The "
      "BlackWidow High-Radix Clos Network\", ISCA 2006. A flow unit is the profile's flow-control "
      "unit: a 70-bit flit (5 phits) for t3e, a 24-bit phit for yarc. An empty default means the "
      "profile does not use the key; in the rows `ports[].KEY`, the keys of each item of "
      "`ports`, it means the key is required. `custom` takes the t3e column and requires "
      "`topology.family`.\n\n";
  out += "| key | type | unit | t3e | yarc | source | meaning |\n";
  out += "|---|---|---|---|---|---|---|\n";
  for (const auto& f : fields()) {
    auto code = [](const char* v) { return *v ? fmt::format("`{}`", v) : std::string(); };
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", f.path, md_cell(f.type),
                       md_cell(f.unit), md_cell(code(f.t3e)), md_cell(code(f.yarc)),
                       md_cell(f.source), md_cell(f.help));
  }
  return out;
}

}  // namespace fabemu
