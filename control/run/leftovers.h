// Files a run makes for its own time (the control socket, a report being
// written beside its final name), removed by a signal handler when a second
// signal ends the process at once: the handler may only make
// async-signal-safe calls, so the paths are kept as plain strings ahead.
#pragma once
#include <string>

namespace fabemu {

// Registers path to be removed by remove_leftovers_now(); returns a handle
// for forget_leftover (-1 when the table is full or the path too long: it
// is then left, as before).
int leave_behind(const std::string& path);
// The file is gone or has its final name: nothing to remove any more.
void forget_leftover(int handle);
// From a signal handler: unlinks every registered path.
void remove_leftovers_now() noexcept;

}  // namespace fabemu
