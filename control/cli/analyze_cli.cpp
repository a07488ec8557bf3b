#include "control/cli/analyze_cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string_view>

#include "control/cli/cli.h"
#include "control/spec/spec_error.h"

namespace fabemu {

namespace {

// The options every table has: --threads and --json.
void add_run_options(CLI::App* table, AnalyzeRun& run) {
  table
      ->add_option("--threads", run.threads,
                   "worker threads [default: one per core]; the figures do not depend on it")
      ->check(CLI::Range(1, 1024))
      ->type_name("N");
  table->add_option("--json", run.json_out, "also write the figures as JSON to OUT ('-': stdout)")
      ->type_name("OUT");
}

}  // namespace

AnalyzeCli::AnalyzeCli(CLI::App& app) {
  CLI::App* analyze = app.add_subcommand(
      "analyze",
      "Compute the seed papers' analytical tables from fabemu's routing tables: BlackWidow "
      "Table 4 (worst-case link utilisation under random permutations) and Table 2 (zero-load "
      "latency, folded Clos vs torus); the flattened butterfly paper's cost and power model "
      "(section 4, Tables 2, 3 and 5); the Cray T3E paper's Table 1 (virtual channel balance)");
  analyze->require_subcommand(1);
  analyze->footer(
      "Each table prints fabemu's figures beside the paper's with the difference, then every "
      "assumption made; --json writes the figures too. Progress goes to stderr.");

  table4_ = analyze->add_subcommand(
      "table4",
      "BlackWidow Table 4: average worst-case link utilisation over random permutations of a "
      "3-D torus (dimension order) and a radix-64 fat tree with path diversity 1 to 32");
  table4_
      ->add_option("--sizes", t4_sizes_,
                   "endpoint counts, 64 to 32K (512, 4K, 32K), comma separated [default: "
                   "64,512,4K,32K: the tori 4^3 to 32^3]")
      ->delimiter(',')
      ->type_name("N,...");
  table4_
      ->add_option("--network", t4_networks_,
                   "which networks: torus, fat-tree or both, comma separated [default: both]")
      ->delimiter(',')
      ->check(CLI::IsMember({"torus", "fat-tree"}))
      ->type_name("NAME,...");
  table4_
      ->add_option("--diversity", t4_.diversities,
                   "fat-tree path diversities: paths per transfer, 1 to 32, comma separated")
      ->delimiter(',')
      ->type_name("D,...")
      ->capture_default_str();
  table4_
      ->add_option("--permutations", t4_.permutations,
                   "random permutations per network (the paper: 10000; a 32K fat tree takes "
                   "about 0.2 CPU-seconds each)")
      ->check(CLI::Range(1u, 100000000u))
      ->type_name("N")
      ->capture_default_str();
  table4_->add_option("--seed", t4_.seed, "seed of the permutations and block addresses")
      ->type_name("S")
      ->capture_default_str();
  add_run_options(table4_, t4_run_);
  table4_->footer(
      "The full default run (10000 permutations up to 32K endpoints) takes about 47 CPU-minutes, "
      "25 minutes on two free cores, three quarters of it the 32K fat tree; --permutations 1000 "
      "gives the same figures to about 0.03 (one standard error) in a tenth of the time.");

  table2_ = analyze->add_subcommand(
      "table2",
      "BlackWidow Table 2: zero-load latency of a radix-64 folded Clos and a 3-D torus at 576, "
      "2304, 9216 and 30720 endpoints, BlackWidow technology, router bandwidth held constant");
  table2_
      ->add_option("--sizes", t2_sizes_,
                   "endpoint counts, 64 to 32K, comma separated [default: 576,2304,9216,30720]")
      ->delimiter(',')
      ->type_name("N,...");
  table2_->add_option("--router-ns", t2_.router_ns, "router delay tr at every router crossed")
      ->type_name("NS")
      ->capture_default_str();
  table2_->add_option("--packet-bits", t2_.packet_bits, "packet length L")
      ->type_name("BITS")
      ->capture_default_str();
  table2_->add_option("--wire-ns", t2_.wire_ns, "wire and cable delay of every link")
      ->type_name("NS")
      ->capture_default_str();
  table2_
      ->add_option("--torus-dims", t2_dims_,
                   "the torus shape for a size, e.g. 576=4x12x12 (repeatable or comma "
                   "separated) [default: the shape closest to a cube]")
      ->delimiter(',')
      ->type_name("N=KXxKYxKZ");
  table2_->add_flag("--exact", t2_exact_,
                    "trace every route at every size (minutes at 30720) instead of a sample of "
                    "sources above 2896 endpoints");
  table2_->add_option("--seed", t2_.sample_seed, "seed of the sampled sources above 2896 endpoints")
      ->type_name("S")
      ->capture_default_str();
  add_run_options(table2_, t2_run_);

  table1_ = analyze->add_subcommand(
      "table1",
      "Cray T3E paper (Scott & Thorson 1996), Table 1: virtual channel balance of one ring's "
      "dateline VC assignment, time of crossing vs optimised (8-entry VC table) vs optimised "
      "without the table limit, over the whole ring and its power-of-two subrings");
  table1_->add_option("--rings", t1_rings_, "ring sizes, 2 to 255, comma separated")
      ->delimiter(',')
      ->type_name("K,...")
      ->capture_default_str();
  table1_
      ->add_option("--json", t1_run_.json_out,
                   "also write the figures as JSON to OUT ('-': stdout)")
      ->type_name("OUT");
  table1_->footer(
      "Takes about a second: a fixed-seed simulated annealing per ring, the same figures every "
      "run. Runs use the optimised assignment (vcs.dateline_assignment).");

  t3e_ = analyze->add_subcommand(
      "t3e",
      "Cray T3E paper, section 11: Table 4 (payload bandwidth of each packet type, one-way and "
      "symmetrical), Figure 7 (round-trip latency against system size) and Figure 8 "
      "(per-processor global bandwidth against system size, up to 8x32x8)");
  t3e_->add_option("--dims", t3e_dims_,
                   "torus shapes, comma separated, e.g. 4x4x4,8x8x8 [default: the T3E's sizes "
                   "8 to 2048 nodes, 2x2x2 to 8x32x8]")
      ->delimiter(',')
      ->type_name("KXxKYxKZ,...");
  add_run_options(t3e_, t3e_run_);
  t3e_->footer("Takes a few seconds: every route of the 2048-node torus is traced.");

  mesh3d_ = analyze->add_subcommand(
      "mesh3d-reliability",
      "Petaflops 3D-mesh proposal, 'Reliability Standard': per-router turn lists programmed "
      "around random patterns of dead links and dead routers; the share of patterns leaving "
      "every pair of surviving routers a legal route, against the proposal's 99%");
  mesh3d_->add_option("--dims", mesh_dims_, "mesh sides KX,KY,KZ [default: 27,16,24]")
      ->delimiter(',')
      ->expected(3)
      ->check(CLI::Range(1, 255))
      ->type_name("KX,KY,KZ");
  mesh3d_->add_option("--dead-links", mesh_.dead_links, "most dead links in a pattern (0: none)")
      ->check(CLI::Range(0, 100000))
      ->type_name("N")
      ->capture_default_str();
  mesh3d_
      ->add_option("--dead-routers", mesh_.dead_routers, "most dead routers in a pattern (0: none)")
      ->check(CLI::Range(0, 100000))
      ->type_name("N")
      ->capture_default_str();
  mesh3d_
      ->add_option("--counts", mesh_.counts,
                   "fault counts to run, comma separated, each up to the maximum [default: 1 "
                   "and the maximum]")
      ->delimiter(',')
      ->type_name("N,...");
  mesh3d_->add_option("--patterns", mesh_.patterns, "random patterns per kind and count")
      ->check(CLI::Range(1u, 10000000u))
      ->type_name("P")
      ->capture_default_str();
  mesh3d_->add_option("--seed", mesh_.seed, "seed of the patterns")
      ->type_name("S")
      ->capture_default_str();
  mesh3d_->add_flag("--routes", mesh_.routes,
                    "also compute every rerouted pair's source route and count those needing "
                    "more than six segments as failures (about 1 s more per pattern at 27x16x24)");
  mesh3d_
      ->add_option("--base", mesh_base_,
                   "the turns every router starts from: xyz, or fault (the 3-D west-first model, "
                   "which no dead X link can be routed around from; slow)")
      ->check(CLI::IsMember({"xyz", "fault"}))
      ->capture_default_str();
  add_run_options(mesh3d_, mesh_run_);
  mesh3d_->footer(
      "About 0.15-0.3 s per pattern at 27x16x24 (10 dead routers the slowest): the default "
      "4 x 1000 patterns took 15 minutes on two busy cores.");

  cost_ = analyze->add_subcommand(
      "cost",
      "Flattened butterfly paper, section 4 (Tables 2 and 3) and 5.3 (Table 5): cost and power "
      "per node of the conventional butterfly, folded Clos, hypercube and flattened butterfly "
      "(Figure 6's four) with radix-64 routers, the paper's stated figures beside the model's");
  cost_
      ->add_option("--sizes", cost_sizes_,
                   "node counts, powers of two from 64 to 32K, comma separated [default: "
                   "256,512,1K,2K,4K,8K,16K,32K]")
      ->delimiter(',')
      ->type_name("N,...");
  cost_
      ->add_option("--json", cost_run_.json_out,
                   "also write the figures as JSON to OUT ('-': stdout)")
      ->type_name("OUT");
  cost_->footer("Takes about a second: the counts come from fabemu's topology builders.");
}

bool AnalyzeCli::table_named(int argc, char** argv, std::ostream& err) const {
  if (argc < 2 || std::string_view(argv[1]) != "analyze") return true;
  if (argc > 2 &&
      (argv[2][0] == '-' || argv[2] == table4_->get_name() || argv[2] == table2_->get_name() ||
       argv[2] == table1_->get_name() || argv[2] == cost_->get_name() ||
       argv[2] == t3e_->get_name() || argv[2] == mesh3d_->get_name()))
    return true;
  err << "fabemu analyze: "
      << (argc > 2 ? fmt::format("unknown table '{}'", printable(argv[2]))
                   : std::string("no table named"))
      << ": give table4 (worst-case link utilisation), table2 (zero-load latency), table1 "
         "(the T3E paper's virtual channel balance), cost (the flattened butterfly paper's "
         "cost and power model), t3e (the T3E paper's Table 4 and Figures 7-8) or "
         "mesh3d-reliability (the 3D-mesh proposal's reliability standard); "
         "`fabemu analyze --help` says more\n";
  return false;
}

bool AnalyzeCli::chosen() const {
  return *table4_ || *table2_ || *table1_ || *cost_ || *t3e_ || *mesh3d_;
}

int AnalyzeCli::run(std::ostream& out, std::ostream& err) {
  if (*table4_) {
    std::string why;
    if (!t4_sizes_.empty() && !parse_sizes(t4_sizes_, &t4_.sizes, &why)) {
      err << "fabemu analyze table4: " << why << "\n";
      return kExitUsage;
    }
    if (!t4_networks_.empty()) {
      t4_.torus = std::count(t4_networks_.begin(), t4_networks_.end(), "torus") > 0;
      t4_.fat_tree = std::count(t4_networks_.begin(), t4_networks_.end(), "fat-tree") > 0;
    }
    return analyze_table4_command(t4_, t4_run_, out, err);
  }
  if (*table2_) {
    std::string why;
    if ((!t2_sizes_.empty() && !parse_sizes(t2_sizes_, &t2_.sizes, &why)) ||
        !parse_torus_dims(t2_dims_, &t2_.torus_dims, &why)) {
      err << "fabemu analyze table2: " << why << "\n";
      return kExitUsage;
    }
    if (t2_exact_) t2_.max_routes = 0;
    return analyze_table2_command(t2_, t2_run_, out, err);
  }
  if (*table1_) return analyze_table1_command(t1_rings_, t1_run_, out, err);
  if (*t3e_) {
    std::vector<std::array<int, 3>> dims;
    for (const std::string& item : t3e_dims_) {
      std::array<int, 3> d{};
      char x1 = 0, x2 = 0;
      int used = 0;
      if (std::sscanf(item.c_str(), "%d%c%d%c%d%n", &d[0], &x1, &d[1], &x2, &d[2], &used) != 5 ||
          std::tolower(x1) != 'x' || std::tolower(x2) != 'x' ||
          static_cast<size_t>(used) != item.size() || *std::min_element(d.begin(), d.end()) < 1 ||
          *std::max_element(d.begin(), d.end()) > 255) {
        err << fmt::format(
            "fabemu analyze t3e: --dims '{}' is not KXxKYxKZ with sides 1 to 255: "
            "give for example 8x8x8\n",
            printable(item));
        return kExitUsage;
      }
      dims.push_back(d);
    }
    return analyze_t3e_command(dims, t3e_run_, out, err);
  }
  if (*mesh3d_) {
    if (mesh_dims_.size() == 3) mesh_.dims = {mesh_dims_[0], mesh_dims_[1], mesh_dims_[2]};
    mesh_.xyz_base = mesh_base_ == "xyz";
    return analyze_mesh3d_reliability_command(mesh_, mesh_run_, out, err);
  }
  if (*cost_) {
    std::string why;
    if (!cost_sizes_.empty() && !parse_sizes(cost_sizes_, &cost_opts_.sizes, &why)) {
      err << "fabemu analyze cost: " << why << "\n";
      return kExitUsage;
    }
    return analyze_cost_command(cost_opts_, cost_run_, out, err);
  }
  return kExitUsage;
}

}  // namespace fabemu
