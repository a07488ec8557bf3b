#include "control/run/control_socket.h"

#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "control/run/leftovers.h"

#include "control/spec/spec_error.h"

namespace fabemu {
std::string control_socket_path_problem(const std::string& path) {
  constexpr size_t kMax = sizeof(sockaddr_un::sun_path) - 1;
  if (!path.empty() && path.size() <= kMax) return {};
  return "control socket path '" + printable(path, 300) + "' must be 1 to " +
         std::to_string(kMax) + " bytes long (a Unix socket's limit): choose a shorter path";
}

namespace {

constexpr size_t kMaxRequestBytes = 4096;  // a fault is a few dozen bytes
// Replies a client has not read, beyond what the kernel holds for it: a
// client that sends faster than it reads is closed past this.
constexpr size_t kMaxUnreadBytes = 64 * 1024;
// Bytes read from one client before the others get their turn.
constexpr size_t kReadPerTurnBytes = 64 * 1024;
constexpr size_t kMaxClients = 64;
constexpr int kAcceptRetryMs = 100;

bool socket_address(const std::string& path, sockaddr_un* a, std::string* err) {
  std::memset(a, 0, sizeof(*a));
  a->sun_family = AF_UNIX;
  if (std::string why = control_socket_path_problem(path); !why.empty()) {
    *err = std::move(why);
    return false;
  }
  std::memcpy(a->sun_path, path.data(), path.size());
  return true;
}

// Writes all of s; false when the peer went away.
bool write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::send(fd, s.data() + done, s.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  size_t b = 0;
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t')) b++;
  return s.substr(b);
}

}  // namespace

bool ControlServer::start(const std::string& path, Handler handler, std::string* err) {
  sockaddr_un a;
  if (!socket_address(path, &a, err)) return false;
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      *err = "control socket path '" + printable(path, 300) +
             "' exists and is not a socket; choose another path";
      return false;
    }
    // A socket file: live (another run listens) or left by a run that died.
    const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool live =
        probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    if (probe >= 0) ::close(probe);
    if (live) {
      *err = "another process is serving the control socket '" + path +
             "'; stop it or choose another path";
      return false;
    }
    ::unlink(path.c_str());
  }
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd_ < 0) {
    *err = std::string("cannot make a Unix socket: ") + std::strerror(errno);
    return false;
  }
  const mode_t old = ::umask(0177);  // 0600: faults are for this user only
  const int b = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  ::umask(old);
  if (b != 0 || ::listen(listen_fd_, 8) != 0) {
    *err = "cannot listen on control socket '" + path + "': " + std::strerror(errno);
    ::close(listen_fd_);
    listen_fd_ = -1;
    return false;
  }
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    *err = std::string("cannot make an eventfd: ") + std::strerror(errno);
    stop();
    return false;
  }
  path_ = path;
  leftover_ = leave_behind(path);  // a second signal removes it too
  handler_ = std::move(handler);
  thread_ = std::thread([this] { serve(); });
  return true;
}

void ControlServer::stop() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof(one));
    thread_.join();
  }
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    listen_fd_ = -1;
    if (!path_.empty()) ::unlink(path_.c_str());
    forget_leftover(std::exchange(leftover_, -1));
  }
  if (wake_fd_ >= 0) {
    ::close(wake_fd_);
    wake_fd_ = -1;
  }
}

