#include "control/booksim/booksim_network.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <map>

#include "control/topology/butterfly.h"
#include "control/topology/hypercube.h"

namespace fabemu {

namespace {

// BookSim's defaults (its booksim_config.cpp) for the keys read here.
constexpr int kDefaultK = 8, kDefaultN = 2;

// How a topology's nodes are numbered, for the fixed patterns: BookSim's
// k-ary n-cube (torus, mesh) on its own node numbers (traffic.numbering
// booksim); the hypercube (BookSim's mesh of k = 2), whose node numbers are
// fabemu's endpoint indices; the butterfly (BookSim's fly), whose rows are
// fabemu's with the digits reversed; the flatfly, whose numbering fabemu's
// fabric does not share.
enum class Nodes { kncube, hypercube, fly, flatfly };

// The traffic block's pattern lines for BookSim's traffic key. endpoint
// gives fabemu's endpoint of BookSim's node (unused on the flatfly).
std::string traffic_pattern(const BooksimConfig& c, const std::string& topology,
                            const std::string& file, int nodes, Nodes numbering,
                            const std::function<int(int)>& endpoint, BooksimSpec* out) {
  const BooksimEntry e = booksim_entry(c, "traffic", file);
  const BooksimCall call = c.get_call("traffic", "uniform");
  const bool cube = numbering == Nodes::kncube || numbering == Nodes::hypercube;
  const auto pattern = [&](const std::string& p) {
    return fmt::format("  pattern: {}\n{}", p,
                       numbering == Nodes::kncube ? "  numbering: booksim\n" : "");
  };
  // BookSim's uniform draws any of the N nodes, the source too.
  if (call.name == "uniform") return "  pattern: uniform\n  to_self: true\n";
  const bool bits = call.name == "bitcomp" || call.name == "transpose" || call.name == "bitrev" ||
                    call.name == "shuffle";
  if (bits && (nodes & (nodes - 1)))
    booksim_refuse(e, fmt::format("{} needs a power-of-two node count, got {}", call.name, nodes));
  if (call.name == "transpose" && cube && std::lround(std::log2(nodes)) % 2)
    booksim_refuse(e,
                   fmt::format("transpose needs an even power of two of nodes (its bits split in "
                               "halves), got {}",
                               nodes));
  // ~src is the same node whichever way the digits are numbered.
  if (call.name == "bitcomp") return pattern("bitcomp");
  if (numbering == Nodes::hypercube) {
    // fabemu's bit patterns on the endpoint index are BookSim's on its node
    // numbers. Its neighbor moves every digit on by one: on k = 2 each bit
    // flips. Its tornado moves each by (k + 1) / 2 - 1 = 0.
    if (bits) return pattern(call.name);
    if (call.name == "neighbor") return pattern("bitcomp");
    if (call.name == "tornado")
      booksim_refuse(e,
                     "tornado on BookSim's mesh of k = 2 moves each digit by (k + 1) / 2 - 1 = 0, "
                     "so every node would send to itself: use another pattern");
  }
  if (numbering == Nodes::kncube && (bits || call.name == "tornado" || call.name == "neighbor"))
    return pattern(call.name);
  if (call.name == "neighbor" && numbering == Nodes::flatfly) return "  pattern: neighbor\n";
  if (call.name == "randperm") {
    // BookSim's permutation of perm_seed (randperm({S}) or the perm_seed key).
    double seed = 0;
    if (!call.args.empty()) {
      const BooksimArg& a = call.args[0];
      if (call.args.size() > 1 || (a.is_list() && a.items.size() != 1))
        booksim_refuse(e, "randperm takes one perm_seed, written randperm(S) or randperm({S})");
      seed = a.is_list() ? a.items[0].number : a.number;
    } else if (const BooksimEntry* ps = c.find("perm_seed")) {
      if (ps->kind == BooksimValueKind::kString)
        booksim_refuse(booksim_entry(c, "perm_seed", file),
                       "perm_seed must be a number (time draws a new permutation each run)");
      seed = c.get_int("perm_seed", 0);
    }
    if (seed < 0 || seed > 2147483647 || seed != std::floor(seed))
      booksim_refuse(e, fmt::format("perm_seed must be 0 to 2^31 - 1, got {}", seed));
    if (!cube)
      out->notes.push_back(fmt::format(
          "traffic randperm: BookSim's permutation of perm_seed {:.0f}, but over fabemu's "
          "endpoint numbers, which are not BookSim's node numbers on the {}: its pairs differ "
          "from BookSim's",
          seed, topology));
    return pattern("permutation") +
           fmt::format("  permutation_seed: {:.0f}   # BookSim's perm_seed\n", seed);
  }
  if (call.name == "hotspot" && numbering != Nodes::flatfly) {
    // BookSim's first argument lists the hot nodes, the second their rates:
    // hotspot({N}) or hotspot({{N},{R}}); one hot node takes all of it.
    std::vector<BooksimArg> one;
    if (!call.args.empty())
      one = call.args[0].is_list() ? call.args[0].items : std::vector<BooksimArg>{call.args[0]};
    if (one.size() != 1)
      booksim_refuse(e,
                     "hotspot is imported with one hot node, written hotspot({N}): fabemu's "
                     "hotspot pattern has one hot endpoint (BookSim picks a random one when none "
                     "is given)");
    const int h = static_cast<int>(one[0].number);
    if (one[0].is_list() || h < 0 || h >= nodes || h != one[0].number)
      booksim_refuse(
          e, fmt::format("hotspot node {} is not a node: give 0 to {}", one[0].text, nodes - 1));
    out->notes.push_back(fmt::format(
        "traffic hotspot: every source sends to node {} (fabemu endpoint {}), except the hot "
        "node itself, which sends uniformly (BookSim's sends to itself)",
        h, endpoint(h)));
    return fmt::format("  pattern: hotspot\n  hotspot: {}\n  hotspot_fraction: 1\n", endpoint(h));
  }
  if (numbering == Nodes::fly)
    booksim_refuse(
        e, "traffic " + call.name +
               " is not imported for topology fly (fabemu's butterfly "
               "numbers its rows' digits the other way round and has BookSim's definition of "
               "this pattern only on the k-ary n-cube): use uniform, bitcomp, randperm or hotspot");
  booksim_refuse(
      e, "traffic " + call.name + " is not imported for topology " + topology +
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
// base: BookSim's credit_delay that fabemu's link has already (1 in the
// k-ary n-cube's cycles, 0 in the flatfly profile's).
std::string credit_delay(const BooksimConfig& c, const std::string& file,
                         const std::string& topology, int base, double cycle_ns) {
  const int delay = c.get_int("credit_delay", 0);  // BookSim's default
  if (delay < base || delay > 1000) {
    const std::string why = fmt::format(
        "credit_delay = {}: on the {} fabemu's credits come back as BookSim's do with "
        "credit_delay {} at the least; use {} to 1000",
        delay, topology, base, base);
    if (c.find("credit_delay")) booksim_refuse(booksim_entry(c, "credit_delay", file), why);
    booksim_refuse(booksim_entry(c, "credit_delay", file),
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
  const BooksimEntry e = booksim_entry(c, "injection_process", file);
  const auto param = [&](size_t i, const char* key, double fallback) {
    return i < call.args.size() ? call.args[i].number : c.get_double(key, fallback);
  };
  // BookSim's defaults: burst_alpha 0.5, burst_beta 0.5, burst_r1 -1 (derived).
  double alpha = param(0, "burst_alpha", 0.5), beta = param(1, "burst_beta", 0.5);
  const double r1 = param(2, "burst_r1", -1.0);
  const int given = (alpha >= 0) + (beta >= 0) + (r1 >= 0);
  if (given != 2)
    booksim_refuse(
        e, fmt::format("on_off takes two of alpha, beta and r1 (a negative one is derived), "
                       "got alpha {:g}, beta {:g}, r1 {:g}",
                       alpha, beta, r1));
  if (alpha < 0) alpha = beta * rate / (r1 - rate);
  if (beta < 0) beta = alpha * (r1 - rate) / rate;
  if (!(alpha > 0 && alpha <= 1) || !(beta >= 0 && beta < 1))
    booksim_refuse(e,
                   fmt::format("on_off needs 0 < alpha <= 1 and 0 <= beta < 1, which these give as "
                               "alpha {:g}, beta {:g}",
                               alpha, beta));
  return fmt::format("  process: on_off\n  burst_alpha: {}\n  burst_beta: {}\n", alpha, beta);
}

// BookSim's k-ary n-cube (kncube): n dimensions of k routers, one node
// each; the mesh without the wrap links. One cycle = one packet of 2 flits
// of 0.5 ns (docs/fabrics/booksim.md).
std::string kncube_yaml(const BooksimConfig& c, const BooksimCommon& x, int k, int n,
                        BooksimSpec* out) {
  const bool mesh = x.topology == "mesh";
  if (n < 1 || n > 3)
    booksim_refuse(
        booksim_entry(c, "n", x.file),
        fmt::format("n = {}: fabemu's {} has one to three dimensions; set n = 1, 2 or 3{}", n,
                    x.topology, mesh ? " (or k = 2, BookSim's mesh that is a hypercube)" : ""));
  if (c.get_string("routing_function", "none") != "dim_order")
    booksim_refuse(booksim_entry(c, "routing_function", x.file),
                   "routing_function " + c.get_string("routing_function", "none") +
                       " is not modelled on the " + x.topology + ": use dim_order");
  if (!mesh && x.vcs < 2)
    booksim_refuse(booksim_entry(c, "num_vcs", x.file),
                   "dim_order needs at least 2 VCs on the torus (a dateline class each)");
  int nodes = 1;
  for (int d = 0; d < n; ++d) nodes *= k;
  const auto dim = [&](int d) { return d < n ? k : 1; };
  // BookSim's node x + k (y + k z) is fabemu's router (x ky + y) kz + z.
  const auto endpoint = [&](int node) {
    const int x0 = node % k, y0 = node / k % dim(1), z0 = node / k / dim(1) % dim(2);
    return (x0 * dim(1) + y0) * dim(2) + z0;
  };
  const std::string pattern =
      traffic_pattern(c, x.topology, x.file, nodes, Nodes::kncube, endpoint, out);
  out->cycle_ns = 1.0;
  std::string y = fmt::format(
      "profile: t3e\ntopology:\n  family: torus\n  dims: [{}, {}, {}]\n{}routing: dim_order\n"
      "vcs:\n  count: {vcs}\n  buffer_units: {buf}\n  injection: free\n"
      "router:\n  switch_allocator: {sw}\n  straight_ns: 3\n  turn_ns: 3\n  endpoint_ns: 3\n{worm}{tail}"
      "packet:\n  header_units: 1\n  max_units: 2\n"
      "link:\n  lanes: 1\n  lane_gbps: 140\n  wire_ns: 2\n  injection_wire_ns: 1\n"
      "  ejection_wire_ns: 2\n",
      dim(0), dim(1), dim(2), mesh ? "  wrap: false\n" : "", fmt::arg("vcs", x.vcs),
      fmt::arg("buf", 2 * x.vc_buf), fmt::arg("worm", x.worm), fmt::arg("sw", x.switch_allocator), fmt::arg("tail", x.router_lines));
  y += credit_delay(c, x.file, x.topology, 1, out->cycle_ns);
  // A flit: a packet of 8 payload bytes (2 units, one cycle).
  y += fmt::format("traffic:\n{}  load: {}\n  sizes: [{}]\n  slot_units: 2\n{}", pattern, x.load,
                   8 * x.flits, injection_process(c, x.file, x.rate));
  return y;
}

// The flatfly profile's BookSim timing, shared by the topologies routed on
// the flatfly's engines: one cycle = one 19-phit packet on a YARC link; a
// hop is BookSim's 4 cycles as the pipeline's 2 (switch allocation and
// crossbar), the wire's 1 and the VC allocation cycle
// (docs/fabrics/booksim.md). topology_lines: the topology block and routing.
std::string yarc_cycle_yaml(const BooksimConfig& c, const BooksimCommon& x,
                            const std::string& topology_lines, const std::string& pattern,
                            BooksimSpec* out) {
  out->cycle_ns = 30.4;
  std::string y = fmt::format(
      "profile: flatfly\n{}vcs:\n  count: {vcs}\n  buffer_units: {buf}\n  injection: free\n"
      "router:\n  switch_allocator: {sw}\n  latency_ns: 60.8\n{worm}{tail}link:\n  wire_ns: 30.4\n",
      topology_lines, fmt::arg("vcs", x.vcs), fmt::arg("buf", 19 * x.vc_buf),
      fmt::arg("worm", x.worm), fmt::arg("sw", x.switch_allocator), fmt::arg("tail", x.router_lines));
  y += credit_delay(c, x.file, x.topology, 0, out->cycle_ns);
  // A flit: a 32-byte write, one 19-phit packet (the profile's).
  y += fmt::format("traffic:\n{}  load: {}\n{}  slot_units: 19\n{}", pattern, x.load,
                   x.flits > 1 ? fmt::format("  sizes: [{}]\n", 32 * x.flits) : std::string(),
                   injection_process(c, x.file, x.rate));
  return y;
}

// BookSim's mesh of k = 2 and n dimensions is a binary n-cube, its
// dim_order_mesh e-cube on any VC: fabemu's hypercube family, routing
// dim_order, node i on router i.
std::string hypercube_yaml(const BooksimConfig& c, const BooksimCommon& x, int n,
                           BooksimSpec* out) {
  if (const std::string why = hypercube_size_problem(n, 1); !why.empty())
    booksim_refuse(booksim_entry(c, "n", x.file),
                   "BookSim's mesh of k = 2 is fabemu's hypercube, and " + why);
  if (c.get_string("routing_function", "none") != "dim_order")
    booksim_refuse(booksim_entry(c, "routing_function", x.file),
                   "routing_function " + c.get_string("routing_function", "none") +
                       " is not modelled on the mesh: use dim_order");
  const std::string pattern = traffic_pattern(
      c, x.topology, x.file, 1 << n, Nodes::hypercube, [](int node) { return node; }, out);
  return yarc_cycle_yaml(
      c, x,
      fmt::format("topology:\n  family: hypercube\n  n: {}\n  endpoints_per_router: 1\n"
                  "routing: dim_order\n",
                  n),
      pattern, out);
}

// BookSim's k-ary n-fly (KNFly): k^n nodes through n stages of k^(n-1)
// radix-k routers, dest_tag_fly routing: fabemu's butterfly family,
// routing dest_tag. BookSim's stage s sets digit n-2-s of the router
// address, fabemu's digit s, so BookSim's node a k + p (router a of the
// first and last stage, port p) is fabemu's endpoint rev(a) k + p, rev
// reversing a's n-1 digits.
std::string fly_yaml(const BooksimConfig& c, const BooksimCommon& x, int k, int n,
                     BooksimSpec* out) {
  if (n < 2)
    booksim_refuse(
        booksim_entry(c, "n", x.file),
        fmt::format("n = {}: fabemu's butterfly has at least 2 stages (a fly of n = 1 is one "
                    "router); set n = 2 or more",
                    n));
  if (const std::string why = butterfly_size_problem(k, n); !why.empty())
    booksim_refuse(booksim_entry(c, n * k > kMaxPorts ? "n" : "k", x.file), why);
  if (c.get_string("routing_function", "none") != "dest_tag")
    booksim_refuse(booksim_entry(c, "routing_function", x.file),
                   "routing_function " + c.get_string("routing_function", "none") +
                       " is not modelled on the fly: use dest_tag");
  int nodes = k;
  for (int s = 1; s < n; ++s) nodes *= k;
  const auto endpoint = [k, n](int node) {
    int a = node / k, rev = 0;
    for (int d = 0; d < n - 1; ++d, a /= k) rev = rev * k + a % k;
    return rev * k + node % k;
  };
  const std::string pattern =
      traffic_pattern(c, x.topology, x.file, nodes, Nodes::fly, endpoint, out);
  return yarc_cycle_yaml(
      c, x,
      fmt::format("topology:\n  family: butterfly\n  k: {}\n  n: {}\nrouting: dest_tag\n", k, n),
      pattern, out);
}

// BookSim's flatfly of n = 1: k routers of k nodes, all linked.
std::string flatfly_yaml(const BooksimConfig& c, const BooksimCommon& x, int k, int n,
                         BooksimSpec* out) {
  const int conc = c.get_int("c", 1);
  if (n != 1)
    booksim_refuse(
        booksim_entry(c, "n", x.file),
        fmt::format("n = {}: only the one-dimensional flatfly (a k-ary 2-flat) is imported; "
                    "set n = 1",
                    n));
  if (conc != k)
    booksim_refuse(
        booksim_entry(c, "c", x.file),
        fmt::format("c = {}: fabemu's k-ary 2-flat has k endpoints per router; set c = {}", conc,
                    k));
  const std::string rf = c.get_string("routing_function", "none");
  static const std::map<std::string, std::string> routings{
      {"ran_min", "ran_min"}, {"valiant", "valiant_booksim"}, {"ugal", "ugal_booksim"}};
  const auto it = routings.find(rf);
  if (it == routings.end())
    booksim_refuse(
        booksim_entry(c, "routing_function", x.file),
        "routing_function " + rf + " is not modelled on the flatfly: use ran_min, valiant or ugal");
  if (rf != "ran_min" && x.vcs % 2)
    booksim_refuse(booksim_entry(c, "num_vcs", x.file),
                   fmt::format("num_vcs = {}: {} splits the VCs into two halves, which with an odd "
                               "count share the middle VC and can deadlock: use an even num_vcs "
                               "such as {}",
                               x.vcs, rf, x.vcs + 1));
  const std::string pattern =
      traffic_pattern(c, x.topology, x.file, k * k, Nodes::flatfly, nullptr, out);
  return yarc_cycle_yaml(
      c, x,
      fmt::format("topology:\n  family: flatfly\n  k: {}\n  n: 2\nrouting: {}\n", k, it->second),
      pattern, out);
}

}  // namespace

std::string booksim_network_yaml(const BooksimConfig& c, const BooksimCommon& x, BooksimSpec* out) {
  const std::string& file = x.file;
  if (x.topology == "torus" || x.topology == "mesh") {
    const int k = booksim_positive(c, "k", kDefaultK, 255, file);
    if (k < 2)
      booksim_refuse(booksim_entry(c, "k", file),
                     "k must be at least 2: a ring or router row of one has no links");
    const int n = c.get_int("n", kDefaultN);
    return x.topology == "mesh" && k == 2 && n > 3 ? hypercube_yaml(c, x, n, out)
                                                   : kncube_yaml(c, x, k, n, out);
  }
  if (x.topology == "flatfly") {
    const int k = booksim_positive(c, "k", kDefaultK, 64, file);
    if (k < 2)
      booksim_refuse(booksim_entry(c, "k", file),
                     "k must be at least 2: a ring or router row of one has no links");
    return flatfly_yaml(c, x, k, c.get_int("n", kDefaultN), out);
  }
  if (x.topology == "fly") {
    const int k = booksim_positive(c, "k", kDefaultK, 64, file);
    if (k < 2)
      booksim_refuse(booksim_entry(c, "k", file), "k must be at least 2: a router of one port");
    return fly_yaml(c, x, k, c.get_int("n", kDefaultN), out);
  }
  booksim_refuse(
      booksim_entry(c, "topology", file),
      "topology " + x.topology + " is not imported yet: use torus, mesh, flatfly or fly");
}

}  // namespace fabemu
