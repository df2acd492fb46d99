/* Validation of received one-sided packets (the wire format is in rma_proto.h). */
#include <string.h>
#include "device/rma_proto.h"

const char *const rch_rma_op_name[RCH_RMA_OP_MAX] = {
    [RCH_RMA_NONE] = "NONE",         [RCH_RMA_PUT] = "PUT",
    [RCH_RMA_GET] = "GET",           [RCH_RMA_ACC] = "ACC",
    [RCH_RMA_GACC] = "GACC",         [RCH_RMA_CAS] = "CAS",
    [RCH_RMA_LOCK] = "LOCK",         [RCH_RMA_UNLOCK] = "UNLOCK",
    [RCH_RMA_POST] = "POST",         [RCH_RMA_COMPLETE] = "COMPLETE",
    [RCH_RMA_ACK] = "ACK",           [RCH_RMA_RSP] = "RSP",
    [RCH_RMA_GRANT] = "GRANT",       [RCH_RMA_UNLOCK_ACK] = "UNLOCK_ACK",
    [RCH_RMA_KICK] = "KICK",
};

static rdmach_status_t bad(const char **why, const char *text)
{
    *why = text;
    return RDMACH_ERR_PROTOCOL;
}

rdmach_status_t rch_rma_check(const void *pkt, size_t len, struct rch_rma_hdr *h, const char **why)
{
    *why = "";
    if (pkt == NULL || len < sizeof(*h))
        return bad(why, "RMA packet shorter than its 48-byte header");
    memcpy(h, pkt, sizeof(*h));
    if (h->rop == RCH_RMA_NONE || h->rop >= RCH_RMA_OP_MAX)
        return bad(why, "RMA packet with an unknown operation");
    if ((size_t)h->len != len - sizeof(*h))
        return bad(why, "RMA payload length does not match the packet length");
    if (h->addr > UINT64_MAX - h->len)
        return bad(why, "RMA target range wraps around");
    switch (h->rop) {
    case RCH_RMA_ACC:
    case RCH_RMA_GACC:
        if (h->elem == 0 || h->elem > RCH_RMA_ELEM_MAX || h->len % h->elem != 0)
            return bad(why, "RMA accumulate whose payload is not whole elements");
        break;
    case RCH_RMA_CAS:
        if (h->elem == 0 || h->elem > RCH_RMA_ELEM_MAX || h->len != 2 * h->elem)
            return bad(why, "RMA compare-and-swap whose payload is not compare + value");
        break;
    case RCH_RMA_GET:
        if (h->len != 0 || h->addr > UINT64_MAX - h->elem)
            return bad(why, "RMA GET with a payload or a wrapping range");
        break;
    case RCH_RMA_PUT:
    case RCH_RMA_RSP:
        break;
    default:
        if (h->len != 0)
            return bad(why, "RMA control packet with a payload");
        break;
    }
    return RDMACH_OK;
}
