// The control side of a job of several MPI ranks (control/mpi/): the
// partition of the routers over ranks and their workers (cut links, their
// wire latency, refusals of a run.partition that does not fit), the rank
// identities every rank compares before a run (same build, same resolved
// spec), and the launcher's environment read without MPI.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "control/mpi/mpi_ranks.h"
#include "control/mpi/rank_identity.h"
#include "control/mpi/rank_partition.h"
#include "control/spec/spec_error.h"
#include "control/spec/spec_loader.h"
#include "control/spec/spec_refuse.h"

namespace fabemu {
namespace {

const std::string kDir = std::string(FABEMU_SOURCE_DIR) + "/topologies/";

Spec spec_of(const std::string& file, const std::vector<std::string>& sets = {}) {
  return load_spec(kDir + file, sets);
}

Fabric fabric_of(const Spec& s) { return build_spec_fabric(s); }

// The 8x8x8 torus over 2 ranks: two slabs of four z-planes; the cut is the
// torus bisection (two planes of 64 links each way: 128 one way, per the
// describe figure, so 256 links counted one direction each).
TEST(RankPartition, TorusBlocksCutTheBisection) {
  const Spec s = spec_of("t3e-8x8x8.yaml");
  const Fabric f = fabric_of(s);
  const RankPartition p = partition_routers(s, f, 2);
  ASSERT_EQ(p.routers.size(), 2u);
  EXPECT_EQ(p.routers[0][0], 256u);
  EXPECT_EQ(p.routers[1][0], 256u);
  EXPECT_EQ(p.endpoints[0], 256u);
  EXPECT_EQ(p.links, 3072u);
  EXPECT_EQ(p.rank_cut, 256u);
  EXPECT_EQ(p.rank_cut_of[0], 128u);
  EXPECT_EQ(p.worker_cut, 0u);
  EXPECT_EQ(p.rank_wire_min, ns_to_ps(s.link.wire_ns));
  // Every link between the two halves runs along one dimension (the
  // blocks are slabs across the slowest of the router numbering).
  std::set<int> dims;
  for (size_t r = 0; r < f.routers.size(); r++)
    for (const FabricPort& fp : f.routers[r].ports) {
      if (fp.peer_router < 0 || p.rank[fp.peer_router] == p.rank[r]) continue;
      for (int d = 0; d < 3; d++)
        if (f.routers[r].coord[d] != f.routers[fp.peer_router].coord[d]) dims.insert(d);
    }
  EXPECT_EQ(dims.size(), 1u);
}

// Workers of a rank take blocks of its routers; one rank is the one-process
// placement (no rank cut).
TEST(RankPartition, WorkersWithinRanks) {
  const Spec s = spec_of("t3e-8x8x8.yaml", {"run.workers=2"});
  const RankPartition p = partition_routers(s, fabric_of(s), 2);
  EXPECT_EQ(p.routers[0], (std::vector<uint32_t>{128, 128}));
  EXPECT_EQ(p.routers[1], (std::vector<uint32_t>{128, 128}));
  EXPECT_EQ(p.worker_cut, 256u);
  const RankPartition one = partition_routers(s, fabric_of(s), 1);
  EXPECT_EQ(one.rank_cut, 0u);
  EXPECT_EQ(one.worker_cut, 256u);
  const std::vector<std::string> lines = partition_lines(p);
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[0], "2 ranks x 2 workers, 3072 router-to-router links (one direction each)");
  EXPECT_EQ(lines[1], "rank 0: 256 routers (workers: 128 128), 256 endpoints, 128 cut links out");
  EXPECT_NE(lines[3].find("cut between ranks: 256 links (8.3%), shortest wire 5 ns"),
            std::string::npos);
  EXPECT_NE(lines[3].find("at most 200 synchronisations per emulated microsecond"),
            std::string::npos);
}

// Every level of the rank-2 Clos is shared out: each rank holds a quarter
// of the rank-1 and of the rank-2 routers.
TEST(RankPartition, ClosLevelsShared) {
  const Spec s = spec_of("clos-fig6-1024.yaml");
  const Fabric f = fabric_of(s);
  const RankPartition p = partition_routers(s, f, 4);
  std::vector<std::vector<int>> per(4, std::vector<int>(4, 0));
  for (size_t r = 0; r < f.routers.size(); r++) per[p.rank[r]][f.routers[r].rank]++;
  for (int k = 1; k < 4; k++) EXPECT_EQ(per[k], per[0]);
  for (int k = 0; k < 4; k++) EXPECT_EQ(p.endpoints[k], 256u);
}

TEST(RankPartition, GivenPartition) {
  std::string list = "[";
  for (int r = 0; r < 64; r++) list += std::string(r ? "," : "") + (r % 2 ? "1" : "0");
  list += "]";
  const Spec s = spec_of("t3e-4x4x4.yaml", {"run.partition=" + list});
  const RankPartition p = partition_routers(s, fabric_of(s), 2);
  EXPECT_EQ(p.routers[0][0], 32u);
  EXPECT_EQ(p.rank[1], 1);
  // Alternate routers along x: every x link is cut (64 routers x 2 x-links).
  EXPECT_EQ(p.rank_cut, 128u);
  auto refused = [&](const std::vector<std::string>& sets, int ranks) -> std::string {
    try {
      const Spec t = spec_of("t3e-4x4x4.yaml", sets);
      partition_routers(t, fabric_of(t), ranks);
    } catch (const SpecError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(refused({"run.partition=[0,1]"}, 2).find("gives 2 ranks for the fabric's 64 routers"),
            std::string::npos);
  EXPECT_NE(refused({"run.partition=" + list}, 1).find("on rank 1, but the job has 1 rank"),
            std::string::npos);
  std::string zeros = "[";
  for (int r = 0; r < 64; r++) zeros += std::string(r ? "," : "") + "0";
  zeros += "]";
  EXPECT_NE(refused({"run.partition=" + zeros}, 2).find("gives rank 1 no router"),
            std::string::npos);
  EXPECT_NE(refused({"run.partition=[-1]"}, 2).find("run.partition"), std::string::npos);
}

TEST(RankIdentity, SameBuildAndSpec) {
  const Spec s = spec_of("t3e-4x4x4.yaml");
  const RankIdentity a = rank_identity(0, s);
  EXPECT_NE(a.binary, "unknown");  // Debian's linker gives every program a build id
  EXPECT_EQ(a.binary.size(), 40u);  // SHA-1, hex
  const RankIdentity b = RankIdentity::decode(rank_identity(1, s).encode());
  EXPECT_EQ(b.rank, 1);
  EXPECT_EQ(b.binary, a.binary);
  EXPECT_EQ(b.spec, a.spec);
  EXPECT_EQ(identity_mismatch({a, b}), "");
  // Another --set is another spec; the same one given twice is the same.
  EXPECT_NE(spec_fingerprint(spec_of("t3e-4x4x4.yaml", {"traffic.load=0.2"})), a.spec);
  EXPECT_EQ(spec_fingerprint(spec_of("t3e-4x4x4.yaml", {"traffic.load=0.2"})),
            spec_fingerprint(spec_of("t3e-4x4x4.yaml", {"traffic.load=0.2"})));
}

TEST(RankIdentity, MismatchNamesRanksAndWhatToDo) {
  RankIdentity a{0, "alpha", "aaaa", "1111"}, b{1, "beta", "bbbb", "1111"},
      c{2, "gamma", "aaaa", "2222"};
  const std::string why = identity_mismatch({a, b, c});
  EXPECT_NE(why.find("different fabemu builds: rank 0 (alpha) runs build aaaa, rank 1 (beta) "
                     "runs build bbbb; install the same build"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("different specs: rank 0 (alpha) resolved spec 1111, rank 2 (gamma) "
                     "resolved spec 2222; give every rank the same --set options"),
            std::string::npos)
      << why;
  RankIdentity u{1, "beta", "unknown", "1111"};
  EXPECT_NE(identity_mismatch({a, u}).find("rank 1 (beta) runs a fabemu linked without a build id"),
            std::string::npos);
}

// Outside a launcher a process is one rank; Open MPI's and MPICH's
// variables name the job's size and this rank.
TEST(MpiRanks, LauncherEnvironment) {
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("PMI_SIZE");
  unsetenv("PMI_RANK");
  EXPECT_EQ(MpiRanks::launched_size(), 1);
  EXPECT_EQ(MpiRanks::launched_rank(), 0);
  setenv("PMI_SIZE", "4", 1);
  setenv("PMI_RANK", "3", 1);
  EXPECT_EQ(MpiRanks::launched_size(), 4);
  EXPECT_EQ(MpiRanks::launched_rank(), 3);
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  EXPECT_EQ(MpiRanks::launched_size(), 2);
  EXPECT_EQ(MpiRanks::launched_rank(), 1);
  setenv("OMPI_COMM_WORLD_SIZE", "x2", 1);  // not a number: the next launcher's
  EXPECT_EQ(MpiRanks::launched_size(), 4);
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("PMI_SIZE");
  unsetenv("PMI_RANK");
  // A process no launcher started joins nothing, MPI or not.
  MpiRanks job;
  std::string why;
  EXPECT_TRUE(job.join(&why)) << why;
  EXPECT_FALSE(job.joined());
  EXPECT_EQ(job.size(), 1);
  EXPECT_EQ(job.broadcast("spec"), "spec");
  EXPECT_EQ(job.all_gather("x"), std::vector<std::string>{"x"});
  EXPECT_TRUE(job.all_ok(true));
  EXPECT_FALSE(job.all_ok(false));
}

}  // namespace
}  // namespace fabemu
