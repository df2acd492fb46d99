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
    [RCH_RMA_PUTV] = "PUTV",         [RCH_RMA_GETV] = "GETV",
    [RCH_RMA_ACCV] = "ACCV",         [RCH_RMA_GACCV] = "GACCV",
    [RCH_RMA_PUTP] = "PUTP",         [RCH_RMA_ACCP] = "ACCP",
    [RCH_RMA_GETW] = "GETW",         [RCH_RMA_PUTW] = "PUTW",
};

static rdmach_status_t bad(const char **why, const char *text)
{
    *why = text;
    return RDMACH_ERR_PROTOCOL;
}

/* The V forms: the segments must fit the payload, every block be non-empty
 * (whole elements for accumulates) and not wrap, and the blocks' bytes add
 * up to the data that follows (GETV: to the bytes wanted). */
static rdmach_status_t check_pat(const unsigned char *payload, size_t len, const struct rch_rma_hdr *h,
                                 const char **why);

static rdmach_status_t check_vec(const unsigned char *payload, const struct rch_rma_hdr *h, const char **why)
{
    struct rch_rma_vec v;
    size_t len = h->len;
    int w = h->rop == RCH_RMA_GETW || h->rop == RCH_RMA_PUTW;
    if (w) {                            /* where, then the segments as GETV's */
        struct rch_rma_where wh;
        if (len < sizeof(wh))
            return bad(why, "RMA GETW/PUTW without its origin buffer");
        memcpy(&wh, payload, sizeof(wh));
        if (wh.keylen > RCH_RMA_KEY_MAX || wh.raddr > UINT64_MAX - h->elem)
            return bad(why, "RMA GETW/PUTW with a bad key or origin buffer range");
        payload += sizeof(wh);
        len -= sizeof(wh);
        if (h->flags & RCH_RMA_F_PAT)
            return check_pat(payload, len, h, why);
    }
    if (len < sizeof(v))
        return bad(why, "RMA vector packet without its segment count");
    memcpy(&v, payload, sizeof(v));
    size_t desc = sizeof(v) + (size_t)v.nseg * sizeof(struct rch_rma_seg);
    if (v.nseg == 0 || v.nseg > len / sizeof(struct rch_rma_seg) || desc > len)
        return bad(why, "RMA vector packet whose segments do not fit its length");
    int acc = h->rop == RCH_RMA_ACCV || h->rop == RCH_RMA_GACCV;
    if (acc && (h->elem == 0 || h->elem > RCH_RMA_ELEM_MAX))
        return bad(why, "RMA vector accumulate with a bad element size");
    uint64_t total = 0;
    for (uint32_t i = 0; i < v.nseg; i++) {
        struct rch_rma_seg s;
        memcpy(&s, payload + sizeof(v) + (size_t)i * sizeof(s), sizeof(s));
        if (s.blen == 0 || s.count == 0 || (acc && s.blen % h->elem != 0))
            return bad(why, "RMA vector segment with an empty block or partial elements");
        __int128 last = (__int128)s.addr + (__int128)s.stride * (s.count - 1);
        if (last < 0 || last + s.blen > (__int128)UINT64_MAX)
            return bad(why, "RMA vector segment wraps around");
        total += (uint64_t)s.blen * s.count;
        if (total > UINT32_MAX)
            return bad(why, "RMA vector segments larger than a packet");
    }
    if (w && desc != len)
        return bad(why, "RMA GETW/PUTW with bytes after its segments");
    uint64_t want = h->rop == RCH_RMA_GETV || w ? h->elem : len - desc;
    if (total != want)
        return bad(why, "RMA vector segments do not add up to the data");
    return RDMACH_OK;
}

/* The P forms: the blocks fit the payload and add up to the period, the
 * data is `reps` periods, blocks are whole elements (ACCP), and no
 * repetition's block wraps around. */
static rdmach_status_t check_pat(const unsigned char *payload, size_t len, const struct rch_rma_hdr *h,
                                 const char **why)
{
    struct rch_rma_pat q;
    if (len < sizeof(q))
        return bad(why, "RMA pattern packet without its description");
    memcpy(&q, payload, sizeof(q));
    size_t desc = sizeof(q) + (size_t)q.nblk * sizeof(struct rch_rma_pblk);
    if (q.nblk == 0 || q.nblk > RCH_RMA_PAT_BLK_MAX || desc > len)
        return bad(why, "RMA pattern packet whose blocks do not fit its length");
    int w = h->rop == RCH_RMA_GETW || h->rop == RCH_RMA_PUTW;
    uint64_t data = w ? h->elem : len - desc;   /* GETW, PUTW: no data, the bytes moved */
    if (q.reps == 0 || q.period == 0 || (w && desc != len) || q.reps > data / q.period ||
        q.reps * q.period != data)
        return bad(why, "RMA pattern packet whose data is not its repetitions");
    int acc = h->rop == RCH_RMA_ACCP;
    if (acc && (h->elem == 0 || h->elem > RCH_RMA_ELEM_MAX))
        return bad(why, "RMA pattern accumulate with a bad element size");
    uint64_t sum = 0;
    for (uint32_t i = 0; i < q.nblk; i++) {
        struct rch_rma_pblk b;
        memcpy(&b, payload + sizeof(q) + (size_t)i * sizeof(b), sizeof(b));
        if (b.blen == 0 || (acc && b.blen % h->elem != 0))
            return bad(why, "RMA pattern block that is empty or partial elements");
        __int128 last = (__int128)b.addr + (__int128)q.stride * (__int128)(q.reps - 1);
        if (last < 0 || last + b.blen > (__int128)UINT64_MAX)
            return bad(why, "RMA pattern block wraps around");
        sum += b.blen;
    }
    if (sum != q.period)
        return bad(why, "RMA pattern blocks do not add up to the period");
    return RDMACH_OK;
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
    case RCH_RMA_PUTV:
    case RCH_RMA_GETV:
    case RCH_RMA_ACCV:
    case RCH_RMA_GACCV:
    case RCH_RMA_GETW:
    case RCH_RMA_PUTW:
        return check_vec((const unsigned char *)pkt + sizeof(*h), h, why);
    case RCH_RMA_PUTP:
    case RCH_RMA_ACCP:
        return check_pat((const unsigned char *)pkt + sizeof(*h), h->len, h, why);
    default:
        if (h->len != 0)
            return bad(why, "RMA control packet with a payload");
        break;
    }
    return RDMACH_OK;
}
