// The control socket of a running emulation (`fabemu run --control PATH`,
// spec run.control_socket): a Unix stream socket on which `fabemu fault`, or
// any script (socat, nc -U, Python), sends one request per line and reads
// one reply line per request:
//
//   link=r0:p33 down          a fault, as in the spec without its time
//   fault link=r0:p33 down    the same
//   status                    emulated time, dead links and routers
//   help                      what the socket takes
//
// Replies start with "ok " or "error: ". The socket is served by one thread
// of its own (never a worker core); requests are handled in the order they
// arrive, from any number of clients.
#pragma once
#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace fabemu {

class ControlServer {
 public:
  // One request line (without its newline) in, one reply line out.
  using Handler = std::function<std::string(const std::string& request)>;

  ControlServer() = default;
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;
  ~ControlServer() { stop(); }

  // Listens at `path` (mode 0600). A stale socket file there (nobody
  // listening) is replaced; a live one or any other file is refused. False
  // with *err saying what is wrong and what to do.
  bool start(const std::string& path, Handler handler, std::string* err);
  // Stops serving, closes every connection and removes the socket file.
  void stop();
  const std::string& path() const { return path_; }

 private:
  void serve();

  std::string path_;
  Handler handler_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: stop() wakes the thread's poll
  int leftover_ = -1;  // the socket file among what a second signal removes
  std::thread thread_;
};

// Empty, or why `path` cannot name a control socket (its length).
std::string control_socket_path_problem(const std::string& path);

// The client side: sends each request line and returns the reply lines in
// order. False with *err when the socket cannot be reached or closes early.
bool control_request(const std::string& path, const std::vector<std::string>& requests,
                     std::vector<std::string>* replies, std::string* err);

}  // namespace fabemu
