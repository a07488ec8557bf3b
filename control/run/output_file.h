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

// For data on standard output while the process prints (`run --json -`, a
// capture to "-"): divert_stdout_for_data keeps the process's standard
// output aside and points descriptor 1 at standard error, so that all else
// written to standard output from then on (the summary, DPDK's log lines)
// goes to standard error; write_output("-") then writes to the kept one, so
// a pipe reads the data alone. Later calls do nothing. take_stdout_for_data
// hands the kept descriptor to a stream's writer, once: the caller writes
// the stream and closes it, and its reader sees the end. Both: false / -1
// with *err.
bool divert_stdout_for_data(std::string* err);
int take_stdout_for_data(std::string* err);

}  // namespace fabemu
