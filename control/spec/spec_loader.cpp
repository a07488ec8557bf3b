// Spec loading: the YAML walk that applies the field table (spec_fields.cpp)
// with unknown-key and duplicate-key checks and --set overrides; then the
// cross-field validation that needs the whole spec (spec_validate.cpp).
#include "control/spec/spec_loader.h"

#include <fmt/format.h>
#include <rte_config.h>
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

#include "control/run/runner.h"
#include "control/spec/profiles.h"
#include "control/spec/spec_fields.h"
#include "control/spec/spec_refuse.h"
#include "control/spec/spec_validate.h"
#include "control/spec/spec_yaml.h"
#include "control/topology/link_timing.h"
#include "control/topology/registry.h"
#include "dataplane/codec/codec_check.h"
#include "dataplane/core/fabric.h"
#include "dataplane/endpoint/traffic.h"
#include "dataplane/engine/engine_base.h"
#include "dataplane/ethernet/ether.h"

namespace fabemu {
namespace {

using namespace spec_detail;


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
    s.overrides = sets;
    s.origins = origins_;
    SpecValidator(file_, origins_).validate(s);
    return s;
  }

  void apply_defaults(Spec& s, const std::string& name) {
    const ProfileInfo* p = find_profile(name);
    if (!p)
      throw SpecError(
          file_, 0, 0, "profile",
          fmt::format("unknown profile '{}': use one of {}", printable(name), profile_names()));
    Origin o{Origin::Kind::profile};
    o.profile = name;
    for (const auto& f : fields()) {
      const std::string_view def = profile_default(*p, f.path);
      if (def.empty() || is_item_key(f.path)) continue;
      Ctx c(&file_, &o, &origins_, f.path, f.help, YAML::Mark());
      f.read(s, YAML::Load(std::string(def)), c);
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
      return {key, parse_spec_yaml(arg.substr(eq + 1), file_)};
    } catch (const SpecError& e) {
      const bool syntax = e.message().rfind("YAML syntax error", 0) == 0;
      throw SpecError(
          file_, 0, 0, key,
          syntax ? fmt::format("the value is not valid YAML ({}); quote it, e.g. "
                               "--set '{}=\"...\"'",
                               e.message().substr(0, e.message().find(';')), printable(key))
                 : "the value: " + e.message(),
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
        kc.fail(key, fmt::format("'{}' is given twice (first at line {}); keep one",
                                 printable(name), at->second));
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

  std::string file_;
  std::map<std::string, Origin> origins_;
};

Spec load_from_text(const std::string& text, const std::vector<std::string>& sets,
                    const std::string& name) {
  const YAML::Node root = parse_spec_yaml(text, name);
  try {
    return Loader(name).load(root, sets);
  } catch (const SpecError&) {
    throw;
  } catch (const YAML::Exception& e) {
    // A yaml-cpp conversion we did not anticipate: still a spec error, never
    // a crash.
    throw SpecError(name, e.mark.is_null() ? 1 : e.mark.line + 1,
                    e.mark.is_null() ? 1 : e.mark.column + 1, "", printable(e.msg));
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
  return load_from_text(read_spec_file(path), sets, path);
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
  const TopologyInfo* t = Registry::get().topology(s.topology.family);
  return t && t->endpoint_count ? t->endpoint_count(s) : -1;
}

std::vector<SpecFieldDoc> spec_field_docs() {
  std::vector<SpecFieldDoc> v;
  for (const auto& f : fields()) {
    SpecFieldDoc d{f.path, f.type, f.unit, {}, f.source, f.help};
    for (const auto& p : profiles())
      if (!p.needs_family) d.defaults.emplace_back(profile_default(p, f.path));
    v.push_back(std::move(d));
  }
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
      "BlackWidow High-Radix Clos Network\", ISCA 2006. [FB] Kim, Dally & Abts, \"Flattened "
      "Butterfly: A Cost-Efficient Topology for High-Radix Networks\", ISCA 2007. [SP] Galles, "
      "\"Spider: A High-Speed Network Interconnect\", IEEE Micro 17(1), 1997. [MS] the "
      "petaflops low-latency 3D-mesh proposal (its sections are named). A flow unit is "
      "the profile's flow-control unit: a 70-bit flit (5 phits) for t3e, a 24-bit phit for yarc "
      "and flatfly, a 160-bit micropacket for spider, an 80-bit word for mesh3d. An empty default "
      "means the "
      "profile does not use the key; in the rows `ports[].KEY`, the keys of each item of "
      "`ports`, it means the key is required. `custom` takes the t3e column and requires "
      "`topology.family`.\n\n";
  std::string head = "| key | type | unit |", rule = "|---|---|---|";
  for (const auto& p : profiles())
    if (!p.needs_family) {
      head += fmt::format(" {} |", p.name);
      rule += "---|";
    }
  out += head + " source | meaning |\n" + rule + "---|---|\n";
  const std::vector<SpecFieldDoc> docs = spec_field_docs();
  for (size_t i = 0; i < docs.size(); ++i) {
    const SpecFieldDoc& f = docs[i];
    auto code = [](const std::string& v) { return v.empty() ? v : fmt::format("`{}`", v); };
    const char* families = fields()[i].families;
    const std::string help = families ? fmt::format("{} ({} only)", f.help, families) : f.help;
    out += fmt::format("| `{}` | {} | {} |", f.path, md_cell(f.type), md_cell(f.unit));
    for (const std::string& d : f.defaults) out += fmt::format(" {} |", md_cell(code(d)));
    out += fmt::format(" {} | {} |\n", md_cell(f.source), md_cell(help));
  }
  return out;
}

}  // namespace fabemu
