#include "control/cli/booksim_run.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "control/booksim/booksim_config.h"
#include "control/cli/cli.h"
#include "control/spec/spec_loader.h"

namespace fabemu {

Spec load_booksim_spec(const SpecArgs& args, BooksimSpec* booksim, std::ostream& err) {
  BooksimConfig config;
  config.read_file(args.booksim);
  for (const std::string& s : args.booksim_sets) config.apply_override(s);
  *booksim = booksim_to_spec(config);
  for (const std::string& note : booksim->notes) err << "fabemu: BookSim: note: " << note << "\n";
  return load_spec_text(booksim->yaml, args.sets, args.booksim);
}

int run_booksim(const Spec& spec, const RunOptions& opts, const BooksimSpec& booksim,
                std::ostream& out, std::ostream& err) {
  RunOptions o = opts;
  std::string temp;
  if (o.json_out.empty() || o.json_out == "-") {
    char path[] = "/tmp/fabemu-booksim-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) {
      err << "fabemu run: --booksim: cannot make a temporary file for the report: "
          << std::strerror(errno) << "\n";
      return kExitRunFailed;
    }
    close(fd);
    temp = path;
    o.json_out = temp;
  }
  const int status = run_command(spec, o);
  std::ifstream in(o.json_out);
  nlohmann::json report;
  if (in) report = nlohmann::json::parse(in, nullptr, false);
  if (!temp.empty()) {
    if (opts.json_out == "-" && !report.is_discarded()) out << report.dump(2) << "\n";
    std::remove(temp.c_str());
  }
  if (report.is_discarded() || !report.is_object()) {
    err << "fabemu run: --booksim: the run wrote no report to read BookSim's lines from\n";
    return status ? status : kExitRunFailed;
  }
  // With --json - standard output is the report's alone.
  (opts.json_out == "-" ? err : out) << booksim_results(report, booksim);
  return status;
}

}  // namespace fabemu
