// Virtual routers (Scott et al., ISCA 2006, sections 2.2 and 7.4): a YARC
// partitioned by port masks into lower-radix routers, as on the BlackWidow
// R2/R3 module, whose four YARCs are each "split into two radix-32 virtual
// routers". The topology builders and the table programming work on the
// logical fabric (one FabricRouter per virtual router); the physical fabric
// the engine runs has one router per chip, each logical router's ports at
// the chip ports its mask names, and Fabric::virtual_routers saying which.
// The YARC tables of a chip are its virtual routers' tables, selected by
// the input port (every tile has its own tables, section 7.4): a packet
// that entered on a virtual router's port only ever leaves on its ports.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/core/fabric.h"
#include "dataplane/routing/yarc_updown.h"

namespace fabemu {

// How a chip's 64 ports are shared by its two radix-32 virtual routers
// (router.virtual_routers): halves gives the first ports 0..31 (tile rows
// 0-3 of YARC's 8x8), the second 32..63; columns gives the first the ports
// in tile columns 0-3 of every row (port % 8 < 4), the second the others.
enum class VirtualRouterLayout : uint8_t { none, halves, columns };
VirtualRouterLayout virtual_router_layout(const std::string& name);
// The port masks of a layout's two virtual routers.
std::vector<uint64_t> virtual_router_masks(VirtualRouterLayout layout);

// The physical fabric: logical router l becomes logical port i of chip
// place[l].router at the i-th set bit of place[l].ports. Chips are numbered
// in the order of their first logical router; a chip's coord and rank are
// its first virtual router's, its radix 64 when it is shared. Throws
// std::invalid_argument when the masks of one chip overlap or a mask has
// fewer ports than its logical router.
Fabric merge_virtual_routers(const Fabric& logical, const std::vector<FabricVirtualRouter>& place);

// The logical fabric back from a physical one (dead links and routers go
// with their virtual routers). A fabric without virtual routers: a copy.
Fabric split_virtual_routers(const Fabric& physical);

// Pairs consecutive radix-32 routers of the same rank (the clos family's
// rank-2 and rank-3 routers) on one chip with the layout's masks; every
// other router is its own chip.
std::vector<FabricVirtualRouter> pair_radix32_routers(const Fabric& logical,
                                                      VirtualRouterLayout layout);

// The chip tables from the logical ones (one per logical router): each
// virtual router's table with its ports moved to the chip's, tables[c] the
// first virtual router of chip c, the others after every chip's, chained by
// YarcRouterTable::next_table and selected by in_ports.
std::vector<YarcRouterTable> place_virtual_tables(const Fabric& physical,
                                                  const std::vector<YarcRouterTable>& logical);

}  // namespace fabemu
