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

// For a command whose data goes to standard output (`run --json -`): from
// here on what the process prints on standard output (the run's summary,
// DPDK's log, which DPDK writes there) goes to standard error instead, and
// write_output("-") writes to the standard output the process was given,
// so that a pipe reads the data alone. Only the first call does anything.
void keep_stdout_for_data();

// Where write_output("-") writes: the descriptor keep_stdout_for_data kept,
// else STDOUT_FILENO (for a writer of its own, such as a capture to "-").
int stdout_data_fd();

}  // namespace fabemu
