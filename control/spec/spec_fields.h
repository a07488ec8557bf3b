// Internal to control/spec: the table of every spec key (type, unit,
// source of the profiles' defaults in the paper, help, reader) and lookups in it.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "control/spec/spec_context.h"

namespace fabemu {
namespace spec_detail {

const std::vector<std::pair<std::string, Pattern>>& patterns();
std::vector<std::string> pattern_names();
Pattern pattern_of(const std::string& name);
std::vector<std::string> profile_list();
const std::vector<Field>& fields();
// The cycle-synchronous router's keys, in table order (spec_fields_islip.cpp).
std::vector<Field> islip_router_fields();
bool is_item_key(const char* path);
// Keys a spec may set directly (not the ports[].KEY rows of a list item).
const Field* find_field(const std::string& path);
bool is_section(const std::string& path);
// The keys a map at `prefix` may hold, in table order.
std::vector<std::string> keys_at(const std::string& prefix);
std::string known_keys_message(const std::string& prefix, const std::string& key);
// The device a port binding names: a vdev's arguments follow its name after
// a comma ("net_af_packet0,iface=fe0" -> "net_af_packet0").
std::string device_name(const std::string& device);

}  // namespace spec_detail
}  // namespace fabemu
