// `fabemu fault`: faults (and status requests) to a running `fabemu run
// --control PATH` over its control socket (control/run/control_socket.h).
#pragma once
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace fabemu {

// Sends each request ("-": one per line from `in`) and prints each reply.
// 0 when every reply is "ok", 1 when one is an error or the socket cannot
// be reached, 2 when there is nothing to send.
int fault_command(const std::string& socket, const std::vector<std::string>& requests,
                  std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace fabemu
