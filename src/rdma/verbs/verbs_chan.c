/*
 * The verbs network channel: the generic network channel (src/rdma/net)
 * bound to the verbs provider table (verbs_prov.c). Selected for peers on
 * other nodes when an RDMA device with an active port is present, or by
 * RDMACH_NET=verbs (rdma/select.c).
 */
#include "rdmach_config.h"
#include "rdma/net/net.h"

#if RDMACH_HAVE_VERBS
RCH_NET_CHANNEL(rch_rdma_verbs_ops, "verbs", rch_net_prov_verbs);
#endif /* RDMACH_HAVE_VERBS */
