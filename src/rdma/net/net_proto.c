/* Validation of the network channel's wire format on receipt (net_proto.h). */
#include <string.h>
#include "base/base.h"
#include "rdma/net/net_proto.h"

rdmach_status_t rch_net_cm_priv_check(const void *data, size_t len, unsigned kind, int job_size,
                                      int nconns, uint32_t slot_size, unsigned nslots, struct rch_net_cm_priv *out,
                                      const char **why)
{
    if (data == NULL || len < sizeof(*out)) {
        *why = "private data too short for an rdmach connection message";
        return RDMACH_ERR_PROTOCOL;
    }
    memcpy(out, data, sizeof(*out));
    if (out->magic != RCH_NET_MAGIC) {
        *why = "not an rdmach connection message (bad magic)";
        return RDMACH_ERR_PROTOCOL;
    }
    if (out->version != RCH_NET_VERSION) {
        *why = "rdmach connection message of another protocol version";
        return RDMACH_ERR_PROTOCOL;
    }
    if (out->kind == 0 || out->kind >= RCH_NET_CM_KIND_MAX) {
        *why = "connection message kind out of range";
        return RDMACH_ERR_PROTOCOL;
    }
    if (out->kind != kind) {
        *why = "connection message of the wrong kind";
        return RDMACH_ERR_PROTOCOL;
    }
    /* a process of another job (rank >= job_size) sends its own job's size */
    if (out->rank < 0 || out->rank >= nconns || (out->rank < job_size && out->size != (uint32_t)job_size)) {
        *why = "the sender's rank or job size does not fit this job";
        return RDMACH_ERR_PROTOCOL;
    }
    int rail_kind = kind == RCH_NET_CM_RAIL || kind == RCH_NET_CM_RAIL_ACCEPT;
    if (rail_kind ? out->rail == 0 || out->rail >= RCH_NET_MAX_RAILS : out->rail != 0) {
        *why = "rail number out of range for this connection message";
        return RDMACH_ERR_PROTOCOL;
    }
    if (kind == RCH_NET_CM_CONNECT || kind == RCH_NET_CM_ACCEPT) {
        if (out->slot_size != slot_size || out->nslots != nslots) {
            *why = "ring geometry differs (RDMACH_NET_SLOT_SIZE / RDMACH_NET_SLOTS must be the same on every rank)";
            return RDMACH_ERR_PROTOCOL;
        }
        if (out->ring_addr == 0) {
            *why = "no ring address";
            return RDMACH_ERR_PROTOCOL;
        }
    }
    return RDMACH_OK;
}

rdmach_status_t rch_net_ctl_check(const void *data, size_t len, struct rch_net_ctl *out, const char **why)
{
    if (len < sizeof(*out)) {
        *why = "control message too short";
        return RDMACH_ERR_PROTOCOL;
    }
    memcpy(out, data, sizeof(*out));
    if (out->magic != RCH_NET_MAGIC || out->version != RCH_NET_VERSION) {
        *why = "control message with a bad magic or version";
        return RDMACH_ERR_PROTOCOL;
    }
    if (out->op == 0 || out->op >= RCH_NET_CTL_OP_MAX) {
        *why = "control message opcode out of range";
        return RDMACH_ERR_PROTOCOL;
    }
    return RDMACH_OK;
}
