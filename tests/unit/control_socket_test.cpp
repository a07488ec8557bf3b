// The control socket (control/run/control_socket.h) and faults given through
// it while a run goes on (control/run/fault_control.h): the same losses,
// counted the same way, as the spec's faults, with the tables reprogrammed
// around the fault and every worker taking both at one window edge.
#include "control/run/control_socket.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/fault_checks.h"
#include "tests/support/run_collect.h"

namespace fabemu {
namespace {

std::string socket_path(const char* name) {
  return "/tmp/fabemu-test-" + std::to_string(getpid()) + "-" + name + ".sock";
}

TEST(ControlSocket, AnswersEachLineOfEachClientInOrder) {
  const std::string path = socket_path("echo");
  ControlServer server;
  std::string err;
  ASSERT_TRUE(server.start(
      path, [](const std::string& r) { return "ok " + r; }, &err))
      << err;
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "faults are for this user only";
  std::vector<std::string> a, b;
  ASSERT_TRUE(control_request(path, {"one", "two", "three"}, &a, &err)) << err;
  ASSERT_TRUE(control_request(path, {"four"}, &b, &err)) << err;
  EXPECT_EQ(a, (std::vector<std::string>{"ok one", "ok two", "ok three"}));
  EXPECT_EQ(b, (std::vector<std::string>{"ok four"}));
  // A second server on a live socket is refused; the first keeps serving.
  ControlServer second;
  EXPECT_FALSE(second.start(
      path, [](const std::string&) { return ""; }, &err));
  EXPECT_NE(err.find("another process is serving"), std::string::npos) << err;
  ASSERT_TRUE(control_request(path, {"five"}, &b, &err)) << err;
  server.stop();
  EXPECT_NE(::stat(path.c_str(), &st), 0) << "the socket file is removed at the end";
  EXPECT_FALSE(control_request(path, {"six"}, &b, &err));
  EXPECT_NE(err.find("cannot reach the control socket"), std::string::npos) << err;
}

TEST(ControlSocket, ReplacesAStaleSocketAndRefusesOtherFiles) {
  const std::string path = socket_path("stale");
  {  // a socket file nobody listens on, as a run that was killed leaves it
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof(a.sun_path), "%s", path.c_str());
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    ::close(fd);
  }
  ControlServer server;
  std::string err;
  EXPECT_TRUE(server.start(
      path, [](const std::string& r) { return r; }, &err))
      << err;
  server.stop();
  const std::string file = socket_path("plain");
  std::ofstream(file) << "not a socket";
  EXPECT_FALSE(server.start(
      file, [](const std::string& r) { return r; }, &err));
  EXPECT_NE(err.find("is not a socket"), std::string::npos) << err;
  ::unlink(file.c_str());
  EXPECT_FALSE(server.start(
      std::string(200, 'x'), [](const std::string& r) { return r; }, &err));
  EXPECT_NE(err.find("bytes long"), std::string::npos) << err;
}

TEST(ControlSocket, RefusesAndClosesAClientThatSendsAnEndlessLine) {
  const std::string path = socket_path("long");
  ControlServer server;
  std::string err;
  ASSERT_TRUE(server.start(
      path, [](const std::string& r) { return "ok"; }, &err))
      << err;
  std::vector<std::string> replies;
  ASSERT_TRUE(control_request(path, {std::string(10000, 'a')}, &replies, &err)) << err;
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].rfind("error: request longer than 4096 bytes", 0), 0u) << replies[0];
  replies.clear();
  ASSERT_TRUE(control_request(path, {"next"}, &replies, &err)) << err;
  EXPECT_EQ(replies, (std::vector<std::string>{"ok"}));
}

// The emulated time a run's status reply gives ("ok emulated 12.345 us; ...").
double emulated_us(const std::string& status) {
  const size_t at = status.find("emulated ");
  return at == std::string::npos ? -1 : std::stod(status.substr(at + 9));
}

