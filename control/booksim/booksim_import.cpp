#include "control/booksim/booksim_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace fabemu {

namespace {

// BookSim's defaults (its booksim_config.cpp) for the keys the import reads.
constexpr int kDefaultK = 8, kDefaultN = 2, kDefaultVcs = 16, kDefaultVcBuf = 8;
constexpr int kDefaultWarmup = 3, kDefaultSample = 1000, kDefaultMaxSamples = 10;

// Keys whose value fabemu models only at one setting: BookSim's value there,
// and what fabemu lacks for the others.
struct FixedKey {
  double value;
  double booksim_default;
  const char* why;
};
const std::map<std::string, FixedKey>& fixed_keys() {
  static const std::map<std::string, FixedKey> keys{
      {"routing_delay", {0, 1, "fabemu's iSLIP router routes ahead (lookahead routing)"}},
      {"vc_alloc_delay", {1, 1, "the VC allocator takes one cycle in fabemu's iSLIP router"}},
      {"sw_alloc_delay", {1, 1, "the switch allocator takes one cycle in fabemu's iSLIP router"}},
      {"st_prepare_delay", {0, 0, "the crossbar is one stage in fabemu's iSLIP router"}},
      {"st_final_delay", {1, 1, "the crossbar is one stage in fabemu's iSLIP router"}},
      {"input_speedup", {1, 1, "fabemu's iSLIP router has no speedup"}},
      {"output_speedup", {1, 1, "fabemu's iSLIP router has no speedup"}},
      {"internal_speedup", {1, 1, "fabemu's iSLIP router has no speedup"}},
      {"wait_for_tail_credit", {0, 0, "fabemu's iSLIP router frees an output VC when the tail is sent"}},
      {"classes", {1, 1, "fabemu's BookSim import runs one traffic class"}},
      {"sim_count", {1, 1, "fabemu runs one simulation per run"}},
      {"speculative", {0, 0, "speculative switch allocation is not modelled"}},
      {"noq", {0, 0, "next-hop output queueing is not modelled"}},
      {"hold_switch_for_packet", {0, 0, "a packet's flits compete for the switch one by one in fabemu's iSLIP router"}},
      {"subnets", {1, 1, "one network"}},
      {"include_queuing", {1, 1, "fabemu's latency includes source queueing, as BookSim's default"}},
      {"use_read_write", {0, 0, "request/reply traffic is not imported"}},
  };
  return keys;
}

// Keys read for their value (validated where they are used), and keys
// BookSim reads that change nothing fabemu models (accepted, said once).
const std::set<std::string>& read_keys() {
  static const std::set<std::string> keys{
      "topology",       "k",          "n",           "c",
      "x",              "y",          "xr",          "yr",
      "routing_function", "router",   "num_vcs",     "vc_buf_size",
      "vc_allocator",   "sw_allocator", "alloc_iters", "arb_type",
      "use_noc_latency", "traffic",   "injection_process", "injection_rate",
      "sim_type",       "warmup_periods", "sample_period", "max_samples",
      "latency_thres",  "warmup_thres", "acc_warmup_thres", "stopping_thres",
      "acc_stopping_thres", "seed",   "print_activity", "print_csv_results",
      "watch_file",     "watch_packets", "watch_flits", "watch_out",
      "stats_out",      "viewer_trace", "deadlock_warn_timeout", "measure_stats",
      "pair_stats",     "perm_seed",  "credit_delay", "burst_alpha",
      "burst_beta",     "burst_r1",   "packet_size", "injection_rate_uses_flits",
  };
  return keys;
}

[[noreturn]] void refuse(const BooksimEntry& e, const std::string& why) {
  throw BooksimConfig::error_at(e, why);
}

// The entry that set key, or a stand-in naming the file when it was not set.
BooksimEntry entry_of(const BooksimConfig& c, const std::string& key, const std::string& file) {
  if (const BooksimEntry* e = c.find(key)) return *e;
  BooksimEntry e;
  e.key = key;
  e.file = file;
  e.raw = "(BookSim's default)";
  return e;
}

void check_keys(const BooksimConfig& c) {
  for (const BooksimEntry& e : c.entries()) {
    if (read_keys().count(e.key)) continue;
    const auto it = fixed_keys().find(e.key);
    if (it == fixed_keys().end())
      refuse(e, fmt::format("'{}' is not modelled by fabemu's BookSim import (docs/fabrics/"
                            "booksim.md lists what is): remove it",
                            e.key));
  }
  for (const auto& [key, rule] : fixed_keys()) {
    const double v = c.get_double(key, rule.booksim_default);
    if (std::fabs(v - rule.value) > 1e-9) {
      if (const BooksimEntry* e = c.find(key))
        refuse(*e, fmt::format("{} = {:g} is not modelled ({}); fabemu models {} = {:g}", key, v,
                               rule.why, key, rule.value));
      throw BooksimConfigError(
          c.entries().empty() ? "" : c.entries().front().file, 0,
          fmt::format("{} is not set, so BookSim's default {:g} would apply, which fabemu does "
                      "not model ({}): write {} = {:g}; in the file",
                      key, v, rule.why, key, rule.value));
    }
  }
}

int positive(const BooksimConfig& c, const std::string& key, int fallback, int most,
             const std::string& file) {
  const int v = c.get_int(key, fallback);
  if (v < 1 || v > most)
    refuse(entry_of(c, key, file), fmt::format("{} must be 1 to {} here, got {}", key, most, v));
  return v;
}

struct Measure {
  int warmup_cycles, measure_cycles;
};

Measure measurement(const BooksimConfig& c, const std::string& file, BooksimSpec* out) {
  const std::string sim = c.get_string("sim_type", "latency");
  if (sim != "latency" && sim != "throughput")
    refuse(entry_of(c, "sim_type", file),
           "sim_type " + sim + " is not modelled: use latency or throughput");
  out->sim_type = sim;
  out->latency_thres = c.get_double("latency_thres", 500.0);
  const int warmup = c.get_int("warmup_periods", kDefaultWarmup);
  const int sample = positive(c, "sample_period", kDefaultSample, 10000000, file);
  const int samples = positive(c, "max_samples", kDefaultMaxSamples, 100000, file);
  if (warmup < 0 || warmup >= samples)
    refuse(entry_of(c, "warmup_periods", file),
           fmt::format("warmup_periods must be 0 to max_samples - 1 ({}), got {}", samples - 1,
                       warmup));
  out->notes.push_back(fmt::format(
      "BookSim stops sampling once its figures converge (warmup_thres, stopping_thres); "
      "fabemu runs {} warm-up periods and all {} further periods of {} cycles",
      warmup, samples - warmup, sample));
  return {warmup * sample, (samples - warmup) * sample};
}

// The traffic block's pattern lines for BookSim's traffic key. On the
// k-ary n-cube (torus, mesh) the fixed patterns run on BookSim's node
// numbers (traffic.numbering booksim); cube_endpoint gives fabemu's
// endpoint of BookSim's node there (nullptr on the flatfly).
std::string traffic_pattern(const BooksimConfig& c, const std::string& topology,
                            const std::string& file, int nodes,
                            const std::function<int(int)>& cube_endpoint, BooksimSpec* out) {
  const BooksimEntry e = entry_of(c, "traffic", file);
  const BooksimCall call = c.get_call("traffic", "uniform");
  const bool cube = cube_endpoint != nullptr;
  const auto pattern = [&](const std::string& p) {
    return fmt::format("  pattern: {}\n{}", p, cube ? "  numbering: booksim\n" : "");
  };
  // BookSim's uniform draws any of the N nodes, the source too.
  if (call.name == "uniform") return "  pattern: uniform\n  to_self: true\n";
  const bool bits = call.name == "bitcomp" || call.name == "transpose" ||
                    call.name == "bitrev" || call.name == "shuffle";
  if (bits && (nodes & (nodes - 1)))
    refuse(e, fmt::format("{} needs a power-of-two node count, got {}", call.name, nodes));
  if (call.name == "transpose" && cube && std::lround(std::log2(nodes)) % 2)
    refuse(e, fmt::format("transpose needs an even power of two of nodes (its bits split in "
                          "halves), got {}",
                          nodes));
  // ~src is the same node whichever way the digits are numbered.
  if (call.name == "bitcomp") return pattern("bitcomp");
  if (cube && (bits || call.name == "tornado" || call.name == "neighbor"))
    return pattern(call.name);
  if (call.name == "neighbor" && !cube) return "  pattern: neighbor\n";
  if (call.name == "randperm") {
    out->notes.push_back(
        "traffic randperm: fabemu draws its own random permutation from run.seed "
        "(traffic.pattern permutation), not the one of BookSim's perm_seed");
    return "  pattern: permutation\n";
  }
  if (call.name == "hotspot" && cube) {
    // BookSim's first argument lists the hot nodes, the second their rates:
    // hotspot({N}) or hotspot({{N},{R}}); one hot node takes all of it.
    std::vector<BooksimArg> one;
    if (!call.args.empty())
      one = call.args[0].is_list() ? call.args[0].items : std::vector<BooksimArg>{call.args[0]};
    if (one.size() != 1)
      refuse(e, "hotspot is imported with one hot node, written hotspot({N}): fabemu's "
                "hotspot pattern has one hot endpoint (BookSim picks a random one when none "
                "is given)");
    const int h = static_cast<int>(one[0].number);
    if (one[0].is_list() || h < 0 || h >= nodes || h != one[0].number)
      refuse(e, fmt::format("hotspot node {} is not a node: give 0 to {}", one[0].text,
                            nodes - 1));
    out->notes.push_back(fmt::format(
        "traffic hotspot: every source sends to node {} (fabemu endpoint {}), except the hot "
        "node itself, which sends uniformly (BookSim's sends to itself)",
        h, cube_endpoint(h)));
    return fmt::format("  pattern: hotspot\n  hotspot: {}\n  hotspot_fraction: 1\n",
                       cube_endpoint(h));
  }
  refuse(e, "traffic " + call.name + " is not imported for topology " + topology +
                (cube ? std::string(": use uniform, bitcomp, transpose, bitrev, shuffle, tornado, "
                                    "neighbor, randperm or hotspot")
                      : std::string(" (its destinations depend on BookSim's flatfly node "
                                    "numbering, which fabemu's fabric does not share yet): use "
                                    "uniform, bitcomp, neighbor or randperm")));
}

// BookSim's credit_delay as link.credit_delay_ns: the cycles a credit
// takes beyond what fabemu's link gives it already. A torus link of the
// translated spec returns a packet's credits in 3 cycles (its 2-cycle wire
// after the packet's last flit), BookSim's loop with credit_delay 1; a
// flatfly link (one cycle of wire) in 2, BookSim's with credit_delay 0.
std::string credit_delay(const BooksimConfig& c, const std::string& file,
                         const std::string& topology, double cycle_ns) {
  const int base = topology != "flatfly" ? 1 : 0;
  const int delay = c.get_int("credit_delay", 0);  // BookSim's default
  if (delay < base || delay > 1000) {
    const std::string why = fmt::format(
        "credit_delay = {}: on the {} fabemu's credits come back as BookSim's do with "
        "credit_delay {} at the least; use {} to 1000",
        delay, topology, base, base);
    if (c.find("credit_delay")) refuse(entry_of(c, "credit_delay", file), why);
    refuse(entry_of(c, "credit_delay", file),
           "credit_delay is not set, so BookSim's default 0 would apply: " + why);
  }
  return delay > base ? fmt::format("  credit_delay_ns: {}\n", (delay - base) * cycle_ns) : "";
}

// BookSim's on_off source as traffic.process on_off: of alpha (off to on),
// beta (on to off) and r1 (an on source's rate), BookSim takes two,
// from on_off({alpha, beta, r1}) or burst_alpha, burst_beta, burst_r1,
// and derives the third; fabemu is given alpha and beta. "" for bernoulli.
std::string injection_process(const BooksimConfig& c, const std::string& file, double rate) {
  const BooksimCall call = c.get_call("injection_process", "bernoulli");
  if (call.name != "on_off") return "";
  const BooksimEntry e = entry_of(c, "injection_process", file);
  const auto param = [&](size_t i, const char* key, double fallback) {
    return i < call.args.size() ? call.args[i].number : c.get_double(key, fallback);
  };
  // BookSim's defaults: burst_alpha 0.5, burst_beta 0.5, burst_r1 -1 (derived).
  double alpha = param(0, "burst_alpha", 0.5), beta = param(1, "burst_beta", 0.5);
  const double r1 = param(2, "burst_r1", -1.0);
  const int given = (alpha >= 0) + (beta >= 0) + (r1 >= 0);
  if (given != 2)
    refuse(e, fmt::format("on_off takes two of alpha, beta and r1 (a negative one is derived), "
                          "got alpha {:g}, beta {:g}, r1 {:g}",
                          alpha, beta, r1));
  if (alpha < 0) alpha = beta * rate / (r1 - rate);
  if (beta < 0) beta = alpha * (r1 - rate) / rate;
  if (!(alpha > 0 && alpha <= 1) || !(beta >= 0 && beta < 1))
    refuse(e, fmt::format("on_off needs 0 < alpha <= 1 and 0 <= beta < 1, which these give as "
                          "alpha {:g}, beta {:g}",
                          alpha, beta));
  return fmt::format("  process: on_off\n  burst_alpha: {}\n  burst_beta: {}\n", alpha, beta);
}

void common_router_keys(const BooksimConfig& c, const std::string& file, BooksimSpec* out) {
  if (c.get_string("router", "iq") != "iq")
    refuse(entry_of(c, "router", file), "only BookSim's iq router is modelled: router = iq");
  for (const char* k : {"vc_allocator", "sw_allocator"})
    if (c.get_string(k, "islip") != "islip")
      refuse(entry_of(c, k, file),
             std::string(k) + " " + c.get_string(k, "islip") +
                 " is not modelled (separable allocators are not built): use islip");
  const BooksimCall inject = c.get_call("injection_process", "bernoulli");
  if (inject.name != "bernoulli" && inject.name != "on_off")
    refuse(entry_of(c, "injection_process", file),
           "injection_process " + inject.name + " is not modelled: use bernoulli or on_off");
  if (c.get_int("alloc_iters", 1) != 1)
    out->notes.push_back(
        "BookSim's iq router does not read alloc_iters (it makes its allocators without the "
        "configuration): fabemu runs one iSLIP iteration, as BookSim does");
}

}  // namespace

