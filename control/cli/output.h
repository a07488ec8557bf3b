// What the subcommands print: counts and durations in prose, a progress
// line on stderr for long work, JSON to a file or stdout.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "control/analysis/route_sample.h"

namespace fabemu {

// 2147352576 -> "2.15G", 41000 -> "41k", 999 -> "999".
std::string count_text(double n);
// 42 -> "42 s", 600 -> "10 min", 7200 -> "2.0 h".
std::string duration_text(double seconds);

// A progress line on err for a long sweep, "PREFIX: traced 1.2M of 4M NOUN
// (30%), 12 s, about 28 s left": rewritten in place on a terminal, a line
// every 10 s elsewhere (logs).
SweepProgressFn progress_line(std::ostream& err, std::string prefix, std::string noun);

// Before a long analysis: "" when `path` ("-": stdout) can be written,
// else why not and what to do, so that a bad --json fails before the work.
std::string json_path_problem(const std::string& path);

// Where a command's human text goes: err when its JSON takes standard
// output (json_out "-"), so that a pipe reads JSON alone; else out.
std::ostream& text_stream(const std::string& json_out, std::ostream& out, std::ostream& err);

// Writes j (indented) to `path`, or to out when path is "-"; on failure says
// so on err and returns false.
bool write_json(const nlohmann::json& j, const std::string& path, std::ostream& out,
                std::ostream& err);

}  // namespace fabemu
