// The fabemu command line (CLI11): check, describe, run, analyze and the hidden
// spec-reference. fabemu_main maps every outcome to an exit status so that
// scripts can tell a bad spec from a failed run.
#pragma once

#include <string>

namespace fabemu {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRunFailed = 1;  // the spec was fine; the run or analysis failed
inline constexpr int kExitUsage = 2;      // bad command line or bad spec: nothing started

int fabemu_main(int argc, char** argv);

// "fabemu 0.1.0 (commit 7ec4d11a22eb)": what --version prints, fabemu's and
// its Python tools' alike.
std::string version_line();

}  // namespace fabemu
