// The control socket (control/run/control_socket.h) and faults given through
// it while a run goes on (control/run/fault_control.h): the same losses,
// counted the same way, as the spec's faults, with the tables reprogrammed
// around the fault and every worker taking both at one window edge.
#include "control/run/control_socket.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
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

// Serves `path` with a handler that answers "ok REQUEST".
void start_echo(ControlServer& server, const std::string& path) {
  std::string err;
  ASSERT_TRUE(server.start(
      path, [](const std::string& r) { return "ok " + r; }, &err))
      << err;
}

TEST(ControlSocket, AnswersEachLineOfEachClientInOrder) {
  const std::string path = socket_path("echo");
  ControlServer server;
  ASSERT_NO_FATAL_FAILURE(start_echo(server, path));
  std::string err;
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

// A client of the test's own: connected, with a receive timeout so that a
// server that never answers fails the test instead of hanging it.
int connect_to(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof(a.sun_path), "%s", path.c_str());
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ADD_FAILURE() << "cannot connect to " << path << ": " << std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return -1;
  }
  const timeval wait{30, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof(wait));
  return fd;
}

// Sends one request and reads its reply line ("" when none came).
std::string ask(int fd, const std::string& request) {
  const std::string line = request + "\n";
  if (::send(fd, line.data(), line.size(), MSG_NOSIGNAL) != ssize_t(line.size())) return "";
  std::string reply;
  char ch;
  while (::recv(fd, &ch, 1, 0) == 1 && ch != '\n') reply += ch;
  return reply;
}

// What remains to read on fd; *closed: whether the server closed it (rather
// than the read timing out).
std::string read_to_end(int fd, bool* closed = nullptr) {
  std::string all;
  char chunk[4096];
  ssize_t n;
  while ((n = ::recv(fd, chunk, sizeof(chunk), 0)) > 0) all.append(chunk, size_t(n));
  if (closed) *closed = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
  return all;
}

size_t open_fds() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) n++;
  return n;
}

