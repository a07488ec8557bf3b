// `fabemu pcap FILE... [options]`: runs the capture analyzer,
// pcap-tools/fabemu-pcap (Python, Debian's python3 and python3-matplotlib),
// with the arguments as given; its --help describes them.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace fabemu {

// Where the analyzer script is: $FABEMU_PCAP_TOOL if set, else the source
// tree this binary was built from, else an installed copy beside the binary
// (BINDIR/fabemu-pcap, BINDIR/../share/fabemu/pcap-tools/fabemu-pcap, or
// BINDIR/../pcap-tools/fabemu-pcap for a build folder inside the tree).
// Empty when none is a readable file; `tried` gets every place looked at.
std::string find_pcap_tool(std::vector<std::string>* tried);

// The interpreter: Debian's /usr/bin/python3 first (python3-matplotlib is
// installed for it, not for a python3 earlier on PATH), else python3 on
// PATH. Empty when there is none.
std::string find_python3();

// Replaces this process with `python3 SCRIPT args...`; returns only on
// failure, with the exit status after saying why on err.
int pcap_command(const std::vector<std::string>& args, std::ostream& err);

}  // namespace fabemu
