// This build's version (FABEMU_VERSION, CMakeLists.txt) and the commit it
// was made from (git describe, "-dirty" with uncommitted changes; "unknown"
// outside a git checkout), written at build time by cmake/commit.cmake.
#pragma once

const char* fabemu_commit();