// A client that sends status 100,000 times and never reads its replies
// used to block the server in send(): no other client was answered, and
// stop() (the end of every run) waited for ever. Now it is closed once its
// unread replies pass their bound, and the others are served meanwhile.
TEST(ControlSocket, AClientThatNeverReadsHoldsUpNobody) {
  const std::string path = socket_path("flood");
  ControlServer server;
  std::string err;
  ASSERT_TRUE(server.start(
      path, [](const std::string& r) { return "ok " + r + std::string(100, '.'); }, &err))
      << err;
  const int flood = connect_to(path);
  ASSERT_GE(flood, 0);
  std::string lines;
  for (int i = 0; i < 100000; i++) lines += "status\n";
  // Its sends end when the server closes it (EPIPE), or when both its
  // socket buffers are full (the timeout: the server stopped reading it).
  size_t sent = 0;
  while (sent < lines.size()) {
    const ssize_t n = ::send(flood, lines.data() + sent, lines.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += size_t(n);
  }
  const int other = connect_to(path);
  ASSERT_GE(other, 0);
  EXPECT_EQ(ask(other, "status"), "ok status" + std::string(100, '.'))
      << "another client is answered";
  // stop() returns at once (it joins the serving thread).
  auto stopped = std::async(std::launch::async, [&] { server.stop(); });
  if (stopped.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ::close(flood);  // unblocks the old server's send(), so that the test ends
    stopped.wait();
    FAIL() << "stop() waited on a client that does not read";
  }
  // The flooder had been closed, far short of its replies.
  bool closed = false;
  const std::string got = read_to_end(flood, &closed);
  EXPECT_TRUE(closed);
  EXPECT_LT(got.size(), sent / 7 * 110 / 2) << "the server kept answering a client that does not read";
  ::close(flood);
  ::close(other);
}

// Idle connections are bounded: past 64 the one idle longest is closed
// with a line saying why, and a new client is still answered (they used to
// take every file descriptor the process had).
TEST(ControlSocket, IdleConnectionsAreBoundedAndTheNewestServed) {
  const std::string path = socket_path("idle");
  ControlServer server;
  ASSERT_NO_FATAL_FAILURE(start_echo(server, path));
  std::string err;
  const size_t before = open_fds();
  std::vector<int> idle;
  for (int i = 0; i < 200; i++) {
    idle.push_back(connect_to(path));
    ASSERT_GE(idle.back(), 0);
  }
  // The newest is answered (so every earlier one was accepted by then).
  EXPECT_EQ(ask(idle.back(), "status"), "ok status");
  EXPECT_LE(open_fds(), before + 200 + 64) << "the server holds more than 64 connections";
  // The first ones were closed, each told why.
  const std::string first = read_to_end(idle.front());
  EXPECT_NE(first.find("serves at most 64 connections"), std::string::npos) << first;
  std::vector<std::string> replies;
  ASSERT_TRUE(control_request(path, {"help"}, &replies, &err)) << err;
  EXPECT_EQ(replies, (std::vector<std::string>{"ok help"}));
  for (int fd : idle) ::close(fd);
  server.stop();
}

// A client that sends its requests and then EOF (echo ... | socat) still
// gets every reply, and a line of many requests at once is answered in order.
TEST(ControlSocket, AnswersEveryRequestOfAClientThatHasFinishedSending) {
  const std::string path = socket_path("eof");
  ControlServer server;
  ASSERT_NO_FATAL_FAILURE(start_echo(server, path));
  const int fd = connect_to(path);
  ASSERT_GE(fd, 0);
  std::string lines, want;
  for (int i = 0; i < 2000; i++) {
    lines += "r" + std::to_string(i) + "\n";
    want += "ok r" + std::to_string(i) + "\n";
  }
  lines += "last, without its newline";  // as `printf status | nc -U` sends
  want += "ok last, without its newline\n";
  ASSERT_EQ(::send(fd, lines.data(), lines.size(), MSG_NOSIGNAL), ssize_t(lines.size()));
  ::shutdown(fd, SHUT_WR);
  EXPECT_EQ(read_to_end(fd), want);
  ::close(fd);
  server.stop();
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
  // In virtual time the socket's faults came at emulated times the wall
  // clock chose: the report says the run cannot be repeated and gives them
  // as spec faults at those times, which repeat it.
  EXPECT_FALSE(r.json["run"]["repeatable"].get<bool>());
  const nlohmann::json& repeat = r.json["run"]["faults_to_repeat"];
  ASSERT_EQ(repeat.size(), 2u) << repeat.dump();
  EXPECT_EQ(repeat[0].get<std::string>(), fmt::format("{}ns link=r0:p33 down", down_ns));
  EXPECT_EQ(repeat[1].get<std::string>(), fmt::format("{}ns link=r0:p33 up", up_ns));
  const RunResult again = run_collect(
      spec_of("yarc-r2-1024.yaml", {"topology.endpoints=128", "run.workers=2", "run.warmup_ns=2000",
                                    "run.measure_ns=60000", "run.check_invariants=true",
                                    "link.retry=true", "faults=" + repeat.dump()}),
      nullptr);
  EXPECT_TRUE(again.json["run"]["repeatable"].get<bool>());
  EXPECT_EQ(again.stats.delivered_packets, r.stats.delivered_packets);
  EXPECT_EQ(again.json["dropped_packets"], r.json["dropped_packets"]);
  EXPECT_EQ(again.json["latency_ns"], r.json["latency_ns"]);
}

// Spider's tables reprogrammed over the socket (control/topology/
// spider_faults.cpp): a local link of the 64-endpoint fat hypercube dies
// and comes back while two workers run with link-level retry; every pair
// keeps a path (any one dead link leaves one), every message arrives once
// or is counted, credits stay conserved.
TEST(ControlSocket, SpiderTablesAreReprogrammedAroundALinkGivenWhileRunning) {
  const std::string path = socket_path("spider");
  std::vector<std::string> replies;
  std::thread client([&] {
    replies = give_faults_at(path, {{5, "link=r0:p1 down"}, {25, "link=r0:p1 up"}});
  });
  std::vector<Delivery> got;
  const RunResult r = run_collect(
      spec_of("spider-fhc-64.yaml",
              {"run.workers=2", "run.warmup_ns=2000", "run.measure_ns=40000",
               "run.check_invariants=true", "traffic.load=0.5", "run.control_socket=" + path}),
      &got);
  client.join();
  expect_once_or_counted(r, got);
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0].rfind("ok 'link=r0:p1 down'", 0), 0u) << replies[0];
  EXPECT_NE(replies[0].find("routing tables reprogrammed; 1 dead link"), std::string::npos)
      << replies[0];
  EXPECT_EQ(replies[1].rfind("ok 'link=r0:p1 up'", 0), 0u) << replies[1];
  // Every source keeps a route; a message in flight when the tables
  // changed may find no cycle-free way on from where old routes brought it
  // (control/topology/spider_faults.cpp, borrow_exit): discarded, counted.
  EXPECT_LE(drops(r.stats, DropReason::no_route), 5u);
  EXPECT_EQ(r.stats.invariant_failure, "");
  const LinkStats& l = link_from(r.stats, 0, 1);
  EXPECT_EQ(l.went_down, 1u);
  EXPECT_FALSE(l.down_at_end);
  EXPECT_GT(l.packets, 0u);
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