// Sends each fault once the run's emulated time passes its mark, as a
// person or a script would; returns the replies. Gives up when the socket
// goes away (the run ended).
std::vector<std::string> give_faults_at(const std::string& path,
                                        std::vector<std::pair<double, std::string>> faults) {
  std::vector<std::string> replies;
  std::string err;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (!faults.empty() && std::chrono::steady_clock::now() < give_up) {
    std::vector<std::string> status;
    if (!control_request(path, {"status"}, &status, &err)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // not listening yet
      continue;
    }
    if (emulated_us(status[0]) >= faults.front().first) {
      if (!control_request(path, {faults.front().second}, &replies, &err)) break;
      faults.erase(faults.begin());
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return replies;
}

// A rank-2 Clos uplink killed and brought back over the socket while two
// workers run: the rest flows, the loss is counted, credits stay conserved
// at every window edge, and the JSON lists both faults with their times.
TEST(ControlSocket, FaultsGivenWhileRunningAreTakenLikeTheSpecs) {
  const std::string path = socket_path("clos");
  std::vector<std::string> replies;
  std::thread client([&] {
    replies = give_faults_at(path, {{10, "link=r0:p33 down"},
                                    {30, "fault link=r0:p33 up"},
                                    {40, "link=r0:p33 up"},
                                    {45, "router=99 down"}});
  });
  std::vector<Delivery> got;
  const RunResult r = run_collect(
      spec_of("yarc-r2-1024.yaml", {"topology.endpoints=128", "run.workers=2", "run.warmup_ns=2000",
                                    "run.measure_ns=60000", "run.check_invariants=true",
                                    "link.retry=true", "run.control_socket=" + path}),
      &got);
  client.join();
  expect_once_or_counted(r, got);
  ASSERT_EQ(replies.size(), 4u);
  EXPECT_EQ(replies[0].rfind("ok 'link=r0:p33 down'", 0), 0u) << replies[0];
  EXPECT_NE(replies[0].find("routing tables reprogrammed; 1 dead link"), std::string::npos);
  EXPECT_EQ(replies[1].rfind("ok 'link=r0:p33 up'", 0), 0u) << replies[1];
  EXPECT_NE(replies[2].find("0 port changes"), std::string::npos) << "already up: " << replies[2];
  EXPECT_EQ(replies[3].rfind("error: 'router=99 down': router 99 does not exist", 0), 0u)
      << replies[3];
  EXPECT_EQ(drops(r.stats, DropReason::no_route), 0u) << "every destination stays reachable";
  const nlohmann::json& log = r.json["faults"];
  ASSERT_EQ(log.size(), 3u) << log.dump();
  EXPECT_EQ(log[0]["fault"], "link=r0:p33 down");
  EXPECT_EQ(log[0]["source"], "control socket");
  EXPECT_TRUE(log[0]["applied"].get<bool>());
  const double down_ns = log[0]["at_ns"].get<double>(), up_ns = log[1]["at_ns"].get<double>();
  EXPECT_GE(down_ns, 10000.0);
  EXPECT_GE(up_ns, 30000.0);
  const FabricPort& far = r.fabric.routers[0].ports[33];
  for (const auto& [router, port] :
       {std::pair{0, 33}, std::pair{far.peer_router, int(far.peer_port)}}) {
    const LinkStats& l = link_from(r.stats, router, int16_t(port));
    EXPECT_EQ(l.went_down, 1u);
    EXPECT_FALSE(l.down_at_end);
    // Both ends went down and up at the same window edges.
    EXPECT_NEAR(double(l.down_ps) / 1e3, up_ns - down_ns, 1e-3) << router;
  }
  EXPECT_NEAR(r.json["accepted_load"].get<double>(), r.json["offered_load"].get<double>(), 0.02);
}

// A socket run refuses the spec's own faults (their tables would undo the
// socket's), with a message that says so.
TEST(ControlSocket, ASpecWithFaultsCannotTakeASocketToo) {
  try {
    spec_of("yarc-r2-1024.yaml",
            {"run.control_socket=/tmp/x.sock", "faults=[\"5us router=3 down\"]"});
    FAIL() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be combined"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fabemu
