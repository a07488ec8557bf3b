// The files a command writes its results to (--json, and what else a run or
// a sweep writes): written whole or not at all, every error reported.
#pragma once
#include <string>

namespace fabemu {

// Before the work: "" when path ("-": standard output) can be written, else
// "PATH: what is wrong (what the system said): what to do". A new file is
// tried by making (and removing) one in its folder, so that a read-only
// file system, permissions and a missing folder are all found.
std::string output_path_problem(const std::string& path);

// Writes text to path ("-": standard output). A regular file (or a new one)
// is written to a temporary file in its folder, renamed over it once written
// and closed, so that neither a failure nor a signal leaves it part-written
// (a second signal removes the temporary file, control/run/leftovers.h); a
// device or FIFO (/dev/stdout, /dev/full) is written in place. Every write
// and the close are checked: false with *err = "PATH: what the system said".
bool write_output(const std::string& path, const std::string& text, std::string* err);

}  // namespace fabemu
