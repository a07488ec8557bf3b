// Profiles: named sets of defaults, each taken from the paper that describes
// the machine. Each profile's table is in its own file (control/spec/
// profiles/<name>.cpp: the keys it sets where the profiles differ, over
// the shared fabemu_defaults()); the field table (spec_fields.cpp) keeps
// each key's type, unit, citation and help. This file says which profiles
// exist.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabemu {

// Key (dotted path) and its default as YAML text, in no particular order.
using ProfileDefaults = std::vector<std::pair<std::string_view, std::string_view>>;
const ProfileDefaults& fabemu_defaults();  // every profile's (profiles/fabemu.cpp)
const ProfileDefaults& t3e_defaults();
const ProfileDefaults& yarc_defaults();
const ProfileDefaults& flatfly_defaults();
const ProfileDefaults& spider_defaults();
const ProfileDefaults& mesh3d_defaults();
// `own` with YARC's link, wire and pipeline rows (profiles/yarc.cpp).
ProfileDefaults with_yarc_links(ProfileDefaults own);

struct ProfileInfo {
  std::string_view name;     // spec `profile:` value
  std::string_view machine;  // what it models
  std::string_view source;   // the paper the defaults come from
  // The profile's own defaults, over fabemu_defaults().
  const ProfileDefaults& (*defaults)();
  // The profile names no topology of its own: the spec must give
  // topology.family.
  bool needs_family = false;
};

// A profile's default of `path`: its own table's, else fabemu_defaults()'s;
// "" when it gives none (the key is then unused, or required).
std::string_view profile_default(const ProfileInfo& p, std::string_view path);

// fabemu_defaults()'s value of `path` (the list items' defaults), or "".
std::string_view fabemu_default(std::string_view path);

// All profiles, in the order the documentation lists them.
const std::vector<ProfileInfo>& profiles();
// nullptr for an unknown name.
const ProfileInfo* find_profile(std::string_view name);
// "t3e, yarc, custom" (for messages).
std::string profile_names();

}  // namespace fabemu
