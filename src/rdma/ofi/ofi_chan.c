/*
 * The libfabric network channel: the generic network channel (src/rdma/net)
 * bound to the libfabric provider table (ofi_prov.c). Selected for peers on
 * other nodes when no RDMA device is active, or by RDMACH_NET=ofi
 * (rdma/select.c).
 */
#include "rdmach_config.h"
#include "rdma/net/net.h"

#if RDMACH_HAVE_OFI
RCH_NET_CHANNEL(rch_rdma_ofi_ops, "ofi", rch_net_prov_ofi);
#endif /* RDMACH_HAVE_OFI */
