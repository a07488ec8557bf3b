#include "control/run/capture_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "control/spec/capture_taps.h"
#include "control/spec/spec_error.h"
#include "control/version.h"
#include "dataplane/codec/codec.h"
#include "dataplane/link/link_numbering.h"

namespace fabemu {
namespace {

uint32_t node_of(int32_t router, int32_t endpoint) {
  return router >= 0 ? static_cast<uint32_t>(router)
                     : kCaptureEndpointNode | static_cast<uint32_t>(endpoint);
}

}  // namespace

CaptureProblem select_capture(const Spec::Capture& sc, const Fabric& fabric,
                              const std::vector<std::string>& port_names, CaptureSelection* sel) {
  const std::vector<LinkStats> links = number_links(fabric);
  const auto nr = static_cast<int>(fabric.routers.size());
  const auto ne = static_cast<int>(fabric.endpoints.size());
  std::vector<uint8_t>& link_on = sel->link_on;
  std::vector<uint8_t>& binding_on = sel->binding_on;
  link_on.assign(links.size(), 0);
  binding_on.assign(port_names.size(), 0);
  std::map<std::string, size_t> by_name;
  for (size_t l = 0; l < links.size(); l++) by_name[link_name(links[l])] = l;

  for (const std::string& text : sc.taps) {
    CaptureTap t;
    std::string why;
    if (!parse_capture_tap(text, &t, &why)) return {"capture.taps", why};
    const auto where = [&](const std::string& what) {
      return CaptureProblem{"capture.taps",
                            fmt::format("capture tap '{}': {}", printable(text), what)};
    };
    switch (t.kind) {
      case CaptureTap::Kind::all:
        std::fill(link_on.begin(), link_on.end(), 1);
        std::fill(binding_on.begin(), binding_on.end(), 1);
        break;
      case CaptureTap::Kind::link_at: {
        if (t.router >= nr) return where(fmt::format("the fabric has routers 0..{}", nr - 1));
        const auto np = static_cast<int>(fabric.routers[t.router].ports.size());
        if (t.port >= np || !fabric.routers[t.router].ports[t.port].connected())
          return where(
              fmt::format("router {} has no link at port {} (its ports are 0..{}; "
                          "`fabemu describe` lists the links)",
                          t.router, t.port, np - 1));
        for (size_t l = 0; l < links.size(); l++) {
          const LinkStats& k = links[l];
          const bool leaves = k.router == t.router && k.port == t.port;
          const bool arrives = k.peer_router == t.router && k.peer_port == t.port;
          if ((t.out && leaves) || (t.in && arrives)) link_on[l] = 1;
        }
        break;
      }
      case CaptureTap::Kind::link_named: {
        const auto it = by_name.find(t.name);
        if (it == by_name.end())
          return where(
              "no link has that name (names are FROM>TO as in r0.p1>r1.p4, ep0>r0.p0 or "
              "r0.p0>ep0; link=rR:pP names both directions by one end)");
        link_on[it->second] = 1;
        break;
      }
      case CaptureTap::Kind::router:
        if (t.router >= nr) return where(fmt::format("the fabric has routers 0..{}", nr - 1));
        for (size_t l = 0; l < links.size(); l++)
          if (links[l].router == t.router || links[l].peer_router == t.router) link_on[l] = 1;
        break;
      case CaptureTap::Kind::endpoint:
        if (t.endpoint >= ne) return where(fmt::format("the fabric has endpoints 0..{}", ne - 1));
        for (size_t l = 0; l < links.size(); l++)
          if (links[l].endpoint == t.endpoint) link_on[l] = 1;
        break;
      case CaptureTap::Kind::port: {
        bool found = false;
        std::string names;
        for (size_t b = 0; b < port_names.size(); b++) {
          names += (names.empty() ? "" : ", ") + port_names[b];
          if (port_names[b] == t.name) binding_on[b] = 1, found = true;
        }
        if (!found)
          return where(port_names.empty() ? "the run has no ports (spec `ports:`)"
                                          : "no port binding has that name; the ports are " +
                                                printable(names, 200));
        break;
      }
    }
  }
  if (std::find(link_on.begin(), link_on.end(), 1) == link_on.end() &&
      std::find(binding_on.begin(), binding_on.end(), 1) == binding_on.end())
    return {"capture.taps", "the taps select no link and no port"};

  CaptureTaps& ct = sel->filters;
  for (int v : sc.vcs) {
    if (v >= fabric.num_vcs)
      return {"capture.vcs", fmt::format("VC {} does not exist (the fabric has VCs 0..{})", v,
                                         fabric.num_vcs - 1)};
  }
  if (!sc.vcs.empty()) {
    ct.vc_mask = 0;
    for (int v : sc.vcs) ct.vc_mask |= static_cast<uint16_t>(1u << v);
  }
  const auto endpoint_set = [&](const std::vector<int>& list, const char* key,
                                std::vector<uint8_t>* out) {
    if (list.empty()) return CaptureProblem{};
    // Packets carry processor numbers: with network slices the filters
    // name processors, whichever slice their packets take.
    const auto np = static_cast<int>(fabric.processors());
    out->assign(static_cast<size_t>(np), 0);
    for (int e : list) {
      if (e >= np)
        return CaptureProblem{key,
                              fmt::format("endpoint {} does not exist (the fabric has {} 0..{})", e,
                                          fabric.slices > 1 ? "processors" : "endpoints", np - 1)};
      (*out)[e] = 1;
    }
    return CaptureProblem{};
  };
  if (CaptureProblem p = endpoint_set(sc.src, "capture.src", &ct.src)) return p;
  if (CaptureProblem p = endpoint_set(sc.dst, "capture.dst", &ct.dst)) return p;
  if (!sc.types.empty()) {
    ct.classes = 0;
    for (const std::string& t : sc.types)
      ct.classes |= t == "request" ? 1 : t == "response" ? 2 : 4;
  }
  return {};
}

bool plan_capture(const Spec& spec, const Fabric& fabric, const EngineConfig& cfg,
                  CapturePlan* plan, std::string* err) {
  const Spec::Capture& sc = spec.capture;
  std::vector<std::string> port_names;
  for (const PortEndpointConfig& pc : cfg.ports) port_names.push_back(pc.name);
  CaptureSelection sel;
  if (const CaptureProblem p = select_capture(sc, fabric, port_names, &sel))
    return *err = p.field + ": " + p.message, false;
  const std::vector<LinkStats> links = number_links(fabric);
  const std::vector<uint8_t>& link_on = sel.link_on;
  const std::vector<uint8_t>& binding_on = sel.binding_on;

  CaptureWriterConfig& wc = plan->writer;
  const auto kind = static_cast<CodecKind>(cfg.codec);
  wc.path = sc.file;
  wc.section.application = fmt::format("fabemu {} (commit {})", FABEMU_VERSION, fabemu_commit());
  wc.section.hardware = fabric.name;
  wc.section.comment = fmt::format(
      "spec {}, profile {}, routing {}, seed {}; {}", spec.file.empty() ? "(built in)" : spec.file,
      spec.profile, spec.routing, spec.run.seed,
      cfg.realtime ? fmt::format("real time: emulated time follows the wall clock at time scale "
                                 "{} (wall seconds per emulated second)",
                                 cfg.time_scale)
                   : std::string("virtual time: emulated time is the model's, not the host's"));
  wc.file_bytes = static_cast<uint64_t>(sc.file_mb * 1e6);
  wc.max_files = static_cast<uint32_t>(sc.files);
  wc.snaplen = static_cast<uint32_t>(sc.snaplen);
  wc.profile = static_cast<CaptureProfile>(codec_info(kind).capture_profile);
  plan->taps = std::move(sel.filters);
  CaptureTaps& ct = plan->taps;
  ct.codec = kind;
  ct.link_iface.assign(links.size(), -1);
  ct.device_iface.assign(cfg.ports.size(), -1);
  const std::string unit = fabric.unit_name;
  for (size_t l = 0; l < links.size(); l++) {
    const LinkStats& k = links[l];
    wc.link_nodes.emplace_back(node_of(k.router, k.endpoint), node_of(k.peer_router, k.endpoint));
    if (!link_on[l]) continue;
    const std::string from = k.router < 0 ? fmt::format("endpoint {}", k.endpoint)
                                          : fmt::format("router {} port {}", k.router, k.port);
    const std::string to = k.router >= 0 && k.peer_router < 0
                               ? fmt::format("endpoint {}", k.endpoint)
                               : fmt::format("router {} port {}", k.peer_router, k.peer_port);
    ct.link_iface[l] = static_cast<int32_t>(wc.interfaces.size());
    wc.interfaces.push_back({link_name(k),
                             fmt::format("fabric link {}: {} -> {}, {} {}s, {} VCs", l, from, to,
                                         codec_name(kind), unit, fabric.num_vcs),
                             wc.snaplen});
  }
  // One interface per DPDK device: bindings sharing a device share its frames.
  uint32_t max_frame = 0;
  std::map<std::string, int32_t> device_if;
  for (size_t b = 0; b < cfg.ports.size(); b++) {
    if (!binding_on[b]) continue;
    const PortEndpointConfig& pc = cfg.ports[b];
    max_frame = std::max(max_frame, pc.max_frame_bytes + 4);  // with an 802.1Q tag
    auto it = device_if.find(pc.device);
    if (it == device_if.end()) {
      it = device_if.emplace(pc.device, static_cast<int32_t>(wc.interfaces.size())).first;
      wc.interfaces.push_back(
          {"port:" + pc.name,
           fmt::format("port {} at endpoint {} (device {})", pc.name, pc.endpoint, pc.device),
           wc.snaplen});
    } else {
      wc.interfaces[it->second].name += "+" + pc.name;
    }
    ct.device_iface[b] = it->second;
    // The other bindings of the device: its frames are theirs as well.
    for (size_t o = 0; o < cfg.ports.size(); o++)
      if (cfg.ports[o].device == pc.device) ct.device_iface[o] = it->second;
  }
  ct.snaplen = wc.snaplen;
  const uint32_t encoding = cfg.format.max_units * codec_unit_bytes(kind);
  const uint32_t packet_bytes = std::min(encoding, wc.snaplen - kCaptureFramingBytes);
  plan->data_bytes = std::max(packet_bytes, std::min(max_frame, wc.snaplen));
  return true;
}

}  // namespace fabemu
