/*
 * verbs_net_job: tests/net/net_job.c, H9's job program for the network
 * channel, bound to the verbs channel and provider instead of libfabric's
 * (every mode of it: cross, lazy, eager, ring, rma, rcache, peerdeath, trace;
 * see there). The program names the libfabric tables in a few places; the
 * two names are mapped here, so the same source serves both providers.
 */
#include "rdmach_config.h"
#if !RDMACH_HAVE_VERBS
#error "verbs_net_job needs libibverbs and librdmacm"
#endif
#define rch_rdma_ofi_ops rch_rdma_verbs_ops
#define rch_net_prov_ofi rch_net_prov_verbs
#include "../net/net_job.c"
