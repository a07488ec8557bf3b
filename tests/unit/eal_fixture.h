// DPDK EAL and an mbuf pool for unit tests.
//
// rte_eal_init may run only once per process, so every test file that needs
// mbufs goes through here: the first call starts EAL through
// fabemu::eal_ensure (dataplane/core/eal.h: no hugepages, no PCI, a file
// prefix unique to the process so parallel test processes do not collide;
// the engine's runner uses the same call, so both can run in one test
// process) and creates the pool; later calls, from any test file or thread,
// return the same pool. If this fixture started EAL, it cleans it up and
// removes its empty runtime directory at process exit.
#pragma once
#include <rte_mbuf.h>
#include <rte_mempool.h>

// True once EAL is up (initialising it on first call).
bool test_eal_init();

// A pktmbuf pool (8191 mbufs, RTE_MBUF_DEFAULT_BUF_SIZE data room, a
// PacketMeta-sized private area), or nullptr if EAL could not start. Use
// ASSERT_NE(test_mempool(), nullptr).
rte_mempool* test_mempool();

// Allocates an empty mbuf from test_mempool() (nullptr on failure); free it
// with rte_pktmbuf_free.
rte_mbuf* test_mbuf();