namespace {

// One connection of the control socket: what it sent and was not answered
// yet, and the replies it has not read yet.
struct ControlClient {
  int fd = -1;
  std::string in, out;
  uint64_t active = 0;  // when it last did something (a count of poll rounds)
  bool ended = false;   // sent EOF or an endless line: close once answered
};

bool has_request(const ControlClient& c) { return c.in.find('\n') != std::string::npos; }

// Reads what the client sent, up to a turn's worth (the others come next).
void read_requests(ControlClient& c) {
  char chunk[4096];
  for (size_t got = 0; got < kReadPerTurnBytes;) {
    const ssize_t n = ::recv(c.fd, chunk, sizeof(chunk), MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {  // EOF, or an error: answer what came, then close
      // At EOF a last line without its newline is still a request
      // (`printf status | nc -U`).
      if (n == 0 && !c.in.empty() && c.in.back() != '\n') c.in += '\n';
      c.ended = true;
      return;
    }
    got += size_t(n);
    c.in.append(chunk, size_t(n));
  }
}

// Answers whole requests while the unread replies stay under their bound.
void answer(ControlClient& c, const ControlServer::Handler& handler) {
  size_t at = 0;  // erased once at the end: a turn may bring thousands of lines
  bool endless = false;
  for (size_t nl; c.out.size() <= kMaxUnreadBytes && (nl = c.in.find('\n', at)) != std::string::npos;
       at = nl + 1) {
    if (nl - at > kMaxRequestBytes) {
      endless = true;
      break;
    }
    const std::string request = trim(c.in.substr(at, nl - at));
    if (!request.empty() && request[0] != '#') c.out += handler(request) + "\n";
  }
  c.in.erase(0, at);
  if (endless || (!has_request(c) && c.in.size() > kMaxRequestBytes)) {
    c.out += "error: request longer than " + std::to_string(kMaxRequestBytes) +
             " bytes (a request is one line); closing\n";
    c.in.clear();
    c.ended = true;
  }
}

// Sends what the kernel takes now; false when the peer went away.
bool send_some(ControlClient& c) {
  while (!c.out.empty()) {
    const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
    c.out.erase(0, size_t(n));
  }
  return true;
}

// One poll round's work for a client; false when it is to be closed.
bool serve_client(ControlClient& c, short revents, const ControlServer::Handler& handler) {
  if ((revents & (POLLIN | POLLHUP | POLLERR)) && !c.ended) read_requests(c);
  // Every request read is answered now: a client that sends faster than it
  // reads fills the kernel's buffer and then this one past its bound, and is
  // closed rather than left holding requests no one will answer.
  do {
    answer(c, handler);
    if (!send_some(c) || c.out.size() > kMaxUnreadBytes) return false;
  } while (has_request(c));
  return !(c.ended && c.out.empty());
}

}  // namespace

void ControlServer::serve() {
  // Nothing here waits on a client: every socket is non-blocking, a
  // client's unread replies are bounded (one that does not read is closed)
  // and so is the number of clients (the one idle longest makes way), so
  // that every client is answered and stop() returns whatever clients do.
  std::vector<ControlClient> clients;
  uint64_t round = 0;
  bool accept_paused = false;
  const std::string too_many = "error: closing this connection, idle the longest: the control "
                               "socket serves at most " + std::to_string(kMaxClients) +
                               " connections at once\n";
  for (;;) {
    // Out of file descriptors, the pending connection stays queued and the
    // listening socket readable: leave it out for a while instead of spinning.
    const bool paused = std::exchange(accept_paused, false);
    std::vector<pollfd> fds{{wake_fd_, POLLIN, 0}, {paused ? -1 : listen_fd_, POLLIN, 0}};
    for (const ControlClient& c : clients)
      fds.push_back({c.fd,
                     short((c.ended ? 0 : POLLIN) | (c.out.empty() ? 0 : POLLOUT)),
                     0});
    if (::poll(fds.data(), fds.size(), paused ? kAcceptRetryMs : -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents) break;
    round++;
    for (size_t i = clients.size(); i-- > 0;) {  // backwards: erasing keeps fds[2 + i] in step
      if (!fds[2 + i].revents) continue;
      clients[i].active = round;
      if (!serve_client(clients[i], fds[2 + i].revents, handler_)) {
        ::close(clients[i].fd);
        clients.erase(clients.begin() + long(i));
      }
    }
    if (!(fds[1].revents & POLLIN)) continue;
    for (int fd; (fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0;) {
      if (clients.size() >= kMaxClients) {
        const auto idlest = std::min_element(
            clients.begin(), clients.end(),
            [](const ControlClient& a, const ControlClient& b) { return a.active < b.active; });
        // Best effort: it may not read this.
        [[maybe_unused]] ssize_t n =
            ::send(idlest->fd, too_many.data(), too_many.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        ::close(idlest->fd);
        clients.erase(idlest);
      }
      clients.push_back({fd, {}, {}, round, false});
    }
    accept_paused = errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM;
  }
  for (const ControlClient& c : clients) ::close(c.fd);
}

bool control_request(const std::string& path, const std::vector<std::string>& requests,
                     std::vector<std::string>* replies, std::string* err) {
  sockaddr_un a;
  if (!socket_address(path, &a, err)) return false;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    *err = "cannot reach the control socket '" + path + "': " + std::strerror(errno) +
           " (is `fabemu run --control " + path + "` running?)";
    if (fd >= 0) ::close(fd);
    return false;
  }
  std::string buf;
  bool ok = true;
  for (const std::string& r : requests) {
    if (!write_all(fd, r + "\n")) {
      ok = false;
      break;
    }
    // One reply line per request (the server skips nothing we send: no
    // blank or comment lines reach here).
    size_t nl;
    while ((nl = buf.find('\n')) == std::string::npos) {
      char chunk[1024];
      const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      buf.append(chunk, size_t(n));
    }
    if (nl == std::string::npos) {
      ok = false;
      break;
    }
    replies->push_back(buf.substr(0, nl));
    buf.erase(0, nl + 1);
  }
  ::close(fd);
  if (!ok) *err = "the control socket '" + path + "' closed before it answered (the run ended?)";
  return ok;
}

}  // namespace fabemu