BooksimSpec booksim_to_spec(const BooksimConfig& c) {
  const std::string file = c.entries().empty() ? std::string("<booksim>") : c.entries().front().file;
  check_keys(c);
  BooksimSpec out;
  common_router_keys(c, file, &out);
  const std::string topology = c.get_string("topology", "torus");
  const int vcs = positive(c, "num_vcs", kDefaultVcs, 8, file);
  const int vc_buf = positive(c, "vc_buf_size", kDefaultVcBuf, 4096, file);
  const double rate_given = c.get_double("injection_rate", 0.1);
  if (!(rate_given > 0 && rate_given <= 1))
    refuse(entry_of(c, "injection_rate", file), "injection_rate must be above 0 and at most 1");
  // A packet of several flits is a fabemu message of as many one-flit
  // packets, moved as one worm (router.flow_control wormhole).
  const int flits = positive(c, "packet_size", 1, 64, file);
  out.packet_size = flits;
  // BookSim's injection_rate counts packets per node and cycle unless
  // injection_rate_uses_flits; fabemu's load counts flits.
  const bool rate_in_flits = c.get_int("injection_rate_uses_flits", 0) != 0;
  const double rate = rate_in_flits ? rate_given / flits : rate_given;  // packets
  double load = rate * flits;
  if (load > 1) {
    out.notes.push_back(fmt::format(
        "injection_rate {:g} packets of {} flits offers {:g} flits per cycle, more than a node's "
        "channel takes: fabemu offers 1 (a full channel; its sources saturate either way)",
        rate, flits, load));
    load = 1;
  }
  const std::string worm =
      flits > 1 ? "  flow_control: wormhole   # BookSim's packets of several flits\n" : "";
  const std::string queue =
      flits > 1 ? fmt::format("  source_queue_packets: {}\n", std::max(256, 32 * flits)) : "";
  const Measure m = measurement(c, file, &out);
  const int seed = c.get_int("seed", 0);
  std::string y;
  // (BookSim's kncube and flatfly read it; its default lengthens them.)
  if (c.get_int("use_noc_latency", 1) != 0)
    refuse(entry_of(c, "use_noc_latency", file),
           "use_noc_latency 1 (BookSim's default) lengthens the " + topology +
               "'s channels by their placement, which is not modelled: set use_noc_latency = 0");
  if (topology == "torus" || topology == "mesh") {
    // BookSim's k-ary n-cube (kncube): n dimensions of k routers, one node
    // each; the mesh without the wrap links.
    const bool mesh = topology == "mesh";
    const int k = positive(c, "k", kDefaultK, 255, file);
    if (k < 2) refuse(entry_of(c, "k", file), "k must be at least 2: a ring or router row of one has no links");
    const int n = c.get_int("n", kDefaultN);
    if (n < 1 || n > 3)
      refuse(entry_of(c, "n", file),
             fmt::format("n = {}: fabemu's {} has one to three dimensions; set n = 1, 2 or 3", n,
                         topology));
    if (c.get_string("routing_function", "none") != "dim_order")
      refuse(entry_of(c, "routing_function", file),
             "routing_function " + c.get_string("routing_function", "none") +
                 " is not modelled on the " + topology + ": use dim_order");
    if (!mesh && vcs < 2)
      refuse(entry_of(c, "num_vcs", file), "dim_order needs at least 2 VCs on the torus (a dateline class each)");
    int nodes = 1;
    for (int d = 0; d < n; ++d) nodes *= k;
    const auto dim = [&](int d) { return d < n ? k : 1; };
    // BookSim's node x + k (y + k z) is fabemu's router (x ky + y) kz + z.
    const auto endpoint = [&](int node) {
      const int x = node % k, y = node / k % dim(1), z = node / k / dim(1) % dim(2);
      return (x * dim(1) + y) * dim(2) + z;
    };
    const std::string pattern = traffic_pattern(c, topology, file, nodes, endpoint, &out);
    // One cycle = one packet of 2 flits of 0.5 ns (docs/fabrics/booksim.md).
    out.cycle_ns = 1.0;
    y = fmt::format(
        "profile: t3e\ntopology:\n  family: torus\n  dims: [{}, {}, {}]\n{}routing: dim_order\n"
        "vcs:\n  count: {vcs}\n  buffer_units: {buf}\n  injection: free\n"
        "router:\n  switch_allocator: islip\n  straight_ns: 3\n  turn_ns: 3\n  endpoint_ns: 3\n{worm}"
        "packet:\n  header_units: 1\n  max_units: 2\n"
        "link:\n  lanes: 1\n  lane_gbps: 140\n  wire_ns: 2\n  injection_wire_ns: 1\n"
        "  ejection_wire_ns: 2\n",
        dim(0), dim(1), dim(2), mesh ? "  wrap: false\n" : "", fmt::arg("vcs", vcs),
        fmt::arg("buf", 2 * vc_buf), fmt::arg("worm", worm));
    y += credit_delay(c, file, topology, out.cycle_ns);
    // A flit: a packet of 8 payload bytes (2 units, one cycle).
    y += fmt::format("traffic:\n{}  load: {}\n  sizes: [{}]\n  slot_units: 2\n{}", pattern, load,
                     8 * flits, injection_process(c, file, rate));
  } else if (topology == "flatfly") {
    const int k = positive(c, "k", kDefaultK, 64, file);
    if (k < 2) refuse(entry_of(c, "k", file), "k must be at least 2: a ring or router row of one has no links");
    const int n = c.get_int("n", kDefaultN);
    const int conc = c.get_int("c", 1);
    if (n != 1)
      refuse(entry_of(c, "n", file), fmt::format("n = {}: only the one-dimensional flatfly (a k-ary 2-flat) is imported; set n = 1", n));
    if (conc != k)
      refuse(entry_of(c, "c", file),
             fmt::format("c = {}: fabemu's k-ary 2-flat has k endpoints per router; set c = {}",
                         conc, k));
    const std::string rf = c.get_string("routing_function", "none");
    static const std::map<std::string, std::string> routings{
        {"ran_min", "ran_min"}, {"valiant", "valiant_booksim"}, {"ugal", "ugal_booksim"}};
    const auto it = routings.find(rf);
    if (it == routings.end())
      refuse(entry_of(c, "routing_function", file),
             "routing_function " + rf + " is not modelled on the flatfly: use ran_min, valiant or ugal");
    if (rf != "ran_min" && vcs % 2)
      refuse(entry_of(c, "num_vcs", file),
             fmt::format("num_vcs = {}: {} splits the VCs into two halves, which with an odd "
                         "count share the middle VC and can deadlock: use an even num_vcs "
                         "such as {}",
                         vcs, rf, vcs + 1));
    const std::string pattern = traffic_pattern(c, topology, file, k * k, nullptr, &out);
    // One cycle = one 19-phit packet on a YARC link; a hop is BookSim's 4
    // cycles as the pipeline's 2 (switch allocation and crossbar), the
    // wire's 1 and the VC allocation cycle (docs/fabrics/booksim.md).
    out.cycle_ns = 30.4;
    y = fmt::format(
        "profile: flatfly\ntopology:\n  family: flatfly\n  k: {k}\n  n: 2\nrouting: {r}\n"
        "vcs:\n  count: {vcs}\n  buffer_units: {buf}\n  injection: free\n"
        "router:\n  switch_allocator: islip\n  latency_ns: 60.8\n{worm}link:\n  wire_ns: 30.4\n",
        fmt::arg("k", k), fmt::arg("r", it->second), fmt::arg("vcs", vcs),
        fmt::arg("buf", 19 * vc_buf), fmt::arg("worm", worm));
    y += credit_delay(c, file, topology, out.cycle_ns);
    // A flit: a 32-byte write, one 19-phit packet (the profile's).
    y += fmt::format("traffic:\n{}  load: {}\n{}  slot_units: 19\n{}", pattern, load,
                     flits > 1 ? fmt::format("  sizes: [{}]\n", 32 * flits) : std::string(),
                     injection_process(c, file, rate));
  } else {
    refuse(entry_of(c, "topology", file),
           "topology " + topology + " is not imported yet: use torus, mesh or flatfly");
  }
  y += fmt::format("run:\n  seed: {}\n  warmup_ns: {}\n  measure_ns: {}\n{}", seed > 0 ? seed : 1,
                   m.warmup_cycles * out.cycle_ns, m.measure_cycles * out.cycle_ns, queue);
  out.yaml = "# From the BookSim2 configuration " + file + " (fabemu run --booksim)\n" + y;
  return out;
}

