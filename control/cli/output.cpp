#include "control/cli/output.h"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <utility>

#include "control/run/output_file.h"

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
  if (path.empty()) return "";  // no --json
  const std::string problem = output_path_problem(path);
  return problem.empty() ? "" : "--json " + problem;
}

std::ostream& text_stream(const std::string& json_out, std::ostream& out, std::ostream& err) {
  return json_out == "-" ? err : out;
}

bool write_json(const nlohmann::json& j, const std::string& path, std::ostream& out,
                std::ostream& err) {
  if (path == "-") {  // out: the stream the command prints on (a test's, too)
    out << j.dump(2) << "\n" << std::flush;
    if (out) return true;
    err << "fabemu: cannot write the JSON to standard output\n";
    return false;
  }
  std::string why;
  if (write_output(path, j.dump(2) + "\n", &why)) return true;
  err << "fabemu: cannot write the JSON: " << why << "\n";
  return false;
}

}  // namespace fabemu
