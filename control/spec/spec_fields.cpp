// The spec's field table: every key with its type, unit, source of its
// defaults and help (the defaults are the profiles', control/spec/
// profiles/); the readers of the keys that need more than a
// number (sizes, endpoint maps, ports, MAC sets) are in spec_readers.cpp.
#include "control/spec/spec_fields.h"

#include "control/spec/spec_readers.h"
#include "control/topology/router_models.h"
#include "dataplane/core/fabric.h"

namespace fabemu {
namespace spec_detail {

// Spec names of the traffic patterns of dataplane/engine/engine_base.h.
const std::vector<std::pair<std::string, Pattern>>& patterns() {
  static const std::vector<std::pair<std::string, Pattern>> v{
      {"uniform", Pattern::uniform},   {"transpose", Pattern::transpose},
      {"bitcomp", Pattern::bitcomp},   {"tornado", Pattern::tornado},
      {"hotspot", Pattern::hotspot},   {"permutation", Pattern::permutation},
      {"neighbor", Pattern::neighbor}, {"flatfly_worst", Pattern::flatfly_worst},
      {"bitrev", Pattern::bitrev},     {"shuffle", Pattern::shuffle}};
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

// Short names for the sources in the table; spec_reference_markdown() spells
// them out.
#define T3E "[T3E]"
#define BW "[BW]"
#define FB "[FB]"
#define SP "[SP]"
#define MS "[MS]"

// clang-format off
const std::vector<Field>& fields() {
  static const std::string router_model_help =
      "router microarchitecture: " + choices_help(router_models());
  static const std::vector<Field> table = [] {
  static const Field head[] = {
    // --- profile: read before every other key (its defaults come first).
    {"profile", "string", "", "fabemu default (t3e)",
     "which defaults to start from: t3e, yarc, flatfly, spider, mesh3d, or custom (t3e numbers, topology.family required)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.profile = c.one_of(n, profile_list()); }},

    // --- topology: read by the topology builders (control/topology).
    {"topology.family", "string", "", T3E " §1; " BW " §2.2; " FB " §2.1",
     "topology family, as registered by the builders: torus, clos, flatfly, hypercube, butterfly, fat_hypercube, mesh3d",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.topology.family = c.text(n); }},
    {"topology.dims", "[int, int, int]", "routers", T3E " §1 (up to 8x32x8); " MS " Figure 7a (27 x 16 x 24)",
     "torus or mesh3d size kx, ky, kz; a dimension of 1 has no links (a torus of [8, 8, 1] is BookSim's 8-ary 2-cube)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       c.expect_list(n, "three sizes [kx, ky, kz]");
       if (n.size() != 3)
         c.fail(n, fmt::format("got {} sizes: give three, [kx, ky, kz]", n.size()));
       for (size_t i = 0; i < 3; ++i) {
         const int64_t k = c.item(i).integer(n[i], std::numeric_limits<int32_t>::min(), kIntMax);
         if (k < 1)
           c.item(i).fail(n[i], fmt::format("got {}: a dimension has at least 1 router", k));
         if (k > kMaxTorusRadix)
           c.item(i).fail(n[i], fmt::format("got {}: a dimension of more than {} routers is not supported", k, kMaxTorusRadix));
         s.topology.dims[i] = static_cast<int>(k);
       }
     }, "torus, mesh3d"},
    {"topology.wrap", "bool", "", "BookSim2 (topology = mesh: the k-ary n-cube without its wrap links)",
     "torus: link each ring's last router back to its first (true, a torus); false: a mesh, each dimension a line (routing dim_order only)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.topology.wrap = c.boolean(n); }, "torus"},
    {"topology.rank", "number", "", BW " §2.2 (R1: 32 processors; R1.5: 288; R2: 1024; R2.5: 4.5K; R3: 16K, 32K at most)",
     "clos rank: 1 (one router, up to 32 endpoints), 1.5 (2 to 9 rank-1 routers joined by sidelinks, 33..288), 2 (33..1024), 2.5 (2 to 9 R2 subtrees of 512 joined by sidelinks, 513..4608) or 3 (R2 subtrees of 512, or of 1024 above 16K, joined by rank-3 routers, 513..32768)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       const double r = c.number(n, -1e9, false, 1e9, false);
       if (r != 1 && r != 1.5 && r != 2 && r != 2.5 && r != 3)
         c.fail(n, fmt::format("clos rank {} is not supported: give 1, 1.5, 2, 2.5 or 3", r));
       s.topology.rank = static_cast<int>(r);
       s.topology.sidelinks = r != s.topology.rank;
     }, "clos"},
    {"topology.endpoints", "int", "endpoints", BW " §2.2",
     "clos endpoints: 1..32 at rank 1, 33..288 at 1.5, 33..1024 at 2, 513..4608 at 2.5, 513..32768 at 3",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       s.topology.endpoints = static_cast<int>(c.integer(n, 1, kIntMax));
     }, "clos"},
    {"topology.uplinks", "int", "uplinks", BW " §2.2 (full bisection; taper: a subset of the rank 1 to rank 2 cables); " FB " §3.3 (bisection held constant: half)",
     "clos: cables above each rank-1 router, 1..32, the bandwidth taper at every rank: rank 1.5 its sidelinks (at least one per peer), rank 2, 2.5 and 3 its uplinks and so the rank-2 routers of each subtree; 32 is full bisection, 16 the half of the flattened butterfly paper's Figure 6",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.topology.uplinks = static_cast<int>(c.integer(n, 1, 32)); }, "clos"},
    {"topology.slices", "int", "slices", BW " §2.2 (four injection ports per processor, one per slice; each slice a separate network)",
     "network slices, 1..8: copies of the network, each processor with one injection port in each; a packet's slice is chosen as it is sent (requests by their address hash, so one address stays in order; responses by the shortest source queue); traffic.load and traffic.batch_size are per injection port, ports[].queue_frames per port of the processor; faults are refused. BlackWidow has 4",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.topology.slices = static_cast<int>(c.integer(n, 1, kMaxSlices)); }},
    {"topology.endpoints_per_router", "int", "endpoints", T3E " §1 (one PE per router); " FB " §3.3 (hypercube: one node per router)",
     "endpoints attached to each router (torus, mesh3d; hypercube and fat_hypercube, where 1 is the default; more on a fat hypercube is Spider's bristling)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       s.topology.endpoints_per_router = static_cast<int>(c.integer(n, 1, kMaxPorts - kTorusDirections));
     }, "torus, mesh3d, hypercube, fat_hypercube"},
    {"topology.k", "int", "routers", FB " §3.2 (32-ary 2-flat)",
     "flatfly: routers in each dimension, which is also the endpoints per router (concentration); butterfly: the radix of its routers (k-ary n-fly); at least 2",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.topology.k = static_cast<int>(c.integer(n, 2, kMaxPorts)); }, "flatfly, butterfly"},
    {"topology.n", "int", "", FB " §3.2 (N = 1024); §3.3 (10-dimensional hypercube)",
     "flatfly: a k-ary n-flat has k^n endpoints and k^(n-1) routers of radix n(k-1)+1 in n-1 dimensions; hypercube: a binary n-cube has 2^n routers in n dimensions; fat_hypercube: the dimensions of each local hypercube (a domain of 2^n chips); butterfly: a k-ary n-fly has n stages of k^(n-1) routers; at least 2",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.topology.n = static_cast<int>(c.integer(n, 2, kMaxPorts)); }, "flatfly, hypercube, fat_hypercube, butterfly"},
    {"topology.meta_n", "int", "", "Spider, Topologies (metahypercubes; 512 endpoints at most, the 9-bit destination)",
     "fat_hypercube: dimensions of the metahypercubes, 0..5: 2^meta_n domains, and for each of the 2^n vertex positions a hypercube of 2^meta_n meta chips, each linked to the chip at that position in one domain; 0: one plain hypercube",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.topology.meta_n = static_cast<int>(c.integer(n, 0, 5)); }, "fat_hypercube"},
    {"topology.diagonal", "bool", "", "fabemu choice: fits Spider Table 1's 8 endpoints (118 ns) at its bisection (6.4 GB/s)",
     "fat_hypercube: link each local chip i also to chip i ^ 3 on a spare port, so that the 2-cube of local dimensions 0 and 1 is complete (a 3-cube becomes K4 x K2: 1.43 hops on average instead of 1.71, same bisection)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.topology.diagonal = c.boolean(n); }, "fat_hypercube"},

    // --- link: read by the topology builders to time each link.
    {"link.lanes", "int", "lanes", T3E " §1 (14-bit phit); " BW " abstract (3 x 6.25 Gb/s)",
     "signal lanes per link direction (a T3E link's 14 bits, a YARC port's 3 SerDes lanes); a router link's lanes can go out of service (faults `lane=L down`, link.lane_degrade) and it runs narrower, its unit time growing as lanes / live lanes",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.lanes = static_cast<int>(c.integer(n, 1, 256)); }},
    {"link.lane_gbps", "number", "Gb/s", T3E " §10 (375 MHz); " BW " §4.4",
     "raw signalling rate of one lane, 0.001 to 1000",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.lane_gbps = c.bounded(n, 0.001, 1000, "a lane signals at least 1 Mb/s and at most 1000 Gb/s (the fastest SerDes lanes today run at about 200 Gb/s)"); }},
    {"link.coding", "number", "", T3E " §10 (clock forwarded, no line code); " BW " §6 (16b20b)",
     "line-coding efficiency, 0.01 to 1: payload bits per signalled bit",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.coding = c.bounded(n, 0.01, 1, "the fraction of signalled bits that carry data (8b/10b: 0.8)"); }},
    {"link.phit_bits", "int", "bits", T3E " §1; " BW " §4.1",
     "phit width",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.phit_bits = static_cast<int>(c.integer(n, 1, 1024)); }},
    {"link.phits_per_unit", "int", "phits", T3E " §1 (flit = 5 phits, one per 13.3 ns); " BW " §4.2 (the phit is the flit)",
     "phits per flow-control unit (flit); 1 when flow control counts phits",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.phits_per_unit = static_cast<int>(c.integer(n, 1, 64)); }},
    {"link.wire_ns", "number", "ns", "assumption: " T3E " §10 cables up to ~1 m; " BW ": SerDes + a few metres of cable",
     "SerDes plus wire latency of one link, 0.001 (the clock tick) to 1e6; the t3e router latencies already include it",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.wire_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy); }},
    {"link.injection_wire_ns", "number", "ns", "fabemu default: 0 (" T3E " Table 2: the end point latencies include the PE link); BookSim2: its injection channel, read 2 cycles after the source sends",
     "wire of the link from an endpoint into its router: 0, or 0.001 (the clock tick) to 1e6",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.injection_wire_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy, true); }, "torus"},
    {"link.ejection_wire_ns", "number", "ns", "fabemu default: 0 (" T3E " Table 2); BookSim2: its crossbar stage and ejection channel, read 3 cycles after switch allocation",
     "wire of the link from a router out to its endpoint, after the switch (router.endpoint_ns includes it, as straight_ns does link.wire_ns): 0, or 0.001 (the clock tick) to 1e6",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.ejection_wire_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy, true); }, "torus"},
    {"link.credit_delay_ns", "number", "ns", "fabemu default: 0; BookSim2: credit_delay (cycles from a flit's departure until its credit leaves)",
     "time a credit takes on its way back upstream beyond the link's wire (the credits of a packet leave as its units leave the buffer and travel link.wire_ns plus this): 0, or 0.001 (the clock tick) to 1e6; a longer credit loop, as BookSim2's credit_delay gives",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.credit_delay_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy, true); }},
    {"link.router_rate", "number", "fraction", "fabemu default (every link alike); " FB " §3.3 (bisection held constant: the hypercube's channels at half rate)",
     "rate of the router-to-router links as a fraction of the rate above (the endpoint links keep it), 0.01 to 1: 0.5 halves the channels, as a comparison at equal bisection bandwidth does",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.router_rate = c.bounded(n, 0.01, 1, "a router-to-router link runs at most at the rate of the endpoint links and at least at a hundredth of it"); }},
    {"link.retry", "bool", "", BW " §4.3 (LCB: sliding-window go-back-N, CRC); Spider LLP (CCITT CRC-16, go-back-n)",
     "link-level retry on every router-to-router link: sequence numbers, a retransmit buffer of whole packets, the profile's CRC-16 checked at the receiver (YARC: the EOP CRC; T3E: a link CRC over the flits), go-back-N after a time-out; false: ideal links",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.retry = c.boolean(n); }},
    {"link.retry_window", "int", "packets", "fabemu default (" BW " §4.3: the send buffer covers the round trip)",
     "packets a link's sender may have unacknowledged (its retransmit buffer), 0 to 65536; 0: enough to keep sending until a time-out fires (time-out / shortest packet)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.retry_window = static_cast<int>(c.integer(n, 0, 1 << 16)); }},
    {"link.retry_timeout_ns", "number", "ns", "fabemu default (" BW " §4.3: the sender times out and retransmits)",
     "how long a sender waits for an acknowledgement before it sends its window again; at least a link's round trip (2 x wire + longest packet); 0: that round trip plus one longest packet, per link",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.retry_timeout_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy, true); }},
    {"link.ber", "number", "", "fabemu default (a perfect link); faults are the user's",
     "bit error rate of every router-to-router link, 0 to 0.01 (errors fall on the bits the CRC checks); needs link.retry",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       s.link.ber = c.number(n, -kInf, false, kInf, false);
       if (const std::string why = ber_problem(s.link.ber); !why.empty()) c.fail(n, why);
     }},
    {"link.retry_limit", "int", "time-outs", "fabemu default (" BW " §4.3 retries until it succeeds); Spider (\"if a chip retries a single packet several times without success\", it shuts the link down)",
     "time-outs in a row on the same packet (go-back-N retries of it) after which a link's sender gives up on it: the packet is discarded (drop reason retry_limit_exceeded), its credits come back and the receiver skips its number; 0 to 1000000, 0: no limit; needs link.retry",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.retry_limit = static_cast<int>(c.integer(n, 0, 1000000)); }},
    {"link.lane_degrade", "bool", "", BW " §7.7 (the LCB counts retries per lane and decommissions a noisy lane: 3, 2, then 1 lane wide); off by default: the threshold is system software's and the paper gives none",
     "a router link drops a lane whose retries (time-outs caused by bad bits on it) pass link.lane_retry_threshold within link.lane_retry_window_ns, and runs on the others (its unit time x lanes / live lanes); with no lane left the link is dead both ways (its losses counted; the tables are not reprogrammed); needs link.retry",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.lane_degrade = c.boolean(n); }},
    {"link.width_negotiation", "string", "", "fabemu default any (" BW " §7.7: 3, 2, then 1 lane); spider: lower_half (" SP " Data link layer: a port damaged in its upper 10 bits runs on the lower 10 at half bandwidth)",
     "the widths a router link runs at when lanes go out of service (faults `lane=L down`, link.lane_degrade): any (on whichever lanes live) or lower_half (the full width, else the lower half of link.lanes at half bandwidth, else the link is dead both ways); any or lower_half",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.width_negotiation = c.one_of(n, {"any", "lower_half"}); }},
    {"link.recovery", "string", "", MS " Error Detection and Recovery (Figure 21: two-hop error detection and recovery); fabemu default none",
     "mesh3d: none, or two_hop: every router output to a router keeps a copy of what it sent in a recovery memory until the neighbour's neighbour has it (ack2) or the neighbour consumed it (ack); when the link or the router beyond dies, what the memory holds is sent again from there along a new route and the destination drops the second arrival of a message whose original survived (report block recovery: occupancy against the proposal's 6 Bi + 5 Bo + 12 x delay-line sizing, copies resent, duplicates dropped); router.model mesh3d or input_queued",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.recovery = c.one_of(n, {"none", "two_hop"}); }, "mesh3d"},
    {"link.lane_retry_threshold", "int", "retries", "fabemu default (" BW " §7.7: \"system software defines a threshold\"; a YARC lane half busy passes 16 in 100 us at a BER of about 7e-5)",
     "link.lane_degrade: a lane is dropped at its retry after this many within the window; 0 to 1000000",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.lane_retry_threshold = static_cast<int>(c.integer(n, 0, 1000000)); }},
    {"link.lane_retry_window_ns", "number", "ns", "fabemu default",
     "link.lane_degrade: the window a lane's retries are counted in; it opens at the lane's first retry after the last window closed; 0.001 to 1e10",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.link.lane_retry_window_ns = c.bounded(n, kClockTickNs, kMaxRunNs, kRunWhy); }},

    // --- router: read by the routing policies (pipeline latency per hop).
    {"router.latency_ns", "number", "ns", BW " §3 (25 stages at 800 MHz); flatfly: YARC's (" FB " §3.2 simulates a single-cycle router); spider: " SP " Performance (40 ns pin to pin)",
     "router pipeline latency, input to output, 0.001 to 1e6",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.latency_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy); }, "clos, flatfly, hypercube, butterfly, fat_hypercube"},
    {"router.straight_ns", "number", "ns", T3E " Table 2; " MS " Figures 13-15 (mesh3d: fabemu's choice, docs/fabrics/mesh3d.md)",
     "torus fall-through going straight, input pins to next input pins; mesh3d: the straight-through cut-through block, pins to pins of the chip (link.wire_ns is the wire)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.straight_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy); }, "torus, mesh3d"},
    {"router.turn_ns", "number", "ns", T3E " Table 2; " MS " Figures 13-15 (mesh3d: fabemu's choice, docs/fabrics/mesh3d.md)",
     "torus fall-through when changing dimension; mesh3d: the turn and queuing logic, pins to pins",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.turn_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy); }, "torus, mesh3d"},
    {"router.endpoint_ns", "number", "ns", T3E " Table 2; " MS " Figures 13-15 (mesh3d: fabemu's choice, docs/fabrics/mesh3d.md)",
     "torus fall-through at the source and destination routers; mesh3d: from or to the local processor",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.endpoint_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy); }, "torus, mesh3d"},
    {"router.radix", "int", "ports", BW " §3",
     "router ports (clos)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.radix = static_cast<int>(c.integer(n, 2, kMaxPorts)); }, "clos"},
    {"router.input_speedup", "int", "packets", "input-queued router with a separable allocator (inputs, then outputs); BookSim2 input_speedup",
     "packets one input port may send through the switch at the same time (its VCs share them; with router.switch_allocator islip or separable_input_first, as BookSim2's: VC v uses switch input v mod input_speedup); 1..4",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.input_speedup = static_cast<int>(c.integer(n, 1, 4)); }},
    {"router.output_speedup", "int", "packets", FB " §3.2 (input-queued routers with sufficient switch speedup); BookSim2 output_speedup",
     "packets one output may accept through the switch at the same time; above 1 the switch moves packets from the input buffers (their credits go back upstream then) into an output queue per output VC, which the link drains one packet at a time when the downstream buffer has credits, so a head-of-line packet no longer waits for a busy link (with router.switch_allocator islip or separable_input_first, as BookSim2's output_speedup: input port p uses the output's switch output p mod output_speedup, the downstream credits are taken at the switch and one queue per output sends a packet a cycle); 1..64",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.output_speedup = static_cast<int>(c.integer(n, 1, kMaxPorts)); }},
    {"router.output_queue_units", "int", "flow units", FB " §3.2 (the router is not the bottleneck)",
     "with output_speedup above 1, each output VC queue's capacity (a packet waits in its input buffer while its queue is full); 0: four input buffers of its VC (4 x vcs.buffer_units), where the 32-ary 2-flat's saturation under uniform traffic stops rising (MIN 0.877 with one, 0.962 with four, 0.964 with sixteen)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.output_queue_units = static_cast<int>(c.integer(n, 0, 1 << 24)); }},

    {"router.forward_progress_ns", "number", "ns", BW " §7.7 (a forward progress countdown timer per VC on the sender side of each port; the paper gives no value)",
     "an output VC whose packets wait this long without one leaving times out: the port is reported (JSON forward_progress_timeouts) and discards what is bound for it (drops forward_progress) until credits come back; 0 (off) or 0.001 to 1e9",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.forward_progress_ns = c.bounded(n, kClockTickNs, 1e9, "the engine's clock ticks in picoseconds (0.001 ns), and a router waits at most a second", true); }},
    {"router.allocator", "string", "", FB " §3.1 (greedy MIN AD and UGAL; sequential UGAL-S and CLOS AD); Table 1 (folded Clos: adaptive sequential)",
     "how the inputs of a router see each other's adaptive routing decisions (routings clos adaptive, flatfly min_ad, ugal, ugal_s, clos_ad): default (the routing algorithm's own, as the paper has it), greedy (all decide on the queue state of the cycle's start, updated en masse once per cycle of one packet) or sequential (each decision counts for the next at once)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.allocator = c.one_of(n, {"default", "greedy", "sequential"}); }, "clos, flatfly"},
  };
  std::vector<Field> t(std::begin(head), std::end(head));
  for (Field& f : islip_router_fields()) t.push_back(std::move(f));
  static const Field tail[] = {
    // Values and help from the router models' registrations; the source
    // is the yarc profile default's.
    {"router.model", "string", "", BW " §3 (YARC: 8x8 tiles), §7.5 (wormhole inside), §7.6 (subswitch degree)",
     router_model_help.c_str(),
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.model = c.one_of(n, router_models().names()); }},
    {"router.subswitch_degree", "int", "ports", BW " §7.6 and Table 3 (p = 2, 4, 8, 16, 32; YARC: 8)",
     "router.model yarc_tiled: p, the inputs and outputs of each subswitch; a radix-64 router is (64/p)^2 of them; 2, 4, 8, 16 or 32",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       const int64_t p = c.integer(n, std::numeric_limits<int32_t>::min(), kIntMax);
       if (p != 2 && p != 4 && p != 8 && p != 16 && p != 32)
         c.fail(n, fmt::format("a radix-64 router is built of p x p subswitches with p a power of two that divides it: give 2, 4, 8, 16 or 32, not {}", p));
       s.router.subswitch_degree = static_cast<int>(p);
     }, "clos"},
    {"router.row_buffer_units", "int", "phits", BW " §7.5 (16 phits)",
     "router.model yarc_tiled: each row buffer per VC, 1..4096",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.row_buffer_units = static_cast<int>(c.integer(n, 1, 4096)); }, "clos"},
    {"router.column_buffer_units", "int", "phits", BW " §7.5 (10 phits: the credit latency over the column lines)",
     "router.model yarc_tiled: each column buffer per VC, 1..4096",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.column_buffer_units = static_cast<int>(c.integer(n, 1, 4096)); }, "clos"},
    {"router.arbitration_ns", "number", "ns", "[SP] Chip core (the 100 MHz core clock: 10 ns; the paper gives no arbitration rate of its own)",
     "router.model spider: the crossbar arbiter's cycle: it picks up to one winner per input and output at most once per cycle, looking again a cycle later while candidates lost; an idle arbiter looks the moment a message is ready (bypass mode); 0.001 to 1e6 (the router latency's bound)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.arbitration_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy); }},
    {"router.routing_lanes", "int", "lanes", MS " Figure 15 (\"three data pathways circling the chip will be sufficient\")",
     "router.model mesh3d: the routing lanes of the turn logic, 1..6: a packet that changes direction crosses the chip on one of them, which carries one packet at a time at the link's rate; a turning packet waits for the first lane free",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.routing_lanes = static_cast<int>(c.integer(n, 1, 6)); }},
    {"router.age_period_ns", "number", "ns", "[SP] Crossbar arbitration (\"ages at a programmable rate\"; no value given: one step per 40 ns pin-to-pin chip transit)",
     "router.model spider: a message's header age (0..255) grows by one for every period it waits in a router, up to 239 (240..255, high priority, are set at the source and never change); the arbiter takes the oldest first; 0 (ages never grow) or 0.001 to 1e6",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.age_period_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy, true); }},
    {"router.deadlock_timeout_ns", "number", "ns", "[SP] Error handling (a deadlock time-out; no value given)",
     "router.model spider: a VC buffer full (no room for the shortest message) with no message leaving it for this long is reset: its messages are discarded (drops deadlock_timeout) and their credits go back; 0 (off) or 0.001 to 1e9",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.deadlock_timeout_ns = c.bounded(n, kClockTickNs, 1e9, "the engine's clock ticks in picoseconds (0.001 ns), and a router waits at most a second", true); }},
    {"router.tail_timeout_ns", "number", "ns", "[SP] Error handling (a tail time-out; no value given)",
     "router.model spider: a message cut off mid-way (its link died after its head came in) holds its buffer this long, then the router ends it with an error tail and it is discarded (drops tail_timeout); 0 (off: it is lost at once, lost_in_flight) or 0.001 to 1e9",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.tail_timeout_ns = c.bounded(n, kClockTickNs, 1e9, "the engine's clock ticks in picoseconds (0.001 ns), and a router waits at most a second", true); }},
    {"router.virtual_routers", "string", "", BW " §2.2 (R2/R3 modules: each YARC split into two radix-32 virtual routers), §7.4",
     "none (every rank-2 and rank-3 router its own radix-32 router), or each pair of them one 64-port YARC whose ports a mask partitions: halves (ports 0..31 and 32..63, tile rows 0-3 and 4-7) or columns (tile columns 0-3 and 4-7 of every row); the hop counts are the separate routers' (with halves every route is), a packet leaves on its virtual router's ports only",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.router.virtual_routers = c.one_of(n, {"none", "halves", "columns"}); }, "clos"},

    // --- vcs: read by the engine (credits and buffers per port and VC).
    {"vcs.count", "int", "VCs", T3E " §1 (5 VCs); " BW " §4.2 (request, response); " FB " §3.1 (VAL: one VC per phase)",
     "virtual channels per port; the routing algorithm bounds it",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.vcs.count = static_cast<int>(c.integer(n, 1, kMaxVcs)); }},
    {"vcs.injection", "string", "", "class: fabemu default; rotate: BookSim2's sources in turn; free: BookSim2's trafficmanager (the next VC after the last used that has room)",
     "the VC a source injects each packet on, into its router's input buffer: class (its traffic class's first VC, where the routing starts it), rotate (its class's VCs in turn, packet by packet, so the router's input from the endpoint has them all; flatfly min, min_ad, val, ugal, ugal_s, clos_ad; BookSim's routings, which start a packet on any VC, always rotate over every VC) or free (as BookSim2's sources choose: the first VC after the one used last whose router buffer has room for the packet, so that a full VC does not hold the source up; BookSim's routings only: flatfly ran_min, valiant_booksim, ugal_booksim, torus and hypercube dim_order, butterfly dest_tag)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.vcs.injection = c.one_of(n, {"class", "rotate", "free"}); }, "torus, flatfly, hypercube, butterfly"},
    {"vcs.buffer_units", "int", "flow units", T3E " §1 (12 flits); " BW " §4.2 (256 phits); " FB " §3.2 (32 single-flit packets per port: 16 of 19 phits per VC)",
     "input buffer per port and VC; must hold a whole packet (virtual cut-through)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.vcs.buffer_units = static_cast<int>(c.integer(n, 1, 1 << 20)); }},
    {"vcs.adaptive_buffer_units", "int", "flow units", T3E " §1 (22 flits)",
     "input buffer of the torus adaptive VC",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.vcs.adaptive_buffer_units = static_cast<int>(c.integer(n, 1, 1 << 20)); }, "torus"},
    {"vcs.dateline_assignment", "string", "", T3E " §3.2, §4, Table 1 (VC lookup tables, time of crossing, optimised)",
     "which VC of its dateline pair a packet starts each direction on, from its router's 8-entry VC table (indexed by destination ordinate & 7): time_of_crossing (always VC0; VC1 only after passing the dateline node) or optimised (per ring size, the assignment fabemu's annealer finds for the paper's VC-balance metric over the whole ring and its power-of-two subrings, within the 8-entry table: `fabemu analyze table1`)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.vcs.dateline_assignment = c.one_of(n, {"time_of_crossing", "optimised"}); }, "torus"},

    // --- routing: resolved once through the Registry.
    {"routing", "string", "", T3E " §2.1; " BW " §5; " FB " §2.2",
     "routing algorithm for the family: torus: direction_order, dimension_order, adaptive, dim_order; clos: updown, adaptive; flatfly: min, ran_min, val, min_ad, ugal, ugal_s, clos_ad, valiant_booksim, ugal_booksim; hypercube: ecube, dim_order; butterfly: dest, dest_tag; fat_hypercube: spider_tables",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.routing = c.text(n); }},

    // --- packet: read by the codecs and the traffic sources.
    {"packet.max_units", "int", "flow units", T3E " Table 3 (vector put, 10 flits); " BW " §7.5 (19 phits)",
     "longest packet, header included; longer messages are segmented",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.packet.max_units = static_cast<int>(c.integer(n, 1, 4096)); }},
    {"packet.header_units", "int", "flow units", T3E " Table 3 (two header flits); " BW " §4.1 (head, hash, 4 transport phits)",
     "header units per packet (a 32-byte yarc write: 6 header + 12 data + 1 EOP = 19 phits)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.packet.header_units = static_cast<int>(c.integer(n, 1, 4096)); }},

    // --- traffic: read by the synthetic sources.
    {"traffic.pattern", "string", "", "fabemu default",
     "destinations: uniform, transpose, bitcomp, bitrev (the bits of the endpoint number reversed), shuffle (its bits rotated left by one), tornado, hotspot, permutation, neighbor, flatfly_worst (every endpoint of router i to a random endpoint of router i+1, the flattened butterfly paper's worst case)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.pattern = c.one_of(n, pattern_names()); }},
    {"traffic.load", "number", "fraction", "fabemu default",
     "offered load per endpoint as a fraction of its injection bandwidth, 1e-6 to 1; 0: no "
     "synthetic traffic (real time: only the ports' frames)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.load = c.bounded(n, 1e-6, 1, "below a millionth of the injection bandwidth an endpoint would wait longer than the engine's clock can count between messages", true); }},
    {"traffic.process", "string", "", "fabemu default",
     "injection process: bernoulli (independent messages), batch (batch_size at once), single_batch (every endpoint generates batch_size messages at time 0 and nothing more: the dynamic response of the flattened butterfly paper's Figure 5; with run.warmup_ns 0 the latency max is the time to deliver the batch) or on_off (BookSim2's bursty source: each slot a source turns on with traffic.burst_alpha or off with traffic.burst_beta, and an on source starts a message with the chance that gives traffic.load on average)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.process = c.one_of(n, {"bernoulli", "batch", "single_batch", "on_off"}); }},
    {"traffic.burst_alpha", "number", "per slot", "BookSim2's burst_alpha (default 0.5)",
     "process on_off: the chance that an off source turns on in a slot, above 0 and at most 1",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.burst_alpha = c.number(n, 0, true, 1, false); }},
    {"traffic.burst_beta", "number", "per slot", "BookSim2's burst_beta (default 0.5)",
     "process on_off: the chance that an on source turns off in a slot, 0 to below 1; bursts last 1 / burst_beta slots on average",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.burst_beta = c.number(n, 0, false, 1, true); }},
    {"traffic.batch_size", "int", "messages", "fabemu default",
     "messages injected back to back by the batch and single_batch processes",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.batch_size = static_cast<int>(c.integer(n, 1, 65536)); }},
    {"traffic.slot_units", "int", "flow units", "fabemu default: 1; BookSim2: a cycle (one packet's units)",
     "a source's Bernoulli trial every this many injection-link units: 1 (fabemu: nearly a Poisson stream for long packets) or a packet's units (BookSim2's injection: at most one packet generated per cycle); 1..4096",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.slot_units = static_cast<int>(c.integer(n, 1, 4096)); }},
    {"traffic.to_self", "bool", "", "fabemu default: false; BookSim2: true (its uniform draws any of the N nodes)",
     "whether uniform traffic (and hotspot's uniform part) may pick the source itself as destination: false (any other endpoint) or true (any endpoint, as BookSim2's uniform; such a packet goes into its router and straight out again); the fixed patterns (transpose, bitcomp, bitrev, shuffle, tornado, neighbor, permutation, flatfly_worst) are not changed by it",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.to_self = c.boolean(n); }},
    {"traffic.numbering", "string", "", "fabemu default: fabemu; BookSim2: booksim (its k-ary n-cube numbers node x + kx (y + ky z))",
     "the node numbers the fixed patterns work on: fabemu (the endpoint index; on the torus transpose swaps X and Y, tornado and neighbor work on coordinates and router ids) or booksim (the torus family with one endpoint per router: BookSim2's node numbers, x fastest, and its definitions: bitcomp, transpose, bitrev and shuffle on the bits, tornado and neighbor on each digit)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.numbering = c.one_of(n, {"fabemu", "booksim"}); }},
    {"traffic.permutation_seed", "int", "", "fabemu default: -1; BookSim2: perm_seed (0)",
     "traffic.pattern permutation: -1 draws fabemu's own random permutation from run.seed; 0 to 2^31 - 1 makes BookSim2's randperm of that perm_seed (Knuth's ran_array, as BookSim draws it), on BookSim's node numbers (traffic.numbering booksim on the torus family; the endpoint index elsewhere)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.permutation_seed = c.integer(n, -1, kIntMax); }},
    {"traffic.sizes", "list of int or {bytes, weight}", "bytes", T3E " Table 3 (vector put, 8 words); " BW " §4.1 (32-byte write)",
     "message payload mix, e.g. [64] or [{bytes: 8, weight: 3}, {bytes: 64, weight: 1}]",
     read_sizes},
    {"traffic.reply_fraction", "number", "fraction", "fabemu default",
     "fraction of messages that are requests answered by a response, in [0, 1]",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.reply_fraction = c.number(n, 0, false, 1, false); }},
    {"traffic.reply_bytes", "int", "bytes", "fabemu default",
     "payload of each response",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.reply_bytes = static_cast<uint32_t>(c.integer(n, 1, kMaxMessageBytes)); }},
    {"traffic.t3e_packets", "list of string or {type, weight}", "", T3E " Table 3",
     "T3E packet types instead of traffic.sizes: word_get, vector_get, word_put, vector_put (single-word or 8-word Gets and Puts), e.g. [vector_put] or [{type: word_get, weight: 3}, {type: vector_put}]; every request is answered by its response, each of Table 3's length in flits (a single-word Get response has one header flit, a single-word Put request three); [] : traffic.sizes",
     read_t3e_packets},
    {"traffic.sources", "list of int", "endpoints", "fabemu default",
     "only these endpoints generate synthetic traffic ([]: all); e.g. [0] with pattern neighbor: one-way traffic from endpoint 0 to its neighbour, which only answers",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.sources = read_int_list(n, c, 0, kIntMax, "endpoint numbers"); }},
    {"traffic.hotspot", "int", "endpoint", "fabemu default",
     "the hot-spot endpoint of pattern hotspot",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.hotspot = static_cast<int>(c.integer(n, 0, kIntMax)); }},
    {"traffic.hotspot_fraction", "number", "fraction", "fabemu default",
     "fraction of messages sent to the hot spot, in [0, 1]",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.hotspot_fraction = c.number(n, 0, false, 1, false); }},
    {"traffic.cc_adapt", "number", "fraction", "[SP] Message layer (congestion-control bit 0)",
     "fat_hypercube: fraction of messages whose source sets congestion-control bit 0, in [0, 1]: such a message may take either VC of its pair (requests 0 and 1, responses 2 and 3; needs vcs.count 4) at every hop, the one with more free buffer, and so may arrive out of order (counted: delivered_out_of_order in the report); 0: every message keeps its VC",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.cc_adapt = c.number(n, 0, false, 1, false); }, "fat_hypercube"},
    {"traffic.vector_fraction", "number", "fraction", "[SP] Routing (vector routing for administrative messages)",
     "fat_hypercube: fraction of messages sent vector-routed, in [0, 1]: the source writes the whole path (up to 10 directions) into the header from its tables, and the chips follow it instead of looking the destination up, as Spider's administrative messages do; a path longer than 10 hops is table-routed",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.vector_fraction = c.number(n, 0, false, 1, false); }, "fat_hypercube"},
    {"traffic.route_errors", "number", "fraction", MS " Deadlock Avoidance in Event of Faults (routing before the check codes are validated)",
     "mesh3d: fraction of messages that leave their source with one bit of the route word (state, complement or a segment) flipped, in [0, 1], to exercise the routers' on-the-fly checks: a state that fails its complement, an illegal turn, a route that ends at the wrong router or leaves the mesh are discarded and counted (route_state, illegal_turn, misrouted); a flip that still leads to the destination is delivered",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.route_errors = c.number(n, 0, false, 1, false); }, "mesh3d"},
    {"traffic.adaptive_fraction", "number", "fraction", T3E " §5 (a per-packet bit: ordered requests do not adapt)",
     "routing adaptive: fraction of packets the sources mark adaptive (by a hash of the packet id), in [0, 1]; the rest take direction order only, as the T3E's ordered requests do",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.adaptive_fraction = c.number(n, 0, false, 1, false); }, "torus"},

    {"traffic.response_priority", "string", "", "fabemu default; t3e: " T3E " Table 4 (\"request and response packets share link bandwidth\")",
     "how an endpoint's injection link orders its two source queues: strict (a queued response always goes before a queued request) or alternate (the two in turn, a queue with nothing it can send passing its turn); strict starves a processor's requests while its peer's requests keep it answering",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.response_priority = c.one_of(n, {"strict", "alternate"}); }},
    {"traffic.phases", "string", "", T3E " §6 (barrier/eureka synchronization)",
     "none, or phases that meet at barriers: barrier (every endpoint sends traffic.phase_messages messages, then joins a barrier on its BSU once the last has left it; the next phase begins when the barrier completes) or eureka (the first endpoint done signals a eureka with its barrier, OP_EUR_B, which ends the phase for every other); reports barrier and eureka latency",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.phases = c.one_of(n, {"none", "barrier", "eureka"}); }},
    {"traffic.phase_messages", "int", "messages", "fabemu default",
     "traffic.phases: messages each generating endpoint sends per phase, at traffic.load; 0: barriers back to back",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.traffic.phase_messages = static_cast<int>(c.integer(n, 0, 1 << 24)); }},

    // --- barrier: the T3E's virtual barrier/eureka networks (dataplane/barrier/).
    {"barrier.units", "int", "BSUs", T3E " §6 (\"a set of 32 barrier/eureka synchronization units\")",
     "barrier/eureka synchronization units per node, 1..32; phase k of traffic.phases uses unit k mod units",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.barrier.units = static_cast<int>(c.integer(n, 1, 32)); }},
    {"barrier.hop_ns", "number", "ns", T3E " Table 2 (straight through, 3 clocks; the paper gives no figure for a barrier packet)",
     "a barrier/eureka packet from one router's BSU register to a neighbour's, wire included, after it waits for the flit on the link to end (highest priority); 0.001 to 1e6",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.barrier.hop_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy); }},
    {"barrier.endpoint_ns", "number", "ns", T3E " Table 2 (3 clocks; a barrier packet needs no table lookup or format conversion, the end point's other 7)",
     "a barrier/eureka packet between a processor's shell and its router's BSU register, either way; 0.001 to 1e6",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.barrier.endpoint_ns = c.bounded(n, kClockTickNs, kMaxLatencyNs, kLatencyWhy); }},
    {"barrier.root", "int", "router", "fabemu default",
     "the router at the root of every BSU's spanning tree (a breadth-first tree of the router links, so each router's depth is its distance from the root); -1: a router of least eccentricity, the lowest-numbered",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.barrier.root = static_cast<int>(c.integer(n, -1, kIntMax)); }},

    // --- run: read by the runner (control/run).
    {"run.mode", "string", "", "fabemu default",
     "virtual: synthetic traffic as fast as possible, deterministic for a seed; realtime: emulated time follows the TSC (required for ports)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.mode = c.one_of(n, {"virtual", "realtime"}); }},
    {"run.seed", "int", "", "fabemu default",
     "random seed; the same seed gives the same run",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.seed = c.uinteger(n); }},
    {"run.warmup_ns", "number", "ns", "fabemu default",
     "emulated time before measurement starts, 0 to 1e10",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.warmup_ns = c.bounded(n, 0, kMaxRunNs, kRunWhy); }},
    {"run.measure_ns", "number", "ns", "fabemu default",
     "emulated time during which generated packets are measured, 0.001 to 1e10",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.measure_ns = c.bounded(n, kClockTickNs, kMaxRunNs, kRunWhy); }},
    {"run.drain_ns", "number", "ns", "fabemu default",
     "longest emulated time to wait for measured packets after measurement, 0 to 1e10",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.drain_ns = c.bounded(n, 0, kMaxRunNs, kRunWhy); }},
    {"run.sample_period_ns", "number", "ns", "fabemu default",
     "virtual time: the report's figures per sample period from time 0 (JSON sample_periods: packets generated, sent and arrived, latency by the period generated in and arrived in), what BookSim2's convergence rule reads (fabemu run --booksim); at most 4096 periods up to the end of measurement; 0: off",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.sample_period_ns = c.bounded(n, 0, kMaxRunNs, kRunWhy); }},
    {"run.workers", "int", "cores", "fabemu default",
     "worker cores, each owning a share of the routers",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.workers = static_cast<int>(c.integer(n, 1, 1024)); }},
    {"run.check_invariants", "bool", "", "fabemu default",
     "check credit conservation at every event (slow; for tests)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.check_invariants = c.boolean(n); }},
    {"run.progress_s", "number", "s", "fabemu default",
     "wall-clock period of the progress line, 0.01 to 1e6; 0 turns it off",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.progress_s = c.bounded(n, 0.01, kMaxWallS, "a progress line more often than every 10 ms floods the terminal", true); }},
    {"run.source_queue_packets", "int", "packets", "fabemu default",
     "bound of each endpoint's source queue; messages beyond it are counted as dropped",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.source_queue_packets = static_cast<int>(c.integer(n, 1, 1 << 24)); }},
    {"run.time_scale", "number", "wall ns per ns", "fabemu default",
     "realtime: wall-clock ns per emulated ns, 1 to 1e6; 10 runs the fabric ten times slower than the wall clock",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.time_scale = c.bounded(n, 1, 1e6, "at least the wall clock's pace, and at most a million times slower (a 10 ns hop then takes 10 ms)"); }},
    {"run.duration_s", "number", "s", "fabemu default",
     "realtime: wall-clock seconds to run, 0.001 to 1e6; 0 runs until SIGINT or SIGTERM",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.duration_s = c.bounded(n, 0.001, kMaxWallS, kWallWhy, true); }},
    {"run.lateness_bound_ns", "number", "ns", "fabemu default",
     "realtime: how far an event may fall behind its emulated time before the run warns, 0.001 to 1e9",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.lateness_bound_ns = c.bounded(n, kClockTickNs, 1e9, "the engine's clock ticks in picoseconds (0.001 ns), and an event a second late is no emulation any more"); }},
    {"run.mac_aging_s", "number", "s", "fabemu default",
     "realtime: a MAC address learned on a port expires after this long unseen, 0.001 to 1e6",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.mac_aging_s = c.bounded(n, 0.001, kMaxWallS, kWallWhy); }},
    {"run.overload", "string", "", "fabemu default",
     "realtime: when a worker falls more than run.overload_bound_ns behind the wall clock: warn (keep going, timing distorted), shed (refuse new port frames and synthetic messages, counted as shed_overload, until it catches up) or stop (end the run, exit status 3)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.overload = c.one_of(n, {"warn", "shed", "stop"}); }},
    {"run.overload_bound_ns", "number", "ns", "fabemu default",
     "realtime: how far (emulated ns) a worker's oldest due event may be behind the wall clock before run.overload applies, 0.001 to 1e9",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.run.overload_bound_ns = c.bounded(n, kClockTickNs, 1e9, "the engine's clock ticks in picoseconds (0.001 ns), and a run a second behind is no emulation any more"); }},
    {"run.cores", "list of int", "CPUs", "fabemu default",
     "CPU of each worker, in worker order (as many as run.workers); []: the workers may run on any CPU this process is allowed (taskset, cgroups) and the kernel spreads them",
     read_cores},
    {"run.partition", "list of int", "ranks", "fabemu default (blocks)",
     "several MPI ranks (mpirun -n R fabemu run ...): the rank of each router, one entry per router in router order, each 0..R-1; []: contiguous blocks of routers over the ranks and their workers (`fabemu describe --ranks R` prints the partition)",
     read_partition},
    {"run.eal", "list of strings", "", "fabemu default",
     "extra DPDK EAL arguments, e.g. [\"--vdev=net_null0\"]; `fabemu run --eal` adds more after them",
     read_eal},
    {"run.control_socket", "string", "", "fabemu default (no socket)",
     "path of a Unix socket on which the running process takes faults (`fabemu fault --control PATH 'link=r0:p33 down'`, or one request per line from a script); `fabemu run --control PATH` sets it; not with `faults` in the same spec",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       s.run.control_socket = n.IsScalar() && n.Scalar().empty() ? "" : c.text(n, "a socket path");
     }},

    // --- capture: pcapng taps on links and ports (control/run/capture_plan.h).
    {"capture.taps", "list of strings", "", "fabemu default (no capture)",
     "what to capture, e.g. [all] or [\"link=r3:p2\", \"router=5\", \"port=h0\"]: all, link=rR:pP[:in|:out], link=NAME (r3.p2>r7.p5), router=R, endpoint=E, port=NAME; `fabemu run --capture TAP` adds one",
     read_capture_taps},
    {"capture.file", "string", "", "fabemu default",
     "the pcapng file (`-`: standard output, streamed live, one file); rotation adds .1, .2, ... before the extension; `fabemu run --capture-file` sets it",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.capture.file = c.text(n, "a file name"); }},
    {"capture.snaplen", "int", "bytes", "fabemu default",
     "bytes of each captured frame kept (the 62 bytes of Ethernet and fabemu header always are), 64..65535",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.capture.snaplen = static_cast<int>(c.integer(n, 64, 65535)); }},
    {"capture.file_mb", "number", "MB", "fabemu default",
     "start a new file when one reaches this size, 0 (one file) or 1..1e6",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       s.capture.file_mb = c.bounded(n, 0, 1e6, "a file of a terabyte is no longer a ring of files");
       if (s.capture.file_mb > 0 && s.capture.file_mb < 1) c.fail(n, "give 0 (one file) or at least 1 MB");
     }},
    {"capture.files", "int", "files", "fabemu default",
     "with capture.file_mb: keep only the newest N files (a ring), 0: keep all",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.capture.files = static_cast<int>(c.integer(n, 0, 1000000)); }},
    {"capture.vcs", "list of int", "VCs", "fabemu default",
     "capture only packets on these VCs ([]: all)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.capture.vcs = read_int_list(n, c, 0, kMaxVcs - 1, "VC numbers"); }},
    {"capture.src", "list of int", "endpoints", "fabemu default",
     "capture only packets from these source endpoints ([]: all)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.capture.src = read_int_list(n, c, 0, kIntMax, "endpoint numbers"); }},
    {"capture.dst", "list of int", "endpoints", "fabemu default",
     "capture only packets to these destination endpoints ([]: all)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.capture.dst = read_int_list(n, c, 0, kIntMax, "endpoint numbers"); }},
    {"capture.types", "list of strings", "", "fabemu default",
     "capture only these packet types: request, response (synthetic traffic), frame (segments of hosts' frames) ([]: all)",
     read_capture_types},
    {"capture.queue_records", "int", "records", "fabemu default",
     "records between each worker and the writer thread, a power of two 64..1048576; a real-time run counts a record it cannot queue as a capture drop, a virtual-time run waits",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       const int64_t v = c.integer(n, 64, 1 << 20);
       if (v & (v - 1)) c.fail(n, fmt::format("{} is not a power of two (e.g. 4096)", v));
       s.capture.queue_records = static_cast<int>(v);
     }},

    // --- faults: links and routers that die, come back or turn noisy (control/run/fault_plan.h).
    {"faults", "list of strings", "", BW " §7.7 (dead link, router; tables around the fault's shadow); " T3E " §2, §9 (routes around a link)",
     "faults at emulated times, e.g. [\"20us link=r0:p33 down\", \"50us link=r0:p33 up\", \"10us router=5 down\", \"0ns link=r2:p1 ber=1e-5\", \"5us link=r0:p33 lane=1 down\", \"0ns link=r0:p33 lane=0 ber=1e-4\"]; a lane out of service narrows its link (every lane out: the link is down); a dead link's sender discards what is bound for it, what was on the wire is lost, and the clos and torus tables are reprogrammed around it (counted in the drop reasons); other families' tables are not reprogrammed (their packets to a dead port are discarded and counted)",
     read_faults},

    // --- endpoints: optional explicit placement, read by the topology builders.
    {"endpoints", "list of {id, router, port}", "", "fabemu default (the topology's own placement)",
     "explicit endpoint placement; each id and each router port at most once",
     read_endpoint_map},

    // --- ports: DPDK ports bound to endpoints, read by the runner (control/run).
    // The rows ports[].KEY are the keys of one binding: read_ports applies
    // their defaults (the same in both columns; an empty one: required) and
    // their readers fill s.ports.back().
    {"ports", "list of {name, device | replay, endpoint, vlan, macs, queue_frames, replay_*}", "", "fabemu default (no ports)",
     "hosts whose Ethernet frames enter and leave the fabric: DPDK ports (run.mode: realtime), e.g. [{device: net_ring0, endpoint: 0}], or replayed pcap files (either mode), e.g. [{replay: h0.pcap, endpoint: 0}]; a binding's keys: ports[].KEY",
     read_ports},
    {"ports[].name", "string", "", "fabemu default",
     "label of the binding in reports and messages, unique; `port<i>` is port0, port1, ... by position",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.ports.back().name = c.text(n); }},
    {"ports[].device", "string", "", "fabemu default",
     "a DPDK port name, vdev arguments (\"net_af_packet0,iface=fe0\") or a PCI address; bindings may share one; each binding has a device or a replay file",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       s.ports.back().device =
           n.IsScalar() && n.Scalar().empty() ? "" : c.text(n, "a DPDK device (port name, vdev arguments or PCI address)");
     }},
    {"ports[].replay", "string", "", "fabemu default",
     "instead of a device: a pcap or pcapng file whose Ethernet frames this binding's host sends at their recorded times (frames a capture marks outbound are skipped); frames for the host are counted as sent to it; works in virtual and real time",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       s.ports.back().replay = n.IsScalar() && n.Scalar().empty() ? "" : c.text(n, "a pcap or pcapng file");
     }},
    {"ports[].replay_interface", "string", "", "fabemu default",
     "replay: only the frames of this pcapng interface, e.g. \"port:h0\" of a fabemu capture (\"\": every Ethernet interface)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) {
       s.ports.back().replay_interface = n.IsScalar() && n.Scalar().empty() ? "" : c.text(n, "an interface name");
     }},
    {"ports[].replay_speed", "number", "x", "fabemu default",
     "replay: how much faster than recorded the frames are sent, 0.001..1000 (the gaps between them are divided by it)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.ports.back().replay_speed = c.bounded(n, 0.001, 1000, "beyond it the timing of the file no longer means anything"); }},
    {"ports[].replay_loops", "int", "times", "fabemu default",
     "replay: times through the file, each pass starting 1 us after the previous one's last frame (0: until the run ends)",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.ports.back().replay_loops = static_cast<int>(c.integer(n, 0, 1000000)); }},
    {"ports[].endpoint", "int", "endpoint", "",
     "required: the fabric endpoint the port attaches to; each endpoint is bound at most once",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.ports.back().endpoint = static_cast<int>(c.integer(n, 0, kIntMax)); }},
    {"ports[].vlan", "int", "VLAN id", "fabemu default",
     "0: untagged frames; 1..4094: only the frames of this 802.1Q VLAN",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.ports.back().vlan = static_cast<int>(c.integer(n, 0, 4094)); }},
    {"ports[].macs", "list of MAC strings", "", "fabemu default",
     "unicast MACs (\"02:00:00:00:00:01\") of the hosts whose frames belong to this binding; bindings on the same device and VLAN need non-empty, disjoint lists",
     read_macs},
    {"ports[].queue_frames", "int", "frames", "fabemu default",
     "ingress queue bound, 1..65536; frames beyond it are tail-dropped",
     [](Spec& s, const YAML::Node& n, const Ctx& c) { s.ports.back().queue_frames = static_cast<int>(c.integer(n, 1, 65536)); }},
  };
  t.insert(t.end(), std::begin(tail), std::end(tail));
  return t;
  }();
  return table;
}
// clang-format on

#undef T3E
#undef BW
#undef FB

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
  std::string msg =
      fmt::format("unknown key '{}'{}; known keys {}: {}", printable(key),
                  prefix.empty() ? "" : " in '" + prefix + "'",
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

}  // namespace spec_detail
}  // namespace fabemu
