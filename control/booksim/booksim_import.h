// A BookSim2 configuration (control/booksim/booksim_config.h) as a fabemu
// spec: `fabemu run --booksim FILE` and `fabemu check --booksim FILE`.
// What fabemu models of BookSim's iq router (docs/fabrics/booksim.md) is
// translated key by key into the YAML of a spec, which the spec loader then
// validates like any other; every key fabemu cannot model is refused at its
// FILE:LINE with why, never ignored. After the run, booksim_results prints
// BookSim's final statistics lines from the JSON report, so scripts that
// read BookSim's output read fabemu's.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "control/booksim/booksim_config.h"
#include "control/booksim/booksim_convergence.h"

namespace fabemu {

struct BooksimSpec {
  std::string yaml;                // the fabemu spec the configuration stands for
  std::vector<std::string> notes;  // where the run differs from BookSim's, a line each
  double cycle_ns = 1.0;           // one BookSim cycle in the spec's time
  std::string sim_type = "latency";
  BooksimMeasure measure;          // its sample periods and convergence rule
  int packet_size = 1;             // flits per BookSim packet (a fabemu message's packets)
};

// Throws BooksimConfigError ("FILE:LINE: what, and what to do") on a key
// or value fabemu does not model.
BooksimSpec booksim_to_spec(const BooksimConfig& config);

// BookSim's end-of-run lines ("====== Overall Traffic Statistics ======",
// "Packet latency average = X (1 samples)", ..., "Total run time S") from
// a fabemu JSON report, in cycles and flits/node/cycle.
std::string booksim_results(const nlohmann::json& report, const BooksimSpec& spec);

}  // namespace fabemu
