// What the machine must have for a run: the memory estimate
// (control/run/run_memory.h), whose parts follow the engine's sizing
// functions, and a CPU per worker. A run that does not fit is refused at
// check, with the estimate, at the field that makes it big.
#include "control/run/run_memory.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "control/cli/commands.h"
#include "dataplane/core/eal.h"
#include "dataplane/core/packet_meta.h"
#include "dataplane/endpoint/nic.h"
#include "dataplane/router/router_sizing.h"
#include "tests/unit/spec_test_util.h"

namespace fabemu {
namespace {

using namespace spec_test;

const MemoryPart& part(const MemoryEstimate& m, const std::string& name) {
  for (const auto& p : m.parts)
    if (p.name == name) return p;
  ADD_FAILURE() << "no part " << name;
  static MemoryPart none;
  return none;
}

TEST(RunMemory, PartsFollowTheEngineSizing) {
  const Spec s = load("run: {source_queue_packets: 1000}\n");  // t3e 4x4x4, 64 endpoints
  const Fabric f = build_fabric(s);
  const MemoryEstimate m = estimate_run_memory(s, f);
  // Two rings of 1024 slots (1000 rounded up) per endpoint; a slot's
  // packet metadata is touched when a packet is queued there.
  EXPECT_EQ(part(m, "source queues").start_bytes, 64u * 2 * 1024 * sizeof(void*));
  EXPECT_EQ(part(m, "source queues").max_bytes,
            64u * 2 * 1024 * (sizeof(void*) + sizeof(SourceQueue::Slot)));
  const MemoryPart& pools = part(m, "packet buffers");
  EXPECT_TRUE(pools.dpdk);
  EXPECT_LT(pools.start_bytes, pools.max_bytes);  // pools grow as the fabric fills
  const MemoryPart& fifos = part(m, "router input FIFOs");
  EXPECT_LT(fifos.start_bytes, fifos.max_bytes);  // entries behind the heads are touched late
  EXPECT_LE(m.start_bytes, m.max_bytes);
  for (size_t i = 1; i < m.parts.size(); ++i)
    EXPECT_GE(m.parts[i - 1].max_bytes, m.parts[i].max_bytes) << "biggest first";
  // The FIFO entries the engine gives each (port, VC): 12-flit buffers of
  // 1-flit packets, 13 rounded up.
  EXPECT_EQ(fifo_entries(22, 1), 32u);
  EXPECT_NE(memory_text(m).find("source queues"), std::string::npos);
}

TEST(RunMemory, RefusedWithTheEstimateAtTheField) {
  const Spec s = load("topology: {dims: [8, 8, 8]}\nrun:\n  source_queue_packets: 65536\n");
  const Fabric f = build_fabric(s);
  try {
    check_run_memory(s, f, {100'000'000, "a test budget"});
    FAIL() << "a 1 GB run fit in 100 MB";
  } catch (const SpecError& e) {
    expect_at(e, "run.source_queue_packets", 3, 25);
    expect_says(e, "this run needs up to");
    expect_says(e,
                "more than the 100 MB available (a test budget); its biggest parts: source "
                "queues 4.8 GB (512 endpoints x 2 queues x 65536 slots");
    // Queued synthetic packets have no buffer: the pools hold what the
    // network does, and the 4 packets each source queue builds ahead.
    expect_says(e, "packet buffers 170 MB");
  }
  // A big fabric from the file: blamed on its size.
  const Spec big = load("topology: {dims: [16, 16, 16]}\n");
  try {
    check_run_memory(big, build_fabric(big), {50'000'000, "a test budget"});
    FAIL() << "fit";
  } catch (const SpecError& e) {
    expect_at(e, "topology.dims", 1, 18);
  }
  EXPECT_NO_THROW(check_run_memory(s, f, {uint64_t{1} << 40, "a terabyte"}));
  EXPECT_NO_THROW(check_run_memory(s, f, {0, "unknown"}));  // nothing known: no refusal
}

TEST(RunMemory, CheckRefusesWhatTheMachineCannotHold) {
  // 512 endpoints x 2 x 2^24 slots x (8 + 64) B = 1237 GB of source queues:
  // it used to start and grow until the machine ran out.
  const std::string file = std::string(FABEMU_SOURCE_DIR) + "/topologies/t3e-8x8x8.yaml";
  std::ostringstream out, err;
  const int rc = check_command({file, {"run.source_queue_packets=16777216"}}, out, err);
  EXPECT_EQ(rc, 2) << out.str();
  EXPECT_NE(err.str().find("--set 'run.source_queue_packets=16777216': field "
                           "'run.source_queue_packets': this run needs up to 1237"),
            std::string::npos)
      << err.str();
  EXPECT_GT(available_memory().bytes, 0u);
  EXPECT_EQ(bytes_text(1'500'000'000), "1.5 GB");
  EXPECT_EQ(bytes_text(87'000'000), "87 MB");
}

// A replayed host's file is held in memory whole: a 618 MB replay in a
// 400 MB cgroup used to start and be killed without a word.
TEST(RunMemory, ReplayedFilesAreCounted) {
  const std::string big = "/tmp/fabemu_run_memory_test_" + std::to_string(getpid()) + ".pcap";
  { std::ofstream(big) << ""; }
  ASSERT_EQ(::truncate(big.c_str(), 618'000'000), 0);  // sparse: no disk taken
  const Spec s = load("traffic: {load: 0}\nports: [{name: h, replay: " + big + ", endpoint: 0}]\n");
  const Fabric f = build_fabric(s);
  const MemoryPart& replay = part(estimate_run_memory(s, f), "replay traces");
  EXPECT_EQ(replay.start_bytes, 618'000'000u);
  EXPECT_EQ(replay.max_bytes, 618'000'000u);
  try {
    check_run_memory(s, f, {400'000'000, "a 400 MB cgroup"});
    ADD_FAILURE() << "a 618 MB replay fit in 400 MB";
  } catch (const SpecError& e) {
    expect_at(e, "ports", 2, 8);
    expect_says(e, "replay traces 618 MB (1 replayed file held in memory whole");
    expect_says(e, "a part of a replayed file (editcap -c)");
    expect_says(e, "MB at start), more than the 400 MB available");
  }
  // Its start does not fit either: the flag does not let it through.
  EXPECT_THROW(check_run_memory(s, f, {400'000'000, "a 400 MB cgroup"}, true), SpecError);
  std::remove(big.c_str());
}

// --allow-memory-peak: a run whose start fits but whose maximum (every
// buffer full) does not runs when asked, saying so; one whose start does
// not fit is refused all the same.
TEST(RunMemory, APeakBeyondTheRoomRunsWhenAsked) {
  const Spec s = load("topology: {dims: [8, 8, 8]}\nrun:\n  source_queue_packets: 65536\n");
  const Fabric f = build_fabric(s);
  const MemoryEstimate m = estimate_run_memory(s, f);
  ASSERT_LT(m.start_bytes * 2, m.max_bytes);
  const MemoryBudget between{m.start_bytes * 2, "a test budget"};
  try {
    check_run_memory(s, f, between);
    ADD_FAILURE() << "the peak fit";
  } catch (const SpecError& e) {
    expect_says(e, "or, as its start fits, run it with --allow-memory-peak");
  }
  std::string warning;
  EXPECT_NO_THROW(warning = check_run_memory(s, f, between, true));
  EXPECT_NE(warning.find(fmt::format("it starts with {} and runs because of --allow-memory-peak",
                                     bytes_text(m.start_bytes))),
            std::string::npos)
      << warning;
  EXPECT_EQ(check_run_memory(s, f, {m.max_bytes, "room for all"}, true), "") << "nothing to say";
  const MemoryBudget below_start{m.start_bytes / 2, "a test budget"};
  try {
    check_run_memory(s, f, below_start, true);
    ADD_FAILURE() << "a run whose start does not fit was let through";
  } catch (const SpecError& e) {
    EXPECT_EQ(std::string(e.what()).find("--allow-memory-peak"), std::string::npos) << e.what();
  }
}

TEST(RunMachine, AWorkerForEachCpu) {
  // More workers than CPUs passed check and failed at run.
  const size_t cpus = allowed_cpus().size();
  const std::string file = std::string(FABEMU_SOURCE_DIR) + "/topologies/t3e-4x4x4.yaml";
  std::ostringstream out, err;
  const std::string set = "run.workers=" + std::to_string(cpus + 1);
  EXPECT_EQ(check_command({file, {set}}, out, err), 2);
  EXPECT_NE(err.str().find(fmt::format("field 'run.workers': {} workers need {} CPUs, but this "
                                       "process may use {}",
                                       cpus + 1, cpus + 1, cpus)),
            std::string::npos)
      << err.str();
  std::ostringstream out2, err2;
  EXPECT_EQ(check_command({file, {"run.workers=" + std::to_string(cpus)}}, out2, err2), 0)
      << err2.str();
}

}  // namespace
}  // namespace fabemu
