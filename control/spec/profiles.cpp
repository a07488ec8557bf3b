#include "control/spec/profiles.h"

namespace fabemu {

const std::vector<ProfileInfo>& profiles() {
  static const std::vector<ProfileInfo> all{
      {"t3e", "Cray T3E: 3D torus, direction-order routing, 5 VCs, 5-phit flits",
       "Scott & Thorson, \"The Cray T3E Network\", Hot Interconnects IV, 1996", t3e_defaults,
       false},
      {"yarc", "Cray BlackWidow: folded Clos of radix-64 YARC routers, 24-bit phits, 2 VCs",
       "Scott et al., \"The BlackWidow High-Radix Clos Network\", ISCA 2006", yarc_defaults, false},
      // The paper's packets are abstract single flits and its router a
      // single-cycle one: the link, router latency and packet format are
      // YARC's (Kim, Dally and Abts built YARC), one packet standing for one
      // of the paper's flits.
      {"flatfly",
       "flattened butterfly: k-ary n-flat of high-radix routers, and the butterfly, hypercube and "
       "folded Clos it is compared with; YARC links, pipeline and 24-bit phit packets",
       "Kim, Dally & Abts, \"Flattened Butterfly: A Cost-Efficient Topology for High-Radix "
       "Networks\", ISCA 2007 (sections 2-3); link, router latency and YARC phit codec from Scott "
       "et al., ISCA 2006",
       flatfly_defaults, false},
      {"spider",
       "SGI Spider: 6-port routers, 4 VCs, 160-bit micropackets, fat hypercubes, two-level tables",
       "Galles, \"Spider: A High-Speed Network Interconnect\", IEEE Micro 17(1), 1997",
       spider_defaults, false},
      {"mesh3d",
       "low-latency 3D mesh: 27 x 16 x 24 routers, 80-bit links at 10 GHz, source routes of up to "
       "six segments, XYZ with turn-model detours, request and response VCs",
       "the petaflops low-latency 3D-mesh proposal (shared seed 004): Figures 7, 12-16, "
       "Routing, Error Detection and Recovery",
       mesh3d_defaults, false},
      // Starts from the T3E numbers (a complete, consistent set) but makes the
      // user say which topology they mean, so that a custom fabric is never a
      // T3E by accident.
      {"custom", "your own fabric: t3e defaults, topology.family required",
       "t3e column; topology.family must be given", t3e_defaults, true},
  };
  return all;
}

namespace {
std::string_view lookup(const ProfileDefaults& table, std::string_view path) {
  for (const auto& [key, value] : table)
    if (key == path) return value;
  return "";
}
}  // namespace

std::string_view profile_default(const ProfileInfo& p, std::string_view path) {
  const std::string_view own = lookup(p.defaults(), path);
  return own.empty() ? fabemu_default(path) : own;
}

std::string_view fabemu_default(std::string_view path) { return lookup(fabemu_defaults(), path); }

const ProfileInfo* find_profile(std::string_view name) {
  for (const auto& p : profiles())
    if (p.name == name) return &p;
  return nullptr;
}

std::string profile_names() {
  std::string s;
  for (const auto& p : profiles()) {
    if (!s.empty()) s += ", ";
    s += p.name;
  }
  return s;
}

}  // namespace fabemu
