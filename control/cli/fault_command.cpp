#include "control/cli/fault_command.h"

#include "control/cli/cli.h"
#include "control/run/control_socket.h"

namespace fabemu {

int fault_command(const std::string& socket, const std::vector<std::string>& requests,
                  std::istream& in, std::ostream& out, std::ostream& err) {
  // Blank and comment lines get no reply from the server: never sent, or
  // the client would wait for one.
  std::vector<std::string> lines;
  const auto add = [&](const std::string& line) {
    const size_t b = line.find_first_not_of(" \t\r");
    if (b != std::string::npos && line[b] != '#' && line.find('\n') == std::string::npos)
      lines.push_back(line);
  };
  for (const std::string& r : requests) {
    if (r != "-") {
      add(r);
      continue;
    }
    for (std::string line; std::getline(in, line);) add(line);
  }
  if (lines.empty()) {
    err << "fabemu fault: nothing to send: give a fault (e.g. 'link=r0:p33 down'), status, or - "
           "to read requests from standard input\n";
    return kExitUsage;
  }
  std::vector<std::string> replies;
  std::string why;
  const bool reached = control_request(socket, lines, &replies, &why);
  size_t refused = 0;
  for (const std::string& r : replies) {
    out << r << "\n";
    refused += r.rfind("ok", 0) != 0;
  }
  if (!reached) err << "fabemu fault: " << why << "\n";
  // The replies go to standard output; the status's reason to standard error.
  if (refused)
    err << "fabemu fault: the run refused " << refused << " of " << lines.size()
        << (lines.size() == 1 ? " request" : " requests") << " (the replies say why)\n";
  return reached && !refused ? kExitOk : kExitRunFailed;
}

}  // namespace fabemu
