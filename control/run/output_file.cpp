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
#include "control/spec/spec_error.h"

namespace fabemu {
namespace {

// Where write_output("-") writes: the process's standard output, kept aside
// once divert_stdout_for_data pointed descriptor 1 at standard error.
int g_data_fd = STDOUT_FILENO;
bool g_stdout_taken = false;  // handed to a stream's writer (take_stdout_for_data)

std::string os_error(const std::string& path, int errnum) {
  return printable(path, 300) + ": " + std::strerror(errnum);
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

// The temporary file beside target that write_output renames over it.
std::string partial_name(const std::string& target) {
  const size_t slash = target.rfind('/');
  const size_t base = slash == std::string::npos ? 0 : slash + 1;
  return target.substr(0, base) + "." + target.substr(base) + ".partial-" +
         std::to_string(::getpid());
}

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::string output_path_problem(const std::string& path) {
  if (path == "-") return "";
  if (path.empty()) return "an empty file name: give one";
  const std::string shown = printable(path, 300);
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return shown + ": is a directory: give a file name";
    if (S_ISSOCK(st.st_mode)) return shown + ": is a socket: give a file name";
    const int fd = S_ISREG(st.st_mode) ? ::open(path.c_str(), O_WRONLY | O_CLOEXEC) : -1;
    if (S_ISREG(st.st_mode) ? fd < 0 : ::access(path.c_str(), W_OK) != 0)
      return shown + ": cannot write it (" + std::strerror(errno) + "): choose a file you may write";
    if (fd >= 0) ::close(fd);
    return "";
  }
  const std::string dir = folder_of(path);
  struct stat ds;
  if (::stat(dir.c_str(), &ds) != 0)
    return shown + ": the directory " + printable(dir, 300) + " does not exist (" + std::strerror(errno) +
           "): create it first";
  if (!S_ISDIR(ds.st_mode)) return shown + ": " + printable(dir, 300) + " is not a directory";
  const std::string probe = partial_name(path);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return shown + ": cannot create a file in " + printable(dir, 300) + " (" + std::strerror(errno) +
           "): choose a directory you may write";
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

bool write_output(const std::string& path, const std::string& text, std::string* err) {
  if (path == "-") {
    std::fflush(stdout);  // what was printed before goes first
    if (!write_fd(g_data_fd, text)) return *err = os_error("standard output", errno), false;
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
  const std::string temp = partial_name(target);
  const mode_t mode = exists ? st.st_mode & 07777 : 0666;
  const int leftover = leave_behind(temp);
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0 && errno == EEXIST && ::unlink(temp.c_str()) == 0)  // a killed run's, same pid
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
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

bool divert_stdout_for_data(std::string* err) {
  if (g_data_fd != STDOUT_FILENO) return true;
  std::fflush(stdout);
  const int kept = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (kept < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    *err = os_error("standard output", errno);
    if (kept >= 0) ::close(kept);
    return false;
  }
  g_data_fd = kept;
  return true;
}

int take_stdout_for_data(std::string* err) {
  if (!divert_stdout_for_data(err)) return -1;
  if (g_stdout_taken) {
    *err = "standard output already carries another stream: give the other output a file name";
    return -1;
  }
  g_stdout_taken = true;
  return g_data_fd;
}

}  // namespace fabemu
