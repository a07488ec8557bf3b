// Where a command's results go (control/run/output_file.h): a path that
// cannot be written is found before the work, naming the path and the
// system's reason; a write that fails (a full disk) is reported, never
// taken for success; and a file is replaced whole, never left part-written.
#include "control/run/output_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fabemu {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path dir = fs::temp_directory_path() / ("fabemu_output_test_" + std::to_string(getpid()));
  TempDir() { fs::create_directories(dir); }
  ~TempDir() { fs::remove_all(dir); }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
  size_t files() const {
    return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
  }
};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(OutputFile, PathsThatCannotBeWrittenAreFoundFirst) {
  const TempDir t;
  EXPECT_EQ(output_path_problem("-"), "");
  EXPECT_EQ(output_path_problem(t / "new.json"), "");
  EXPECT_EQ(t.files(), 0u) << "the trial file is removed";
  const std::string missing = output_path_problem("/nonexistent/x.json");
  EXPECT_NE(missing.find("/nonexistent/x.json: the directory /nonexistent does not exist (No such "
                         "file or directory)"),
            std::string::npos)
      << missing;
  const std::string dir = output_path_problem(t.dir.string());
  EXPECT_NE(dir.find("is a directory"), std::string::npos) << dir;
  std::ofstream(t / "plain") << "x";
  const std::string under_file = output_path_problem(t / "plain/x.json");
  EXPECT_NE(under_file.find("is not a directory"), std::string::npos) << under_file;
  EXPECT_EQ(output_path_problem("/dev/full"), "") << "a device takes writes (and fails them)";
  // The trial file finds what permissions do not say (to root, too).
  const std::string proc = output_path_problem("/proc/self/new.json");
  EXPECT_NE(proc.find("/proc/self/new.json: cannot create a file in /proc/self ("), std::string::npos)
      << proc;
}

TEST(OutputFile, AFullDiskIsAnErrorNotSuccess) {
  std::string err;
  EXPECT_FALSE(write_output("/dev/full", "{}\n", &err));
  EXPECT_EQ(err, "/dev/full: No space left on device");
  const TempDir t;
  EXPECT_FALSE(write_output(t.dir.string(), "{}\n", &err));
  EXPECT_NE(err.find("Is a directory"), std::string::npos) << err;
  EXPECT_FALSE(write_output("/nonexistent/x.json", "{}\n", &err));
  EXPECT_EQ(err, "/nonexistent/x.json: No such file or directory");
}

TEST(OutputFile, AFileIsReplacedWholeKeepingItsModeAndLinks) {
  const TempDir t;
  std::string err;
  const std::string path = t / "r.json";
  ASSERT_TRUE(write_output(path, "first\n", &err)) << err;
  EXPECT_EQ(read(path), "first\n");
  ::chmod(path.c_str(), 0640);
  ASSERT_TRUE(write_output(path, "second\n", &err)) << err;
  EXPECT_EQ(read(path), "second\n");
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  // Through a link: the file it names is replaced, the link stays.
  fs::create_symlink(path, t / "link.json");
  ASSERT_TRUE(write_output(t / "link.json", "third\n", &err)) << err;
  EXPECT_TRUE(fs::is_symlink(t / "link.json"));
  EXPECT_EQ(read(path), "third\n");
  EXPECT_EQ(t.files(), 2u) << "no temporary file is left";
}

}  // namespace
}  // namespace fabemu
