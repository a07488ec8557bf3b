// `fabemu analyze table1`: the T3E paper's Table 1, virtual channel balance
// of the time-of-crossing, optimised (8-entry table) and optimised
// full-table VC assignments (control/analysis/t3e_vc_balance.h), the
// paper's figures beside fabemu's, then every assumption.
#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "control/analysis/t3e_vc_balance.h"
#include "control/cli/analyze_command.h"
#include "control/cli/cli.h"
#include "control/cli/output.h"

namespace fabemu {

namespace {

constexpr const char* kPaper =
    "Scott & Thorson, \"The Cray T3E Network: Adaptive Routing in a High Performance 3D "
    "Torus\", Hot Interconnects IV, 1996";

std::vector<std::string> table1_assumptions() {
  return {
      "One direction of one ring of k nodes (the other direction is its mirror image). A route "
      "is a (source, destination) pair minimal routing sends this way: distance j < k/2, and "
      "the ties j = k/2 from even sources (odd sources send theirs the other way, so both "
      "directions carry the same load). With ties sent one way only the time-of-crossing "
      "column does not come out as the paper's.",
      "The dateline node is where the wrap link arrives (node 0 of a + ring). A route that "
      "passes through it must start on VC0 and is switched to VC1 leaving it; routes that "
      "start or end there are free. (Counting the wrap link itself as VC1 gives the same "
      "time-of-crossing column, but the 4-node ring could then not be balanced: the paper's "
      "0 says it was.)",
      "Traffic: each node sends one packet to every other node of the whole ring, or of each "
      "aligned subring of m = k/2, k/4, ..., 4 nodes (a partition; its traffic never wraps). "
      "A link's balance is |#VC0 - #VC1| of the routes crossing it over the most routes on any "
      "link of that ring or subring; avg is over all k links (a subring's link into the next "
      "one carries none of its traffic and counts 0), max the worst link.",
      "Optimised T3E: one VC per router and destination ordinate & 7 (the 8-entry table), an "
      "entry shared with a route through the dateline node held at VC0. Full tables: one VC "
      "per route. In rings of 4, 8 and 16 no two routes of a source share an entry, so the two "
      "columns are the same search and agree, as the paper says they do up to 16.",
      fmt::format(
          "Optimiser: simulated annealing (our own; the paper names the technique, not its "
          "objective): flip one free entry, accept by the Metropolis rule as the temperature "
          "falls from 0.05 to 2e-5 over {} flips per free entry, keep the best; minimise the sum "
          "over the whole ring (weight {:g}) and each subring size (weight 1) of avg + {:g} x "
          "max. Fixed seed: the same figures every run. The paper's optimiser weighs these "
          "differently (its 16-node ring gives up subrings of 8 for the whole ring, its 8-node "
          "ring the reverse), so the optimised columns differ where the trade-off does.",
          kT3eVcStepsPerEntry, kT3eVcRingWeight, kT3eVcMaxWeight),
      "The paper's 32-node optimised-T3E subrings (.246/.609, .488/1, .594/1) are much worse "
      "than its own full-table ones and than ours: whatever held its 8-entry search back there "
      "is not in the text; ours keeps every subring of 32 well below time of crossing.",
      "Runs use these tables: vcs.dateline_assignment optimised (the t3e profile's default) "
      "programs every router's VC table from the optimised T3E column's assignment.",
  };
}

const char* kSchemeTitles[] = {"Time of crossing", "Optimised T3E (8-entry VC table)",
                               "Optimised, full tables (no table limit)"};

const T3eVcBalance& of(const T3eTable1Row& r, int scheme) {
  return scheme == 0 ? r.toc : scheme == 1 ? r.t3e : r.full;
}

std::pair<double, double> paper_of(const T3eTable1PaperRow& p, int scheme) {
  return scheme == 0   ? std::pair{p.toc_avg, p.toc_max}
         : scheme == 1 ? std::pair{p.t3e_avg, p.t3e_max}
                       : std::pair{p.full_avg, p.full_max};
}

void write_table1(const std::vector<T3eTable1Row>& rows, std::ostream& out) {
  for (int scheme = 0; scheme < 3; ++scheme) {
    out << fmt::format("\n{}\n", kSchemeTitles[scheme]);
    out << fmt::format("  {:>4} {:>7}   {:>7} {:>6} {:>7}   {:>7} {:>6} {:>7}\n", "ring", "subring",
                       "avg", "paper", "diff", "max", "paper", "diff");
    for (const T3eTable1Row& r : rows) {
      const T3eVcBalance& b = of(r, scheme);
      std::string avg = fmt::format("{:>7.3f} {:>6} {:>7}", b.avg, "-", "");
      std::string max = fmt::format("{:>7.3f} {:>6} {:>7}", b.max, "-", "");
      if (r.paper) {
        const auto [pa, pm] = paper_of(*r.paper, scheme);
        avg = fmt::format("{:>7.3f} {:>6.3f} {:>+7.3f}", b.avg, pa, b.avg - pa);
        max = fmt::format("{:>7.3f} {:>6.3f} {:>+7.3f}", b.max, pm, b.max - pm);
      }
      out << fmt::format("  {:>4} {:>7}   {}   {}\n", r.ring, r.subring, avg, max);
    }
  }
}

nlohmann::json balance_json(const T3eVcBalance& b, const std::optional<T3eTable1PaperRow>& p,
                            int scheme) {
  nlohmann::json j = {{"avg", b.avg}, {"max", b.max}};
  if (p) {
    const auto [pa, pm] = paper_of(*p, scheme);
    j["paper_avg"] = pa;
    j["paper_max"] = pm;
  }
  return j;
}

}  // namespace

std::string table1_rings_problem(const std::vector<int>& rings) {
  if (rings.empty()) return "--rings is empty: give ring sizes 2 to 255, e.g. 4,8,16,32";
  for (int k : rings)
    if (k < 2 || k > 255)
      return fmt::format("--rings: {} is not a ring size fabemu builds: give 2 to 255", k);
  return "";
}

int analyze_table1_command(const std::vector<int>& rings, const AnalyzeRun& run, std::ostream& out,
                           std::ostream& err) {
  if (const std::string why = run_problem(run, table1_rings_problem(rings)); !why.empty()) {
    err << "fabemu analyze table1: " << why << "\n";
    return kExitUsage;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<T3eTable1Row> rows = run_t3e_table1(rings);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::ostream& human = text_stream(run.json_out, out, err);
  human << fmt::format("fabemu analyze table1: Table 1 of {}\n", kPaper);
  human << "Virtual channel balance of the dateline VC assignments: average and worst link "
           "over the whole ring (subring = ring) or over its subrings of that size; 0 is "
           "balanced, 1 all on one VC\n";
  write_table1(rows, human);
  const std::vector<std::string> assumptions = table1_assumptions();
  AnalyzeRun one_thread = run;  // the annealing runs on the calling thread
  one_thread.threads = 1;
  write_footer(human, assumptions, seconds, one_thread);
  if (run.json_out.empty()) return kExitOk;
  nlohmann::json j = {{"analysis", "table1"},
                      {"paper", kPaper},
                      {"rings", rings},
                      {"assumptions", assumptions},
                      {"seconds", seconds}};
  nlohmann::json rs = nlohmann::json::array();
  for (const T3eTable1Row& r : rows)
    rs.push_back({{"ring", r.ring},
                  {"subring", r.subring},
                  {"time_of_crossing", balance_json(r.toc, r.paper, 0)},
                  {"optimised", balance_json(r.t3e, r.paper, 1)},
                  {"optimised_full", balance_json(r.full, r.paper, 2)}});
  j["rows"] = rs;
  return write_json(j, run.json_out, out, err) ? kExitOk : kExitRunFailed;
}

}  // namespace fabemu
