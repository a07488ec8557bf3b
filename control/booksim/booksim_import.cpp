#include "control/booksim/booksim_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "control/booksim/booksim_network.h"
#include "dataplane/stats/sample_periods.h"
#include "dataplane/core/fabric.h"

namespace fabemu {

[[noreturn]] void booksim_refuse(const BooksimEntry& e, const std::string& why) {
  throw BooksimConfig::error_at(e, why);
}

BooksimEntry booksim_entry(const BooksimConfig& c, const std::string& key,
                           const std::string& file) {
  if (const BooksimEntry* e = c.find(key)) return *e;
  BooksimEntry e;
  e.key = key;
  e.file = file;
  e.raw = "(BookSim's default)";
  return e;
}

int booksim_positive(const BooksimConfig& c, const std::string& key, int fallback, int most,
                     const std::string& file) {
  const int v = c.get_int(key, fallback);
  if (v < 1 || v > most)
    booksim_refuse(booksim_entry(c, key, file),
                   fmt::format("{} must be 1 to {} here, got {}", key, most, v));
  return v;
}

namespace {

// BookSim's defaults (its booksim_config.cpp) for the keys the import reads.
constexpr int kDefaultVcs = 16, kDefaultVcBuf = 8;
constexpr int kDefaultWarmup = 3, kDefaultSample = 1000, kDefaultMaxSamples = 10;
constexpr int kSourceQueue = 4096;  // packets

// Keys whose value fabemu models only at one setting: BookSim's value there,
// and what fabemu lacks for the others.
struct FixedKey {
  double value;
  double booksim_default;
  const char* why;
};
const std::map<std::string, FixedKey>& fixed_keys() {
  static const std::map<std::string, FixedKey> keys{
      {"internal_speedup",
       {1, 1, "fabemu's iSLIP router allocates once a cycle (input_speedup and output_speedup "
              "are modelled)"}},
      {"classes", {1, 1, "fabemu's BookSim import runs one traffic class"}},
      {"sim_count", {1, 1, "fabemu runs one simulation per run"}},
      {"speculative", {0, 0, "speculative switch allocation is not modelled"}},
      {"noq", {0, 0, "next-hop output queueing is not modelled"}},
      {"subnets", {1, 1, "one network"}},
      {"include_queuing",
       {1, 1, "fabemu's latency includes source queueing, as BookSim's default"}},
      {"use_read_write", {0, 0, "request/reply traffic is not imported"}},
  };
  return keys;
}

// Keys read for their value (validated where they are used), and keys
// BookSim reads that change nothing fabemu models (accepted, said once).
const std::set<std::string>& read_keys() {
  static const std::set<std::string> keys{
      "topology",
      "k",
      "n",
      "c",
      "x",
      "y",
      "xr",
      "yr",
      "routing_function",
      "router",
      "num_vcs",
      "vc_buf_size",
      "vc_allocator",
      "sw_allocator",
      "wait_for_tail_credit",
      "routing_delay",
      "vc_alloc_delay",
      "sw_alloc_delay",
      "st_prepare_delay",
      "st_final_delay",
      "alloc_iters",
      "input_speedup",
      "output_speedup",
      "hold_switch_for_packet",
      "arb_type",
      "use_noc_latency",
      "traffic",
      "injection_process",
      "injection_rate",
      "sim_type",
      "warmup_periods",
      "sample_period",
      "max_samples",
      "latency_thres",
      "warmup_thres",
      "acc_warmup_thres",
      "stopping_thres",
      "acc_stopping_thres",
      "seed",
      "print_activity",
      "print_csv_results",
      "watch_file",
      "watch_packets",
      "watch_flits",
      "watch_out",
      "stats_out",
      "viewer_trace",
      "deadlock_warn_timeout",
      "measure_stats",
      "pair_stats",
      "perm_seed",
      "credit_delay",
      "burst_alpha",
      "burst_beta",
      "burst_r1",
      "packet_size",
      "injection_rate_uses_flits",
  };
  return keys;
}

void check_keys(const BooksimConfig& c) {
  for (const BooksimEntry& e : c.entries()) {
    if (read_keys().count(e.key)) continue;
    const auto it = fixed_keys().find(e.key);
    if (it == fixed_keys().end())
      booksim_refuse(e, fmt::format("'{}' is not modelled by fabemu's BookSim import (docs/fabrics/"
                                    "booksim.md lists what is): remove it",
                                    e.key));
  }
  for (const auto& [key, rule] : fixed_keys()) {
    const double v = c.get_double(key, rule.booksim_default);
    if (std::fabs(v - rule.value) > 1e-9) {
      if (const BooksimEntry* e = c.find(key))
        booksim_refuse(*e, fmt::format("{} = {:g} is not modelled ({}); fabemu models {} = {:g}",
                                       key, v, rule.why, key, rule.value));
      throw BooksimConfigError(
          c.entries().empty() ? "" : c.entries().front().file, 0,
          fmt::format("{} is not set, so BookSim's default {:g} would apply, which fabemu does "
                      "not model ({}): write {} = {:g}; in the file",
                      key, v, rule.why, key, rule.value));
    }
  }
}

struct Measure {
  int warmup_cycles, measure_cycles, period_cycles;
};

Measure measurement(const BooksimConfig& c, const std::string& file, BooksimSpec* out) {
  const std::string sim = c.get_string("sim_type", "latency");
  if (sim != "latency" && sim != "throughput")
    booksim_refuse(booksim_entry(c, "sim_type", file),
                   "sim_type " + sim + " is not modelled: use latency or throughput");
  out->sim_type = sim;
  BooksimMeasure& m = out->measure;
  m.latency_run = sim == "latency";
  m.latency_thres = c.get_double("latency_thres", 500.0);
  m.stopping_thres = c.get_double("stopping_thres", 0.05);
  m.acc_stopping_thres = c.get_double("acc_stopping_thres", 0.05);
  const int warmup = c.get_int("warmup_periods", kDefaultWarmup);
  const int sample = booksim_positive(c, "sample_period", kDefaultSample, 10000000, file);
  const int samples = booksim_positive(c, "max_samples", kDefaultMaxSamples,
                                       int(SamplePeriods::kMaxPeriods), file);
  if (warmup < 0 || warmup >= samples)
    booksim_refuse(booksim_entry(c, "warmup_periods", file),
                   fmt::format("warmup_periods must be 0 to max_samples - 1 ({}), got {}",
                               samples - 1, warmup));
  m.warmup_thres = c.get_double("warmup_thres", 0.05);
  m.acc_warmup_thres = c.get_double("acc_warmup_thres", 0.05);
  m.warmup_periods = warmup;
  m.max_samples = samples;
  m.sample_period = sample;
  out->notes.push_back(fmt::format(
      "fabemu runs all {} sample periods of {} cycles and applies BookSim's convergence rule "
      "to them afterwards (warm-up, stopping_thres, acc_stopping_thres, latency_thres): its "
      "result lines are those of the periods BookSim would have measured",
      samples, sample));
  return {warmup * sample, (samples - warmup) * sample, sample};
}

// The router keys every network shares; returns router.switch_allocator
// for BookSim's sw_allocator.
std::string common_router_keys(const BooksimConfig& c, const std::string& file, BooksimSpec* out) {
  if (c.get_string("router", "iq") != "iq")
    booksim_refuse(booksim_entry(c, "router", file),
                   "only BookSim's iq router is modelled: router = iq");
  const std::string sw = c.get_string("sw_allocator", "islip");
  if (sw != "islip" && sw != "separable_input_first" && sw != "separable_output_first")
    booksim_refuse(booksim_entry(c, "sw_allocator", file),
                   "sw_allocator " + sw +
                       " is not modelled: use islip, separable_input_first or "
                       "separable_output_first");
  if (sw == "separable_output_first")
    out->notes.push_back(
        "sw_allocator separable_output_first: fabemu's islip allocator with its one iteration, "
        "the same matching (outputs grant round robin, inputs accept round robin, pointers "
        "move on a match)");
  const BooksimCall inject = c.get_call("injection_process", "bernoulli");
  if (inject.name != "bernoulli" && inject.name != "on_off")
    booksim_refuse(
        booksim_entry(c, "injection_process", file),
        "injection_process " + inject.name + " is not modelled: use bernoulli or on_off");
  if (c.get_int("alloc_iters", 1) != 1)
    out->notes.push_back(
        "BookSim's iq router does not read alloc_iters (it makes its allocators without the "
        "configuration): fabemu runs one iSLIP iteration, as BookSim does");
  return sw == "separable_input_first" ? sw : "islip";
}

// The router block's vc_allocator line for BookSim's vc_allocator ("" for
// islip). Its separable output-first allocator of one iteration is iSLIP's
// first iteration: outputs grant, inputs accept, pointers move on a match
// (BookSim's figures with either are the same to the last digit).
std::string vc_allocator_line(const BooksimConfig& c, const std::string& file) {
  const std::string va = c.get_string("vc_allocator", "islip");
  if (va == "separable_input_first") return "  vc_allocator: separable_input_first\n";
  if (va != "islip" && va != "separable_output_first")
    booksim_refuse(booksim_entry(c, "vc_allocator", file),
                   "vc_allocator " + va +
                       " is not modelled: use islip, separable_output_first (the same as islip "
                       "here) or separable_input_first");
  return "";
}

// The router block's lines for BookSim's pipeline delays, each in cycles as
// router.routing_cycles, vc_alloc_cycles, sw_alloc_cycles and
// crossbar_cycles (st_prepare_delay + st_final_delay: BookSim's crossbar
// delay is their sum); only those that differ from fabemu's defaults.
std::string pipeline_lines(const BooksimConfig& c, const std::string& file, BooksimSpec* out) {
  const auto delay = [&](const char* key, int fallback, int least) {
    const int v = c.get_int(key, fallback);
    if (v < least || v > 8)
      booksim_refuse(booksim_entry(c, key, file),
                     fmt::format("{} must be {} to 8 cycles here", key, least));
    return v;
  };
  // BookSim's defaults: routing_delay 1, vc_alloc_delay 1, sw_alloc_delay 1,
  // st_prepare_delay 0, st_final_delay 1.
  const int routing = delay("routing_delay", 1, 0);
  // BookSim stamps its routing queue, as its crossbar's, only when the
  // front is through: with more than one cycle a router's heads go through
  // in batches, which fabemu models for the crossbar only.
  if (routing > 1)
    booksim_refuse(booksim_entry(c, "routing_delay", file),
                   "routing_delay above 1 lets a router's heads through BookSim's routing stage "
                   "in batches (iq_router.cpp stamps its routing queue only when its front is "
                   "through), which is not modelled: use routing_delay 0 or 1");
  const int va = delay("vc_alloc_delay", 1, 1), sa = delay("sw_alloc_delay", 1, 1);
  const int crossbar = delay("st_prepare_delay", 0, 0) + delay("st_final_delay", 1, 0);
  if (crossbar < 1 || crossbar > 8)
    booksim_refuse(
        booksim_entry(c, c.find("st_final_delay") ? "st_final_delay" : "st_prepare_delay", file),
        fmt::format("st_prepare_delay + st_final_delay = {}: BookSim's crossbar takes at least a "
                    "cycle, and fabemu models 1 to 8",
                    crossbar));
  for (const auto& [key, d] : {std::pair<const char*, int>{"vc_alloc_delay", va}, {"sw_alloc_delay", sa}})
    if (d > 1)
      out->notes.push_back(fmt::format(
          "{} = {}: BookSim2 itself stops at an assertion in iq_router.cpp with a stage of more "
          "than one cycle once two heads of different ages are in it (built without assertions "
          "it lets them through in batches); fabemu runs the stage as its source lays it out, "
          "a grant made in cycle T completing in T + {}",
          key, d, d - 1));
  std::string y;
  if (routing != 0) y += fmt::format("  routing_cycles: {}   # BookSim's routing_delay\n", routing);
  if (va != 1) y += fmt::format("  vc_alloc_cycles: {}\n", va);
  if (sa != 1) y += fmt::format("  sw_alloc_cycles: {}\n", sa);
  if (crossbar != 1)
    y += fmt::format("  crossbar_cycles: {}   # st_prepare_delay + st_final_delay\n", crossbar);
  return y;
}

}  // namespace

BooksimSpec booksim_to_spec(const BooksimConfig& c) {
  const std::string file =
      c.entries().empty() ? std::string("<booksim>") : c.entries().front().file;
  check_keys(c);
  BooksimSpec out;
  BooksimCommon x;
  x.switch_allocator = common_router_keys(c, file, &out);
  // Speedup: BookSim's expanded switch ports (router.input_speedup and
  // output_speedup of the cycle-synchronous router).
  const int in_speedup = booksim_positive(c, "input_speedup", 1, 4, file);
  const int out_speedup = booksim_positive(c, "output_speedup", 1, 8, file);
  x.router_lines =
      (c.get_int("wait_for_tail_credit", 0) != 0 ? "  wait_for_tail_credit: true\n" : "") +
      (in_speedup > 1 ? fmt::format("  input_speedup: {}\n", in_speedup) : "") +
      (out_speedup > 1 ? fmt::format("  output_speedup: {}\n", out_speedup) : "") +
      vc_allocator_line(c, file) + pipeline_lines(c, file, &out);
  x.file = file;
  x.topology = c.get_string("topology", "torus");
  x.vcs = booksim_positive(c, "num_vcs", kDefaultVcs, kMaxVcs, file);
  x.vc_buf = booksim_positive(c, "vc_buf_size", kDefaultVcBuf, 4096, file);
  const double rate_given = c.get_double("injection_rate", 0.1);
  if (!(rate_given > 0 && rate_given <= 1))
    booksim_refuse(booksim_entry(c, "injection_rate", file),
                   "injection_rate must be above 0 and at most 1");
  // A packet of several flits is a fabemu message of as many one-flit
  // packets, moved as one worm (router.flow_control wormhole).
  x.flits = booksim_positive(c, "packet_size", 1, 64, file);
  out.packet_size = x.flits;
  // BookSim's injection_rate counts packets per node and cycle unless
  // injection_rate_uses_flits; fabemu's load counts flits.
  const bool rate_in_flits = c.get_int("injection_rate_uses_flits", 0) != 0;
  x.rate = rate_in_flits ? rate_given / x.flits : rate_given;
  x.load = x.rate * x.flits;
  if (x.load > 1) {
    out.notes.push_back(fmt::format(
        "injection_rate {:g} packets of {} flits offers {:g} flits per cycle, more than a node's "
        "channel takes: fabemu offers 1 (a full channel; its sources saturate either way)",
        x.rate, x.flits, x.load));
    x.load = 1;
  }
  x.worm = x.flits > 1 ? "  flow_control: wormhole   # BookSim's packets of several flits\n" : "";
  // hold_switch_for_packet keeps a packet's switch connection for its next
  // flit: nothing to hold with packets of one flit.
  if (c.get_int("hold_switch_for_packet", 0) != 0) {
    if (x.flits > 1)
      x.worm += "  hold_switch_for_packet: true\n";
    else
      out.notes.push_back(
          "hold_switch_for_packet = 1 changes nothing with packets of one flit (packet_size = 1)");
  }
  // BookSim's sources fall behind without bound (their packets wait to be
  // generated): the queue holds a backlog whose wait passes latency_thres
  // long before it fills.
  const std::string queue =
      fmt::format("  source_queue_packets: {}\n", std::max(kSourceQueue, 32 * x.flits));
  const Measure m = measurement(c, file, &out);
  const int seed = c.get_int("seed", 0);
  // (BookSim's kncube and flatfly read it; its default lengthens them. Its
  // fly does not.)
  if (x.topology != "fly" && c.get_int("use_noc_latency", 1) != 0)
    booksim_refuse(
        booksim_entry(c, "use_noc_latency", file),
        "use_noc_latency 1 (BookSim's default) lengthens the " + x.topology +
            "'s channels by their placement, which is not modelled: set use_noc_latency = 0");
  std::string y = booksim_network_yaml(c, x, &out);
  y += fmt::format(
      "run:\n  seed: {}\n  warmup_ns: {}\n  measure_ns: {}\n  sample_period_ns: {}   # BookSim's "
      "sample_period\n{}",
      seed > 0 ? seed : 1, m.warmup_cycles * out.cycle_ns, m.measure_cycles * out.cycle_ns,
      m.period_cycles * out.cycle_ns, queue);
  out.yaml = "# From the BookSim2 configuration " + file + " (fabemu run --booksim)\n" + y;
  return out;
}

std::string booksim_results(const nlohmann::json& r, const BooksimSpec& s) {
  const double cyc = s.cycle_ns;
  std::string o;
  BooksimFigures f;
  if (r.contains("sample_periods")) {
    f = booksim_figures(r, s.measure, cyc);
  } else {
    // Without sample periods (run.sample_period_ns 0): the run's window.
    const auto lat = [&](const char* block, const char* k) {
      return r.value(block, nlohmann::json::object()).value(k, 0.0) / cyc;
    };
    // A packet of several flits is a fabemu message: its latency is the
    // message's (generation to the last flit), a flit's is a packet's.
    const bool worms = s.packet_size > 1 && r.contains("message_latency_ns");
    const char* packet = worms ? "message_latency_ns" : "latency_ns";
    const char* network = worms ? "message_network_latency_ns" : "network_latency_ns";
    f.plat_avg = lat(packet, "mean"), f.plat_min = lat(packet, "min"), f.plat_max = lat(packet, "max");
    f.nlat_avg = lat(network, "mean"), f.nlat_min = lat(network, "min");
    f.nlat_max = lat(network, "max");
    f.flat_avg = lat("network_latency_ns", "mean"), f.flat_min = lat("network_latency_ns", "min");
    f.flat_max = lat("network_latency_ns", "max");
    f.injected_flits = r.value("entered_load", r.value("offered_load", 0.0));
    f.accepted_flits = r.value("accepted_load", 0.0);
    f.accepted_packets = f.accepted_flits / s.packet_size;
    f.hops = r.value("hops", nlohmann::json::object()).value("mean", 0.0);
    if (s.sim_type == "latency" && f.plat_avg > s.measure.latency_thres) {
      f.unstable = true;
      f.unstable_line = fmt::format(
          "Average latency for class 0 exceeded {:g} cycles. Aborting simulation.",
          s.measure.latency_thres);
    }
  }
  if (f.unstable) {
    o += f.unstable_line + "\nSimulation unstable, ending ...\n";
  } else {
    if (f.time_taken > 0) o += fmt::format("Time taken is {:.0f} cycles\n", f.time_taken);
    o += "====== Overall Traffic Statistics ======\n====== Traffic class 0 ======\n";
    const auto three = [&](const char* name, double avg, double min, double max) {
      o += fmt::format("{} average = {:g} (1 samples)\n", name, avg);
      o += fmt::format("\tminimum = {:g} (1 samples)\n", min);
      o += fmt::format("\tmaximum = {:g} (1 samples)\n", max);
    };
    // BookSim's: generation to the tail; the head's injection to the tail;
    // each flit's own injection to its arrival.
    three("Packet latency", f.plat_avg, f.plat_min, f.plat_max);
    three("Network latency", f.nlat_avg, f.nlat_min, f.nlat_max);
    three("Flit latency", f.flat_avg, f.flat_min, f.flat_max);
    const double size = s.packet_size;
    o += fmt::format("Injected packet rate average = {:g} (1 samples)\n", f.injected_flits / size);
    o += fmt::format("Accepted packet rate average = {:g} (1 samples)\n", f.accepted_packets);
    o += fmt::format("Injected flit rate average = {:g} (1 samples)\n", f.injected_flits);
    o += fmt::format("Accepted flit rate average = {:g} (1 samples)\n", f.accepted_flits);
    o += fmt::format("Injected packet size average = {} (1 samples)\n", s.packet_size);
    o += fmt::format("Accepted packet size average = {} (1 samples)\n", s.packet_size);
    // BookSim counts routers, the last one included; fabemu links between them.
    o += fmt::format("Hops average = {:g} (1 samples)\n", f.hops + 1);
  }
  const double wall = r.value("performance", nlohmann::json::object()).value("wall_s", 0.0);
  o += fmt::format("Total run time {:g}\n", wall);
  return o;
}

}  // namespace fabemu
