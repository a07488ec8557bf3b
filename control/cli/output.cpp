#include "control/cli/output.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <utility>

namespace fabemu {

std::string count_text(double n) {
  if (n >= 1e9) return fmt::format("{:.3g}G", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.3g}M", n / 1e6);
  if (n >= 1e4) return fmt::format("{:.3g}k", n / 1e3);
  return fmt::format("{}", static_cast<uint64_t>(n));
}

std::string duration_text(double s) {
  if (s < 90) return fmt::format("{:.0f} s", s);
  if (s < 5400) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

SweepProgressFn progress_line(std::ostream& err, std::string prefix, std::string noun) {
  const bool tty = &err == &std::cerr && isatty(STDERR_FILENO);
  return [&err, tty, prefix = std::move(prefix), noun = std::move(noun),
          printed = -1e9](const SweepProgress& p) mutable {
    if (!tty && !p.last && p.seconds - printed < 10) return;
    printed = p.seconds;
    const double frac = p.routes_total ? double(p.routes_done) / double(p.routes_total) : 1.0;
    std::string line = fmt::format(
        "{}: traced {} of {} {} ({:.0f}%), {}", prefix, count_text(double(p.routes_done)),
        count_text(double(p.routes_total)), noun, 100 * frac, duration_text(p.seconds));
    if (!p.last && frac > 0)
      line += fmt::format(", about {} left", duration_text(p.seconds * (1 - frac) / frac));
    err << (tty ? "\r\033[K" : "") << line << (tty && !p.last ? "" : "\n") << std::flush;
  };
}

std::string json_path_problem(const std::string& path) {
  if (path == "-") return "";
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path file(path);
  if (fs::is_directory(file, ec))
    return fmt::format("--json {} is a directory: give a file name", path);
  const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    return fmt::format("--json {}: the directory {} does not exist: create it first", path,
                       dir.string());
  const bool exists = fs::exists(file, ec);
  if (access(exists ? path.c_str() : dir.c_str(), W_OK) != 0)
    return fmt::format("--json {}: {} is not writable: choose a file you may write", path,
                       exists ? path : dir.string());
  return "";
}

bool write_json(const nlohmann::json& j, const std::string& path, std::ostream& out,
                std::ostream& err) {
  if (path == "-") {
    out << j.dump(2) << "\n";
    return true;
  }
  std::ofstream f(path);
  f << j.dump(2) << "\n";
  if (!f) {
    err << "fabemu: cannot write " << path << ": check the directory exists and is writable\n";
    return false;
  }
  return true;
}

}  // namespace fabemu
