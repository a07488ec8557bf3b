#include "control/run/control_socket.h"

#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "control/spec/spec_error.h"

namespace fabemu {
namespace {

constexpr size_t kMaxRequestBytes = 4096;  // a fault is a few dozen bytes

bool socket_address(const std::string& path, sockaddr_un* a, std::string* err) {
  std::memset(a, 0, sizeof(*a));
  a->sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(a->sun_path)) {
    *err = "control socket path '" + printable(path, 300) + "' must be 1 to " +
           std::to_string(sizeof(a->sun_path) - 1) + " bytes long (a Unix socket's limit)";
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
  }
  if (wake_fd_ >= 0) {
    ::close(wake_fd_);
    wake_fd_ = -1;
  }
}

void ControlServer::serve() {
  std::map<int, std::string> clients;  // fd -> bytes of a request not yet ended
  for (;;) {
    std::vector<pollfd> fds{{wake_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (const auto& c : clients) fds.push_back({c.first, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents) break;
    if (fds[1].revents & POLLIN) {
      const int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) clients[c];
    }
    for (size_t i = 2; i < fds.size(); i++) {
      if (!fds[i].revents) continue;
      const int fd = fds[i].fd;
      std::string& buf = clients[fd];
      char chunk[1024];
      const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      bool open = n > 0;
      if (open) buf.append(chunk, size_t(n));
      for (size_t nl; open && (nl = buf.find('\n')) != std::string::npos;) {
        const std::string request = trim(buf.substr(0, nl));
        buf.erase(0, nl + 1);
        if (request.empty() || request[0] == '#') continue;
        open = write_all(fd, handler_(request) + "\n");
      }
      if (open && buf.size() > kMaxRequestBytes) {
        write_all(fd, "error: request longer than " + std::to_string(kMaxRequestBytes) +
                          " bytes without a newline; closing\n");
        open = false;
      }
      if (!open) {
        ::close(fd);
        clients.erase(fd);
      }
    }
  }
  for (const auto& c : clients) ::close(c.first);
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
