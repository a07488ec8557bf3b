// `fabemu check` refuses what `fabemu run` would refuse, with the same one
// check each (control/cli/commands.cpp, runnable_fabric): capture taps that
// name nothing in the fabric (control/run/capture_plan.h) and a link-level
// retry time-out shorter than a link's round trip
// (dataplane/core/retry_timing.h). run refuses them before it starts, exit 2.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "control/cli/commands.h"
#include "control/run/runner.h"
#include "dataplane/core/retry_timing.h"

namespace fabemu {
namespace {

const std::string kTorus = std::string(FABEMU_SOURCE_DIR) + "/topologies/t3e-4x4x4.yaml";

struct Outcome {
  int rc;
  std::string err;
};

Outcome check(const std::vector<std::string>& sets) {
  std::ostringstream out, err;
  const int rc = check_command({kTorus, sets}, out, err);
  return {rc, err.str()};
}

// run_spec_command, refused before anything starts (no EAL, no run).
Outcome run_refused(const std::vector<std::string>& sets, const RunOptions& opts = {}) {
  std::ostringstream out, err;
  RunOptions o = opts;
  o.quiet = true;
  const int rc = run_spec_command({kTorus, sets}, o, out, err);
  return {rc, err.str()};
}

void expect_says(const Outcome& o, const std::string& text) {
  EXPECT_EQ(o.rc, 2) << o.err;
  EXPECT_NE(o.err.find(text), std::string::npos) << o.err;
}

TEST(CheckLikeRun, CaptureTapsThatNameNothing) {
  const std::string taps = "capture.taps=['endpoint=999','link=r999:p0','router=70','port=nosuch']";
  const std::string said = "--set '" + taps +
                           "': field 'capture.taps': capture tap 'endpoint=999': the fabric has "
                           "endpoints 0..63";
  expect_says(check({taps}), said);
  expect_says(run_refused({taps}), said);
  for (const auto& [tap, says] : std::vector<std::pair<std::string, std::string>>{
           {"link=r999:p0", "the fabric has routers 0..63"},
           {"router=70", "the fabric has routers 0..63"},
           {"link=r0:p9", "router 0 has no link at port 9"},
           {"link=r0.p0>r9.p9", "no link has that name"},
           {"port=nosuch", "the run has no ports (spec `ports:`)"}})
    expect_says(check({"capture.taps=['" + tap + "']"}),
                "field 'capture.taps': capture tap '" + tap + "': " + says);
  // The filters, which a run checks with the taps.
  expect_says(check({"capture.taps=[all]", "capture.vcs=[7]"}),
              "field 'capture.vcs': VC 7 does not exist (the fabric has VCs 0..4)");
  expect_says(check({"capture.taps=[all]", "capture.dst=[64]"}),
              "field 'capture.dst': endpoint 64 does not exist");
  // --capture adds taps to the spec's: refused alike, named as the option.
  RunOptions opts;
  opts.capture_taps = {"endpoint=64"};
  expect_says(run_refused({}, opts),
              "fabemu run: --capture: capture tap 'endpoint=64': the fabric has endpoints 0..63");
  // What names something passes.
  EXPECT_EQ(check({"capture.taps=['endpoint=63','link=r0:p0:out','router=63','all']"}).rc, 0);
}

TEST(CheckLikeRun, RetryTimeoutShorterThanTheRoundTrip) {
  const Outcome o = check({"link.retry=true", "link.retry_timeout_ns=5"});
  expect_says(o,
              "--set 'link.retry_timeout_ns=5': field 'link.retry_timeout_ns': "
              "link.retry_timeout_ns (5 ns) is shorter than the round trip of the link from "
              "router ");
  expect_says(o, "twice its wire plus its longest packet");
  expect_says(run_refused({"link.retry=true", "link.retry_timeout_ns=5"}), "(5 ns) is shorter");
  // At the longest round trip it passes; the default (0: per link) too.
  RetryTiming t = retry_timing(5000, 2000, 10, 0);
  EXPECT_EQ(t.round_trip, 30000u);
  EXPECT_EQ(t.timeout, 50000u);
  EXPECT_EQ(retry_timeout_problem(t, 0, 0), "");
  t = retry_timing(5000, 2000, 10, 29999);
  EXPECT_NE(retry_timeout_problem(t, 3, 4).find("(29.999 ns) is shorter than the round trip of "
                                                "the link from router 3 port 4 (30 ns"),
            std::string::npos);
  EXPECT_EQ(check({"link.retry=true"}).rc, 0);
  EXPECT_EQ(check({"link.retry=true", "link.retry_timeout_ns=1000"}).rc, 0);
}

TEST(CheckLikeRun, AControlSocketPathTooLongForUnix) {
  const std::string path = "run.control_socket=/tmp/" + std::string(120, 's') + ".sock";
  expect_says(check({path}), "field 'run.control_socket': control socket path '/tmp/sss");
  expect_says(check({path}), "must be 1 to 107 bytes long");
  EXPECT_EQ(check({"run.control_socket=/tmp/fabemu-check.sock"}).rc, 0);
}

TEST(CheckLikeRun, AReplayFileThatCannotBeRead) {
  const std::string ports = "ports=[{name: h0, replay: /nonexistent/h0.pcapng, endpoint: 0}]";
  expect_says(check({ports}), "field 'ports[0].replay': cannot read '/nonexistent/h0.pcapng'");
  expect_says(check({ports}), "No such file or directory");
  expect_says(run_refused({ports}), "cannot read '/nonexistent/h0.pcapng'");
}

}  // namespace
}  // namespace fabemu
