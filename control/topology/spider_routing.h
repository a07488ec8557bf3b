// Programming Spider's two-level routing tables (dataplane/routing/
// spider_tables.h) for a fat hypercube (control/topology/fat_hypercube.h):
// the healthy routes (spider_routing.cpp) and the reprogramming around dead
// links and chips (spider_faults.cpp).
#pragma once
#include <cstdint>
#include <functional>

#include "control/spec/spec.h"
#include "control/topology/fat_hypercube.h"
#include "dataplane/core/fabric.h"
#include "dataplane/routing/spider_tables.h"

namespace fabemu {

// The exit port at `chip`, entered by `in_port`, of a message for endpoint
// `dst`; -1: no route. For a destination whose meta address is not the
// chip's meta-ID it must be the same for the whole meta address (the meta
// table has one entry for it).
using SpiderExitFn = std::function<int(int32_t chip, int in_port, int32_t dst)>;

// The healthy fabric's exit port: up, meta dimensions lowest first, down,
// local dimensions highest first, the diagonal last (whatever the in-port).
int spider_healthy_port(const FatHypercubeShape& s, int32_t chip, int32_t dst);

// A chip's meta-ID register: its endpoints' meta address (a local chip), or
// kSpiderNoMetaId (a meta chip, which has none).
uint8_t spider_meta_id(const FatHypercubeShape& s, int32_t chip);

// Fills every chip's tables from exit_port. Throws std::invalid_argument
// when a meta address's route differs between its destinations.
SpiderTables program_spider_tables(const Spec& spec, const Fabric& fabric,
                                   const SpiderExitFn& exit_port);

// The tables of `fabric`: the healthy routes where nothing is dead; with
// dead links or chips, every route the fault leaves intact kept, the others
// found again, each new channel dependency admitted only when it closes no
// cycle (so the tables stay deadlock-free), and the destinations no such
// route reaches left unroutable.
SpiderTables spider_route_around_faults(const Spec& spec, const Fabric& fabric);

}  // namespace fabemu
