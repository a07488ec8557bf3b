// The BookSim import's translation of BookSim2's networks (kncube torus
// and mesh, its mesh of k = 2 as a hypercube, fly, flatfly) into the
// topology, router, link and traffic blocks of a fabemu spec; the keys
// every network shares are read in control/booksim/booksim_import.cpp.
#pragma once
#include <string>

#include "control/booksim/booksim_config.h"
#include "control/booksim/booksim_import.h"

namespace fabemu {

// What every topology's translation takes from the configuration.
struct BooksimCommon {
  std::string file, topology;
  int vcs, vc_buf, flits;
  double rate, load;  // packets, flits per node and cycle
  std::string worm;   // the router block's flow_control line for packets of several flits
  std::string switch_allocator;  // router.switch_allocator for BookSim's sw_allocator
  std::string router_lines;  // the router block's wait_for_tail_credit and delay lines, or ""
};

// Throws the configuration's error at e ("FILE:LINE: why").
[[noreturn]] void booksim_refuse(const BooksimEntry& e, const std::string& why);

// The entry that set key, or a stand-in naming the file when it was not set.
BooksimEntry booksim_entry(const BooksimConfig& c, const std::string& key, const std::string& file);

// Key's integer value, refused unless within 1..most.
int booksim_positive(const BooksimConfig& c, const std::string& key, int fallback, int most,
                     const std::string& file);

// The spec's YAML from profile to traffic for x.topology (the run block
// is the caller's); sets out->cycle_ns. Refuses a topology not imported.
std::string booksim_network_yaml(const BooksimConfig& c, const BooksimCommon& x, BooksimSpec* out);

}  // namespace fabemu
