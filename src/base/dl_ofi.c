/*
 * libfabric, opened when the ofi channel (src/rdma/ofi) or the ofi barrier
 * (src/coll/barrier_ofi.c) is first asked whether it can run, not linked
 * (dl.h): here in base because two layers use it. The functions of it that
 * rdmach calls (the rest are inline in its headers, calls through the
 * objects' operation tables). Versions: the default ones, which the linker
 * bound before.
 */
#include "rdmach_config.h"
#if RDMACH_HAVE_OFI
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include "base/dl.h"

struct rch_base_dl rch_base_dl_ofi = { .soname = "libfabric.so.1", .what = "the libfabric (ofi) channel" };

RCH_DL_FN(rch_base_dl_ofi, "FABRIC_1.3", int, fi_getinfo,
          (uint32_t version, const char *node, const char *service, uint64_t flags, const struct fi_info *hints,
           struct fi_info **info),
          (version, node, service, flags, hints, info))
RCH_DL_VOID(rch_base_dl_ofi, "FABRIC_1.3", fi_freeinfo, (struct fi_info *info), (info))
RCH_DL_FN(rch_base_dl_ofi, "FABRIC_1.3", struct fi_info *, fi_dupinfo, (const struct fi_info *info), (info))
RCH_DL_FN(rch_base_dl_ofi, "FABRIC_1.1", int, fi_fabric,
          (struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context), (attr, fabric, context))
RCH_DL_FN(rch_base_dl_ofi, "FABRIC_1.0", const char *, fi_strerror, (int errnum), (errnum))
RCH_DL_FN(rch_base_dl_ofi, "FABRIC_1.0", uint32_t, fi_version, (void), ())
#endif
