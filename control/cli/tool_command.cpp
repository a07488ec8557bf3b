#include "control/cli/tool_command.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "control/cli/cli.h"

namespace fabemu {

namespace {

bool readable_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && access(path.c_str(), R_OK) == 0;
}

bool executable_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string find_tool(const PythonTool& tool, std::vector<std::string>* tried) {
  std::vector<std::string> places;
  const std::filesystem::path source(tool.source);
  if (const char* env = std::getenv(tool.env); env && *env) {
    places.push_back(env);  // set but wrong is an error, not a reason to look elsewhere
  } else {
#ifdef FABEMU_SOURCE_DIR
    places.push_back(std::string(FABEMU_SOURCE_DIR) + "/" + tool.source);
#endif
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      const auto bin = exe.parent_path();
      for (const auto& rel : {source.filename(), "../share/fabemu" / source, ".." / source})
        places.push_back((bin / rel).lexically_normal().string());
    }
  }
  for (const auto& p : places) {
    if (tried) tried->push_back(p);
    if (readable_file(p)) return p;
  }
  return {};
}

std::string find_python3() {
  if (executable_file("/usr/bin/python3")) return "/usr/bin/python3";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    if (executable_file(dir + "/python3")) return dir + "/python3";
    start = end + 1;
  }
  return {};
}

int tool_command(const PythonTool& tool, const std::vector<std::string>& args, std::ostream& err) {
  const std::string prog = std::string("fabemu ") + tool.command;
  std::vector<std::string> tried;
  const std::string script = find_tool(tool, &tried);
  if (script.empty()) {
    err << prog << ": its script " << tool.source << " is not at any of:";
    for (const auto& p : tried) err << "\n  " << p;
    err << "\nset " << tool.env << " to its path\n";
    return kExitRunFailed;
  }
  const std::string python = find_python3();
  if (python.empty()) {
    err << prog
        << ": python3 not found (neither /usr/bin/python3 nor on PATH): install "
           "Debian's python3 and python3-matplotlib (scripts/lib/setup.sh lists them)\n";
    return kExitRunFailed;
  }
  std::vector<std::string> argv_s{python, script};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  setenv("FABEMU_TOOL_PROG", prog.c_str(), 1);  // the tool's usage lines name this command
  setenv("FABEMU_VERSION", version_line().c_str(), 1);  // its --version: this binary's line
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) setenv("FABEMU_BIN", exe.c_str(), 1);  // a tool that runs emulations runs this binary
  std::cout.flush();
  std::cerr.flush();
  execv(python.c_str(), argv.data());
  err << prog << ": cannot run " << python << " " << script << ": " << std::strerror(errno) << "\n";
  return kExitRunFailed;
}

}  // namespace fabemu