std::string booksim_results(const nlohmann::json& r, const BooksimSpec& s) {
  const double cyc = s.cycle_ns;
  const auto lat = [&](const char* block, const char* f) {
    return r.value(block, nlohmann::json::object()).value(f, 0.0) / cyc;
  };
  std::string o;
  // A packet of several flits is a fabemu message: its latency is the
  // message's (generation to the last flit), a flit's is a packet's.
  const bool worms = s.packet_size > 1 && r.contains("message_latency_ns");
  const char* packet_block = worms ? "message_latency_ns" : "latency_ns";
  const double mean = lat(packet_block, "mean");
  if (s.sim_type == "latency" && mean > s.latency_thres) {
    o += fmt::format("Average latency for class 0 exceeded {:g} cycles. Aborting simulation.\n",
                     s.latency_thres);
    o += "Simulation unstable, ending ...\n";
  } else {
    const double offered = r.value("offered_load", 0.0), accepted = r.value("accepted_load", 0.0);
    const double entered = r.value("entered_load", offered);
    const double hops = r.value("hops", nlohmann::json::object()).value("mean", 0.0);
    o += "====== Overall Traffic Statistics ======\n====== Traffic class 0 ======\n";
    const auto three = [&](const char* name, const char* block) {
      o += fmt::format("{} average = {:g} (1 samples)\n", name, lat(block, "mean"));
      o += fmt::format("\tminimum = {:g} (1 samples)\n", lat(block, "min"));
      o += fmt::format("\tmaximum = {:g} (1 samples)\n", lat(block, "max"));
    };
    // BookSim's: generation to the tail; the head's injection to the tail;
    // each flit's own injection to its arrival.
    three("Packet latency", packet_block);
    three("Network latency", worms ? "message_network_latency_ns" : "network_latency_ns");
    three("Flit latency", "network_latency_ns");
    const double size = s.packet_size;
    o += fmt::format("Injected packet rate average = {:g} (1 samples)\n", entered / size);
    o += fmt::format("Accepted packet rate average = {:g} (1 samples)\n", accepted / size);
    o += fmt::format("Injected flit rate average = {:g} (1 samples)\n", entered);
    o += fmt::format("Accepted flit rate average = {:g} (1 samples)\n", accepted);
    o += fmt::format("Injected packet size average = {} (1 samples)\n", s.packet_size);
    o += fmt::format("Accepted packet size average = {} (1 samples)\n", s.packet_size);
    // BookSim counts routers, the last one included; fabemu links between them.
    o += fmt::format("Hops average = {:g} (1 samples)\n", hops + 1);
  }
  const double wall = r.value("performance", nlohmann::json::object()).value("wall_s", 0.0);
  o += fmt::format("Total run time {:g}\n", wall);
  return o;
}

}  // namespace fabemu
