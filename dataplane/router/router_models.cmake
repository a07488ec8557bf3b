# The router models an engine can be made for, by name: the C++ class (-: the
# routing policy's own, RouterModelOf in router_model.h) and its header. A
# routing lists the models it runs on beside it (FABEMU_ENGINES, routing/);
# the spec knows the same names (control/topology/router_models/).
set(FABEMU_ROUTER_MODEL_input_queued - dataplane/router/input_queued.h)
set(FABEMU_ROUTER_MODEL_input_queued_islip IslipRouter dataplane/router/input_queued_islip.h)
set(FABEMU_ROUTER_MODEL_yarc_tiled YarcTiledRouter dataplane/router/yarc_tiled.h)
set(FABEMU_ROUTER_MODEL_output_queued_ideal IdealOutputQueuedRouter
    dataplane/router/output_queued_ideal.h)
set(FABEMU_ROUTER_MODEL_spider SpiderRouter dataplane/router/spider.h)
set(FABEMU_ROUTER_MODEL_mesh3d Mesh3dRouter dataplane/router/mesh3d_router.h)
