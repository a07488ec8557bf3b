// Readers of the spec keys that need more than a number (spec_readers.h).
#include "control/spec/spec_readers.h"

#include <cstring>

#include "control/spec/capture_taps.h"
#include "control/spec/faults.h"
#include "control/spec/profiles.h"
#include "control/spec/spec_fields.h"
#include "dataplane/codec/t3e_packets.h"

namespace fabemu {
namespace spec_detail {

namespace {

// One entry of a weighted mix: a bare value, or {KEY: value, weight: W}
// (weight 1 when left out). value(node, ctx) reads the value; returns the weight.
template <class F>
double read_mix_entry(const YAML::Node& e, const Ctx& ec, const char* key, const char* form,
                      F&& value) {
  if (!e.IsMap()) {
    value(e, ec);
    return 1.0;
  }
  ec.expect_keys(e, {key, "weight"});
  if (!e[key]) ec.fail(e, fmt::format("this entry has no '{}': give {}", key, form));
  value(e[key], ec.member(key));
  if (!e["weight"]) return 1.0;
  return ec.member("weight").bounded(
      e["weight"], 1e-6, 1e6,
      "weights are relative: keep them within a factor of 10^12 of each other");
}

}  // namespace

void read_sizes(Spec& s, const YAML::Node& n, const Ctx& c) {
  c.expect_list(n, "a list of message sizes, e.g. [64] or [{bytes: 8, weight: 3}, {bytes: 64}]");
  if (n.size() == 0) c.fail(n, "the size mix is empty: give at least one size");
  std::vector<PacketSize> v;
  for (size_t i = 0; i < n.size(); ++i) {
    PacketSize ps;
    ps.weight = read_mix_entry(
        n[i], c.item(i), "bytes", "{bytes: N, weight: W}", [&](const YAML::Node& x, const Ctx& xc) {
          ps.bytes = static_cast<uint32_t>(xc.integer(x, 1, kMaxMessageBytes));
        });
    v.push_back(ps);
  }
  s.traffic.sizes = std::move(v);
}

void read_t3e_packets(Spec& s, const YAML::Node& n, const Ctx& c) {
  c.expect_list(n,
                "a list of T3E packet types, e.g. [vector_put] or [{type: word_get, weight: 3}]");
  std::vector<std::string> names;
  for (const T3ePacketType& t : kT3ePacketTypes) names.emplace_back(t.name);
  std::vector<T3ePacketShare> v;
  for (size_t i = 0; i < n.size(); ++i) {
    T3ePacketShare ps;
    ps.weight =
        read_mix_entry(n[i], c.item(i), "type", "{type: NAME, weight: W}",
                       [&](const YAML::Node& x, const Ctx& xc) { ps.type = xc.one_of(x, names); });
    for (const T3ePacketShare& o : v)
      if (o.type == ps.type)
        c.item(i).fail(
            n[i], fmt::format("{} is listed twice: give each type once, with its weight", ps.type));
    v.push_back(ps);
  }
  s.traffic.t3e_packets = std::move(v);
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

void read_cores(Spec& s, const YAML::Node& n, const Ctx& c) {
  c.expect_list(n, "a list of CPU numbers, one per worker, e.g. [2, 3]");
  std::vector<int> v;
  for (size_t i = 0; i < n.size(); ++i) {
    const int cpu = static_cast<int>(c.item(i).integer(n[i], 0, kMaxCpu));
    if (std::find(v.begin(), v.end(), cpu) != v.end())
      c.item(i).fail(
          n[i], fmt::format("CPU {} is listed twice: each worker needs a CPU of its own", cpu));
    v.push_back(cpu);
  }
  s.run.cores = std::move(v);
}

void read_partition(Spec& s, const YAML::Node& n, const Ctx& c) {
  c.expect_list(n, "a list of MPI ranks, one per router, e.g. [0, 0, 1, 1]");
  s.run.partition.clear();
  for (size_t i = 0; i < n.size(); ++i)
    s.run.partition.push_back(static_cast<int>(c.item(i).integer(n[i], 0, 4095)));
}

std::vector<int> read_int_list(const YAML::Node& n, const Ctx& c, int64_t lo, int64_t hi,
                               const char* what) {
  c.expect_list(n, fmt::format("a list of {}", what).c_str());
  std::vector<int> v;
  for (size_t i = 0; i < n.size(); ++i) {
    const int x = static_cast<int>(c.item(i).integer(n[i], lo, hi));
    if (std::find(v.begin(), v.end(), x) != v.end())
      c.item(i).fail(n[i], fmt::format("{} is listed twice", x));
    v.push_back(x);
  }
  return v;
}

void read_capture_taps(Spec& s, const YAML::Node& n, const Ctx& c) {
  c.expect_list(n, "a list of taps, e.g. [all] or [\"link=r3:p2\", \"port=h0\"]");
  std::vector<std::string> v;
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string t = c.item(i).text(n[i], "a capture tap such as \"link=r3:p2\"");
    CaptureTap tap;
    std::string why;
    if (!parse_capture_tap(t, &tap, &why)) c.item(i).fail(n[i], why);
    v.push_back(t);
  }
  s.capture.taps = std::move(v);
}

void read_faults(Spec& s, const YAML::Node& n, const Ctx& c) {
  c.expect_list(n, "a list of faults, e.g. [\"20us link=r0:p33 down\"]");
  std::vector<std::string> v;
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string t = c.item(i).text(n[i], "a fault such as \"20us link=r0:p33 down\"");
    FaultSpec f;
    std::string why;
    if (!parse_fault(t, true, &f, &why)) c.item(i).fail(n[i], why);
    v.push_back(t);
  }
  s.faults = std::move(v);
}

void read_capture_types(Spec& s, const YAML::Node& n, const Ctx& c) {
  c.expect_list(n, "a list of packet types: request, response, frame");
  std::vector<std::string> v;
  for (size_t i = 0; i < n.size(); ++i)
    v.push_back(c.item(i).one_of(n[i], {"request", "response", "frame"}));
  s.capture.types = std::move(v);
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
                          printable(t)));
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
    (fabemu_default(f.path).empty() ? required : optional).push_back(known.back());
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
      } else {  // an item's default is every profile's
        std::string def(fabemu_default(f->path));
        if (const size_t at = def.find("<i>"); at != std::string::npos)
          def.replace(at, 3, std::to_string(i));
        f->read(s, YAML::Load(def), kc);
      }
    }
    const PortBinding& b = s.ports.back();
    if (b.device.empty() == b.replay.empty())
      ec.fail(e, b.device.empty()
                     ? "this binding has neither a device nor a replay file: give one"
                     : "this binding has a device and a replay file: give one of them");
    if (b.replay.empty() && (e["replay_interface"] || e["replay_speed"] || e["replay_loops"]))
      ec.fail(e,
              "replay_interface, replay_speed and replay_loops apply to a replay binding: add "
              "replay: FILE or remove them");
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
      const std::string other =
          fmt::format("ports[{}] '{}'{}", j, printable(o.name), c.at_line(n[j]));
      if (o.name == b.name)
        key_ctx("name").fail(at("name"), fmt::format("name '{}' is already taken by {}; give each "
                                                     "binding its own name",
                                                     printable(b.name), other));
      if (o.endpoint == b.endpoint)
        key_ctx("endpoint")
            .fail(e["endpoint"], fmt::format("endpoint {} is already bound to {}; bind each "
                                             "endpoint to one port",
                                             b.endpoint, other));
      if (b.device.empty() || o.device.empty()) continue;  // a replayed host has no device
      if (device_name(o.device) == device_name(b.device) && o.device != b.device)
        key_ctx("device").fail(
            e["device"], fmt::format("device '{}' is given as '{}' in {}: one DPDK device "
                                     "has one set of arguments; write the same string",
                                     printable(device_name(b.device)), printable(o.device), other));
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
                other, printable(b.device),
                b.vlan ? fmt::format("VLAN {}", b.vlan) : std::string("untagged (vlan 0)")));
    }
  }
}

}  // namespace spec_detail
}  // namespace fabemu
