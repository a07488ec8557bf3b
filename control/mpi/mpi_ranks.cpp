// The MPI job (mpi_ranks.h). Without FABEMU_HAVE_MPI (CMake found no MPI)
// every collective is the one-rank case and join() refuses a job of several.
#include "control/mpi/mpi_ranks.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "dataplane/core/eal.h"

#ifdef FABEMU_HAVE_MPI
#include <mpi.h>
#endif

namespace fabemu {

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end && *end == '\0' && n >= 0 && n < (1 << 24) ? static_cast<int>(n) : fallback;
}

}  // namespace

int MpiRanks::launched_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const int n = env_int(name, -1); n > 0) return n;
  return 1;
}

int MpiRanks::launched_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"})
    if (const int n = env_int(name, -1); n >= 0) return n;
  return 0;
}

#ifdef FABEMU_HAVE_MPI

bool MpiRanks::built_with_mpi() { return true; }

bool MpiRanks::join(std::string* err) {
  if (joined_ || launched_size() <= 1) return true;
  int provided = 0;
  // Only the control thread calls MPI (the workers hand it their messages).
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    *err = "MPI_Init failed: is this process started by mpirun from the same MPI as the build?";
    return false;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  joined_ = true;
  return true;
}

void MpiRanks::leave() {
  if (!joined_) return;
  joined_ = false;
  link_.reset();
  MPI_Finalize();
}

void MpiRanks::abort_all(int code) {
  eal_remove_runtime_dir_now();  // (MPI_Abort ends the process without its exit handlers)
  if (joined_) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

MpiRanks::~MpiRanks() { leave(); }

std::string MpiRanks::broadcast(const std::string& text) const {
  if (!joined_) return text;
  unsigned long long n = text.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  std::string out = rank_ == 0 ? text : std::string(n, '\0');
  // (A spec is at most 16 MiB: one count of int.)
  if (n) MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  return out;
}

std::vector<std::string> MpiRanks::all_gather(const std::string& text) const {
  if (!joined_) return {text};
  int n = static_cast<int>(text.size());
  std::vector<int> sizes(size_), offsets(size_);
  MPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < size_; r++) offsets[r] = total, total += sizes[r];
  std::string all(total, '\0');
  MPI_Allgatherv(text.data(), n, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR,
                 MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (int r = 0; r < size_; r++) out.push_back(all.substr(offsets[r], sizes[r]));
  return out;
}

bool MpiRanks::all_ok(bool ok) const {
  if (!joined_) return ok;
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all != 0;
}

namespace {

// What one rank sends every other at a window edge, and the results to
// rank 0 at the end (counts of int: a window's events are far below 2 GB).
class MpiRankLink final : public RankLink {
 public:
  MpiRankLink(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int ranks() const override { return size_; }

  bool exchange(const std::vector<std::string>& out, std::vector<std::string>* in,
                std::string* err) override {
    send_counts_.assign(size_, 0);
    send_offsets_.assign(size_, 0);
    int total = 0;
    for (int q = 0; q < size_; q++) {
      if (q == rank_ || out[q].size() > size_t(INT32_MAX - total)) continue;
      send_counts_[q] = static_cast<int>(out[q].size());
      send_offsets_[q] = total;
      total += send_counts_[q];
    }
    send_.resize(total);
    for (int q = 0; q < size_; q++)
      if (send_counts_[q]) std::memcpy(send_.data() + send_offsets_[q], out[q].data(), send_counts_[q]);
    recv_counts_.assign(size_, 0);
    if (MPI_Alltoall(send_counts_.data(), 1, MPI_INT, recv_counts_.data(), 1, MPI_INT,
                     MPI_COMM_WORLD) != MPI_SUCCESS) {
      *err = "MPI_Alltoall failed";
      return false;
    }
    recv_offsets_.assign(size_, 0);
    int rtotal = 0;
    for (int q = 0; q < size_; q++) recv_offsets_[q] = rtotal, rtotal += recv_counts_[q];
    recv_.resize(rtotal);
    if (MPI_Alltoallv(send_.data(), send_counts_.data(), send_offsets_.data(), MPI_CHAR,
                      recv_.data(), recv_counts_.data(), recv_offsets_.data(), MPI_CHAR,
                      MPI_COMM_WORLD) != MPI_SUCCESS) {
      *err = "MPI_Alltoallv failed";
      return false;
    }
    in->resize(size_);
    for (int q = 0; q < size_; q++) (*in)[q].assign(recv_.data() + recv_offsets_[q], recv_counts_[q]);
    return true;
  }

  bool gather(const std::string& mine, std::vector<std::string>* all, std::string* err) override {
    int n = static_cast<int>(mine.size());
    std::vector<int> sizes(size_), offsets(size_);
    if (MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
      *err = "MPI_Gather failed";
      return false;
    }
    int total = 0;
    for (int q = 0; q < size_; q++) offsets[q] = total, total += sizes[q];
    std::string buf(rank_ == 0 ? total : 0, '\0');
    if (MPI_Gatherv(mine.data(), n, MPI_CHAR, buf.data(), sizes.data(), offsets.data(), MPI_CHAR,
                    0, MPI_COMM_WORLD) != MPI_SUCCESS) {
      *err = "MPI_Gatherv failed";
      return false;
    }
    all->clear();
    if (rank_ == 0)
      for (int q = 0; q < size_; q++) all->push_back(buf.substr(offsets[q], sizes[q]));
    return true;
  }

 private:
  int rank_, size_;
  std::vector<char> send_, recv_;
  std::vector<int> send_counts_, send_offsets_, recv_counts_, recv_offsets_;
};

}  // namespace

RankLink* MpiRanks::link() {
  if (!joined_) return nullptr;
  if (!link_) link_ = std::make_unique<MpiRankLink>(rank_, size_);
  return link_.get();
}

#else  // no MPI in this build

bool MpiRanks::built_with_mpi() { return false; }

bool MpiRanks::join(std::string* err) {
  const int n = launched_size();
  if (n <= 1) return true;
  *err = "started as one of " + std::to_string(n) +
         " MPI ranks, but this fabemu was built without MPI: install Open MPI "
         "(apt-get install openmpi-bin libopenmpi-dev; scripts/lib/setup.sh does) and "
         "rebuild, or run one process (mpirun -n 1, or no mpirun)";
  return false;
}
void MpiRanks::leave() {}
void MpiRanks::abort_all(int code) {
  eal_remove_runtime_dir_now();
  std::_Exit(code);
}
MpiRanks::~MpiRanks() = default;
std::string MpiRanks::broadcast(const std::string& text) const { return text; }
std::vector<std::string> MpiRanks::all_gather(const std::string& text) const { return {text}; }
bool MpiRanks::all_ok(bool ok) const { return ok; }
RankLink* MpiRanks::link() { return nullptr; }

#endif

MpiRanks& mpi_ranks() {
  static MpiRanks job;
  return job;
}

}  // namespace fabemu
