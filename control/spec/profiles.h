// Profiles: named sets of defaults, each taken from the paper that describes
// the machine. The default values themselves live in the field table of
// spec_loader.cpp (one column per machine) so that every key has its value,
// unit and citation on one line; this file says which profiles exist.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace fabemu {

struct ProfileInfo {
  std::string_view name;     // spec `profile:` value
  std::string_view machine;  // what it models
  std::string_view source;   // the paper the defaults come from
  // Which default column of the field table the profile starts from.
  enum class Column { t3e, yarc, flatfly } column;
  // The profile names no topology of its own: the spec must give
  // topology.family.
  bool needs_family = false;
};

// All profiles, in the order the documentation lists them.
const std::vector<ProfileInfo>& profiles();
// nullptr for an unknown name.
const ProfileInfo* find_profile(std::string_view name);
// "t3e, yarc, custom" (for messages).
std::string profile_names();

}  // namespace fabemu
