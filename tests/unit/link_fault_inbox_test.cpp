// The faults given while a run goes on (dataplane/link/fault_inbox.h):
// appended in order, taken by index range, the times worker 0 applied them
// kept, and worker 0's snapshot only of complete changes.
#include "dataplane/link/fault_inbox.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <vector>

namespace fabemu {
namespace {

FabricFault port_down(int32_t router, int16_t port) {
  FabricFault f;
  f.router = router;
  f.port = port;
  return f;
}

TEST(FaultInbox, PostTakeAndAppliedAt) {
  FaultInbox inbox;
  EXPECT_EQ(inbox.count(), 0u);
  size_t first = 99;
  inbox.post({port_down(1, 2), port_down(3, 4)}, &first);
  EXPECT_EQ(first, 0u);
  inbox.post({port_down(5, 6)}, &first);
  EXPECT_EQ(first, 2u);
  ASSERT_EQ(inbox.count(), 3u);
  EXPECT_EQ(inbox.applied_at(), (std::vector<ps_t>{kNever, kNever, kNever}));

  // A worker other than 0 takes them and records nothing.
  std::vector<FabricFault> got = inbox.take(0, 2, false, 500);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].router, 1);
  EXPECT_EQ(got[1].port, 4);
  EXPECT_EQ(inbox.applied_at(), (std::vector<ps_t>{kNever, kNever, kNever}));
  // Worker 0 records when they took effect.
  got = inbox.take(1, 3, true, 700);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].router, 3);
  EXPECT_EQ(got[1].router, 5);
  EXPECT_EQ(inbox.applied_at(), (std::vector<ps_t>{kNever, 700, 700}));
  inbox.post({}, nullptr);
  EXPECT_EQ(inbox.count(), 3u);
}

TEST(FaultInbox, SnapshotOnlyOfCompleteChanges) {
  FaultInbox inbox;
  inbox.post({port_down(0, 0), port_down(0, 1)}, nullptr);
  std::atomic<uint32_t> epoch{2};
  uint32_t faults = 7;
  uint64_t tables = 8;
  const auto gen42 = [] { return uint64_t{42}; };
  inbox.snapshot(epoch, gen42, &faults, &tables);
  EXPECT_EQ(faults, 2u);
  EXPECT_EQ(tables, 42u);

  // A change half made (odd epoch): nothing read, what was there stays.
  epoch = 3;
  faults = 7;
  tables = 8;
  inbox.snapshot(epoch, gen42, &faults, &tables);
  EXPECT_EQ(faults, 7u);
  EXPECT_EQ(tables, 8u);

  // A change begun while reading (the epoch moved): likewise.
  epoch = 4;
  const auto changing = [&] {
    epoch.fetch_add(1);
    return uint64_t{44};
  };
  inbox.snapshot(epoch, changing, &faults, &tables);
  EXPECT_EQ(faults, 7u);
  EXPECT_EQ(tables, 8u);
}

}  // namespace
}  // namespace fabemu
