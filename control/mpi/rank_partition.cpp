// The partition of a fabric over the ranks of a job (rank_partition.h).
#include "control/mpi/rank_partition.h"

#include <algorithm>

#include <fmt/format.h>

#include "control/run/engine_config.h"
#include "control/spec/spec_refuse.h"

namespace fabemu {

namespace {

std::string ns_text(ps_t ps) { return fmt::format("{:g} ns", static_cast<double>(ps) / kPsPerNs); }

}  // namespace

RankPartition partition_routers(const Spec& spec, const Fabric& f, int ranks) {
  RankPartition p;
  p.ranks = std::max(1, ranks);
  p.workers = std::max(1, spec.run.workers);
  const size_t n = f.routers.size();
  p.rank.assign(n, 0);
  p.worker.assign(n, 0);
  const std::vector<int>& given = spec.run.partition;
  if (given.empty()) {
    // Blocks over every worker of the job, rank by rank.
    const std::vector<int> g = place_routers(f, p.ranks * p.workers);
    for (size_t r = 0; r < n; r++) {
      p.rank[r] = static_cast<uint16_t>(g[r] / p.workers);
      p.worker[r] = static_cast<uint16_t>(g[r] % p.workers);
    }
  } else {
    if (given.size() != n)
      refuse_spec(spec, {"run.partition"},
                  fmt::format("run.partition gives {} ranks for the fabric's {} routers: give one "
                              "rank per router, in router order (or [] for blocks)",
                              given.size(), n));
    std::vector<std::vector<uint32_t>> of_rank(p.ranks);
    for (size_t r = 0; r < n; r++) {
      if (given[r] >= p.ranks)
        refuse_spec(spec, {"run.partition"},
                    fmt::format("run.partition puts router {} on rank {}, but the job has {} "
                                "rank{} (0..{}): start more ranks or give a rank below {}",
                                r, given[r], p.ranks, p.ranks == 1 ? "" : "s", p.ranks - 1,
                                p.ranks));
      p.rank[r] = static_cast<uint16_t>(given[r]);
      of_rank[given[r]].push_back(static_cast<uint32_t>(r));
    }
    for (int k = 0; k < p.ranks; k++) {
      if (of_rank[k].empty())
        refuse_spec(spec, {"run.partition"},
                    fmt::format("run.partition gives rank {} no router: every rank of the job "
                                "needs at least one (start fewer ranks)",
                                k));
      for (size_t i = 0; i < of_rank[k].size(); i++)
        p.worker[of_rank[k][i]] = static_cast<uint16_t>(i * p.workers / of_rank[k].size());
    }
  }
  // A processor's ports in every slice send for one processor: one worker.
  for (uint32_t e = f.processors(); e < f.endpoints.size(); e++) {
    const uint32_t a = f.endpoints[e].router, b = f.endpoints[f.processor(e)].router;
    if (p.rank[a] != p.rank[b] || p.worker[a] != p.worker[b])
      refuse_spec(spec, {"run.partition"},
                  fmt::format("run.partition puts router {} (a slice copy of router {}, whose "
                              "processor it sends for) on another rank or worker: give a "
                              "router's slice copies one rank",
                              a, b));
  }
  p.routers.assign(p.ranks, std::vector<uint32_t>(p.workers, 0));
  p.endpoints.assign(p.ranks, 0);
  p.rank_cut_of.assign(p.ranks, 0);
  for (size_t r = 0; r < n; r++) {
    p.routers[p.rank[r]][p.worker[r]]++;
    for (const FabricPort& fp : f.routers[r].ports) {
      if (fp.endpoint >= 0) p.endpoints[p.rank[r]]++;
      if (fp.peer_router < 0) continue;
      p.links++;
      const size_t q = static_cast<size_t>(fp.peer_router);
      if (p.rank[q] != p.rank[r]) {
        p.rank_cut++;
        p.rank_cut_of[p.rank[r]]++;
        p.rank_wire_min = std::min(p.rank_wire_min, fp.wire_ps);
      } else if (p.worker[q] != p.worker[r]) {
        p.worker_cut++;
        p.worker_wire_min = std::min(p.worker_wire_min, fp.wire_ps);
      }
    }
  }
  return p;
}

std::vector<std::string> partition_lines(const RankPartition& p) {
  std::vector<std::string> out;
  out.push_back(fmt::format("{} rank{} x {} worker{}, {} router-to-router links (one direction each)",
                            p.ranks, p.ranks == 1 ? "" : "s", p.workers,
                            p.workers == 1 ? "" : "s", p.links));
  for (int k = 0; k < p.ranks; k++) {
    std::string per;
    uint32_t total = 0;
    for (int w = 0; w < p.workers; w++) {
      per += fmt::format("{}{}", w ? " " : "", p.routers[k][w]);
      total += p.routers[k][w];
    }
    std::string line = fmt::format("rank {}: {} routers", k, total);
    if (p.workers > 1) line += fmt::format(" (workers: {})", per);
    line += fmt::format(", {} endpoints", p.endpoints[k]);
    if (p.ranks > 1) line += fmt::format(", {} cut links out", p.rank_cut_of[k]);
    out.push_back(line);
  }
  // The conservative windows (sim/window_kernel.h) are at most the
  // shortest cut link's lookahead: its wire, plus up to the far router's
  // earliest reaction (pipeline or a unit of credit), which the engine adds.
  auto cut = [&](const char* what, uint64_t links, ps_t wire) {
    if (links == 0) return fmt::format("cut between {}: none", what);
    if (wire == 0)
      return fmt::format("cut between {}: {} links, some of zero wire latency: conservative "
                         "windows need link.wire_ns > 0",
                         what, links);
    return fmt::format(
        "cut between {}: {} links ({:.1f}%), shortest wire {}: windows of at least that, at "
        "most {:.0f} synchronisations per emulated microsecond",
        what, links, 100.0 * static_cast<double>(links) / static_cast<double>(p.links),
        ns_text(wire), 1e6 / static_cast<double>(wire));
  };
  if (p.ranks > 1) out.push_back(cut("ranks", p.rank_cut, p.rank_wire_min));
  if (p.workers > 1) out.push_back(cut("workers of a rank", p.worker_cut, p.worker_wire_min));
  return out;
}

}  // namespace fabemu
