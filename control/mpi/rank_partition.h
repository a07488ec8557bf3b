// Which MPI rank, and which of its workers, owns each router of a job's
// fabric (mpirun -n R: shared/DESIGN.md section 5). Every link between
// routers of two ranks is a cut link: what crosses it goes between
// processes (and servers), and the conservative windows of the run can be
// no longer than the smallest cut link's lookahead, so a partition wants
// few cut links and long ones.
//
// By default the routers go in contiguous blocks over all R x W workers of
// the job, rank by rank (the placement of one process's workers, stretched:
// control/run/engine_config.h), so a rank holds whole slabs of a torus and
// a share of every level of a Clos. run.partition gives each router's rank
// instead; the rank's workers then share its routers in blocks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "control/spec/spec.h"
#include "dataplane/core/fabric.h"
#include "dataplane/sim/time.h"

namespace fabemu {

struct RankPartition {
  int ranks = 1;
  int workers = 1;                     // workers per rank (run.workers)
  std::vector<uint16_t> rank;          // [router]
  std::vector<uint16_t> worker;        // [router]: its worker within its rank
  // The figures of the partition.
  std::vector<std::vector<uint32_t>> routers;  // [rank][worker]: routers it owns
  std::vector<uint32_t> endpoints;             // [rank]: endpoints on its routers
  uint64_t links = 0;                  // router-to-router links, one direction each
  uint64_t rank_cut = 0;               // ... between routers of two ranks
  uint64_t worker_cut = 0;             // ... between two workers of one rank
  ps_t rank_wire_min = kNever;         // the shortest wire latency of a rank-cut link
  ps_t worker_wire_min = kNever;       // ... of a worker-cut link
  std::vector<uint64_t> rank_cut_of;   // [rank]: cut links leaving it
};

// The partition of fabric f (as the spec builds it) over `ranks` ranks of
// spec.run.workers workers each. Throws SpecError (blaming run.partition)
// when the spec's partition does not fit the fabric or the job: a length
// other than the routers', a rank outside 0..ranks-1, a rank with no
// router, or a processor's slice copies on different ranks.
RankPartition partition_routers(const Spec& spec, const Fabric& f, int ranks);

// The partition as the lines `fabemu describe` prints under "partition".
std::vector<std::string> partition_lines(const RankPartition& p);

}  // namespace fabemu
