// The MPI job fabemu runs in: `mpirun -n R build/fabemu run SPEC` starts R
// processes (ranks) that emulate one fabric together (shared/DESIGN.md
// section 5). This is the job's control side: whether this process is one
// of several ranks, which one, and the few collective steps the control
// plane needs before a run (rank 0's spec to every rank, every rank's
// identity to every rank). A build without MPI (no libopenmpi-dev when it
// was configured) still runs as one process and refuses a launch of
// several.
//
// MPI is joined only when the launcher started more than one rank, so that
// `fabemu` run by hand, or by mpirun -n 1, never starts MPI's runtime.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "dataplane/sim/rank_link.h"

namespace fabemu {

class MpiRanks {
 public:
  // The ranks this process's launcher started, from its environment (Open
  // MPI's OMPI_COMM_WORLD_SIZE/RANK, MPICH's PMI_SIZE/RANK): 1 and 0
  // outside a launcher.
  static int launched_size();
  static int launched_rank();
  // Whether this build can run as several ranks (CMake found MPI).
  static bool built_with_mpi();

  // Joins the job when the launcher started several ranks (MPI_Init; once).
  // False with *err when it did but this build has no MPI, or MPI failed.
  bool join(std::string* err);
  // Leaves it (MPI_Finalize) when joined; every rank must call it.
  void leave();
  // Ends every rank of the job at once (MPI_Abort), with `code`.
  [[noreturn]] void abort_all(int code);
  ~MpiRanks();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool joined() const { return joined_; }
  bool root() const { return rank_ == 0; }

  // Rank 0's text, on every rank (MPI_Bcast); `text` is read on rank 0 only.
  std::string broadcast(const std::string& text) const;
  // Every rank's text, in rank order, on every rank (MPI_Allgatherv).
  std::vector<std::string> all_gather(const std::string& text) const;
  // Whether every rank passed ok (MPI_Allreduce of a logical and).
  bool all_ok(bool ok) const;

  // A failure every rank of the job has reached together (each then leaves
  // the job as usual); any other failure of one rank aborts the whole job
  // (MPI_Abort), so that no rank waits for it.
  void agree_failure() { agreed_failure_ = true; }
  bool failure_agreed() const { return agreed_failure_; }

  // The kernel's link to the other ranks (sim/rank_link.h), over MPI.
  RankLink* link();

 private:
  int rank_ = 0, size_ = 1;
  bool joined_ = false;
  bool agreed_failure_ = false;
  std::unique_ptr<RankLink> link_;
};

// The process's job (one per process).
MpiRanks& mpi_ranks();

}  // namespace fabemu
