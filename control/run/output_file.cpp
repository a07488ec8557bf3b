#include "control/run/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "control/run/leftovers.h"

namespace fabemu {
namespace {

std::string os_error(const std::string& path, int errnum) {
  return path + ": " + std::strerror(errnum);
}

// Writes all of text to fd; false with errno set.
bool write_fd(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += size_t(n);
  }
  return true;
}

// Opens, writes and closes path in place (created with `mode` if new).
bool write_in_place(const std::string& path, const std::string& text, int flags, mode_t mode,
                    std::string* err) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | flags, mode);
  if (fd < 0) return *err = os_error(path, errno), false;
  const bool wrote = write_fd(fd, text);
  const int write_errno = errno;
  if (::close(fd) != 0 && wrote) return *err = os_error(path, errno), false;
  if (!wrote) return *err = os_error(path, write_errno), false;
  return true;
}

}  // namespace

bool write_output(const std::string& path, const std::string& text, std::string* err) {
  if (path == "-") {
    std::fflush(stdout);  // what was printed before goes first
    if (!write_fd(STDOUT_FILENO, text)) return *err = os_error("standard output", errno), false;
    return true;
  }
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) return *err = os_error(path, EISDIR), false;
  if (exists && !S_ISREG(st.st_mode)) return write_in_place(path, text, O_TRUNC, 0666, err);
  // Beside the file (a rename does not cross file systems), named for this
  // process; what a link named is what gets replaced.
  char resolved[PATH_MAX];
  const std::string target = exists && ::realpath(path.c_str(), resolved) ? resolved : path;
  const size_t slash = target.rfind('/');
  const std::string temp = (slash == std::string::npos ? "" : target.substr(0, slash + 1)) + "." +
                           target.substr(slash == std::string::npos ? 0 : slash + 1) + ".partial-" +
                           std::to_string(::getpid());
  const mode_t mode = exists ? st.st_mode & 07777 : 0666;
  const int leftover = leave_behind(temp);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    // A folder this process may not add to, with a file it may write:
    // write that file in place.
    forget_leftover(leftover);
    return write_in_place(target, text, O_CREAT | O_TRUNC, 0666, err);
  }
  if (exists) ::fchmod(fd, mode);  // as it was, whatever the umask
  bool ok = write_fd(fd, text);
  int errnum = errno;
  if (::close(fd) != 0 && ok) ok = false, errnum = errno;
  if (ok && ::rename(temp.c_str(), target.c_str()) != 0) ok = false, errnum = errno;
  if (!ok) ::unlink(temp.c_str());
  forget_leftover(leftover);
  if (!ok) *err = os_error(path, errnum);
  return ok;
}

}  // namespace fabemu
