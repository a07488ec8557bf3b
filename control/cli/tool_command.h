// Subcommands carried out by Python tools from Debian's python3 (and
// python3-matplotlib for plots), run with the arguments as given so that
// their own options and --help apply:
//   `fabemu pcap FILE...`  pcap-tools/fabemu-pcap, the capture analyzer;
//   `fabemu sweep FILE`    scripts/fabemu-sweep, latency-load sweeps.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace fabemu {

struct PythonTool {
  const char* command;  // the subcommand, e.g. "pcap"
  const char* source;   // the script's path in the source tree, e.g. "pcap-tools/fabemu-pcap"
  const char* env;      // the environment variable that overrides where it is
};
inline constexpr PythonTool kPcapTool{"pcap", "pcap-tools/fabemu-pcap", "FABEMU_PCAP_TOOL"};
inline constexpr PythonTool kSweepTool{"sweep", "scripts/fabemu-sweep", "FABEMU_SWEEP_TOOL"};

// Where a tool's script is: $ENV if set, else the source tree this binary
// was built from, else an installed copy beside the binary (BINDIR/NAME,
// BINDIR/../share/fabemu/SOURCE, or BINDIR/../SOURCE for a build folder
// inside the tree). Empty when none is a readable file; `tried` gets every
// place looked at.
std::string find_tool(const PythonTool& tool, std::vector<std::string>* tried);

// The interpreter: Debian's /usr/bin/python3 first (python3-matplotlib is
// installed for it, not for a python3 earlier on PATH), else python3 on
// PATH. Empty when there is none.
std::string find_python3();

// Replaces this process with `python3 SCRIPT args...` (FABEMU_TOOL_PROG
// names the command for its usage lines, FABEMU_BIN this binary); returns
// only on failure, with the exit status after saying why on err.
int tool_command(const PythonTool& tool, const std::vector<std::string>& args, std::ostream& err);

}  // namespace fabemu
