/*
 * The network channel's wire format is validated before anything trusts it,
 * and the locked-memory error says what to do.
 */
#include <criterion/criterion.h>
#include <string.h>
#include "rdma/net/net.h"

static struct rch_net_cm_priv good(unsigned kind)
{
    struct rch_net_cm_priv p;
    memset(&p, 0, sizeof(p));
    p.magic = RCH_NET_MAGIC;
    p.version = RCH_NET_VERSION;
    p.kind = (uint8_t)kind;
    p.rank = 3;
    p.size = 8;
    p.key = 99;
    p.ring_addr = 0x10000;
    p.ring_key = 5;
    p.slot_size = 16384;
    p.nslots = 32;
    return p;
}

static rdmach_status_t check(const struct rch_net_cm_priv *p, size_t len, unsigned kind, const char **why)
{
    struct rch_net_cm_priv out;
    return rch_net_cm_priv_check(p, len, kind, 8, 8, 16384, 32, &out, why);
}

/* A job of 8 with 2 processes of other jobs attached (connections 8, 9): a
 * request naming rank 9 carries its own job's size; rank 10 is no one. */
Test(net_proto, a_process_of_another_job_sends_its_own_size)
{
    struct rch_net_cm_priv p = good(RCH_NET_CM_CONNECT), out;
    const char *why = NULL;
    p.rank = 9;
    p.size = 3;
    cr_assert_eq(rch_net_cm_priv_check(&p, sizeof(p), RCH_NET_CM_CONNECT, 8, 10, 16384, 32, &out, &why), RDMACH_OK,
                 "%s", why);
    p.rank = 10;
    cr_assert_eq(rch_net_cm_priv_check(&p, sizeof(p), RCH_NET_CM_CONNECT, 8, 10, 16384, 32, &out, &why),
                 RDMACH_ERR_PROTOCOL);
    p.rank = 3;   /* a rank of the job must give the job's size */
    cr_assert_eq(rch_net_cm_priv_check(&p, sizeof(p), RCH_NET_CM_CONNECT, 8, 10, 16384, 32, &out, &why),
                 RDMACH_ERR_PROTOCOL);
}

Test(net_proto, a_good_connect_request_passes)
{
    struct rch_net_cm_priv p = good(RCH_NET_CM_CONNECT);
    const char *why = NULL;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_CONNECT, &why), RDMACH_OK, "%s", why);
    /* longer private data (providers may pad) is fine */
    unsigned char big[64] = { 0 };
    memcpy(big, &p, sizeof(p));
    cr_assert_eq(check((void *)big, sizeof(big), RCH_NET_CM_CONNECT, &why), RDMACH_OK);
}

Test(net_proto, bad_connection_data_is_refused_with_a_reason)
{
    const char *why = NULL;
    struct rch_net_cm_priv p = good(RCH_NET_CM_CONNECT);
    cr_assert_eq(check(&p, sizeof(p) - 1, RCH_NET_CM_CONNECT, &why), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(why, "short"), "%s", why);
    cr_assert_eq(check(NULL, 0, RCH_NET_CM_CONNECT, &why), RDMACH_ERR_PROTOCOL);

    p.magic ^= 1;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_CONNECT, &why), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(why, "magic"), "%s", why);
    p = good(RCH_NET_CM_CONNECT);
    p.version++;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_CONNECT, &why), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(why, "version"), "%s", why);
    p = good(RCH_NET_CM_KIND_MAX);
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_CONNECT, &why), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(why, "range"), "%s", why);
    p = good(RCH_NET_CM_ACCEPT);
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_CONNECT, &why), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(why, "wrong kind"), "%s", why);
    p = good(RCH_NET_CM_CONNECT);
    p.rank = 8;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_CONNECT, &why), RDMACH_ERR_PROTOCOL);
    p.rank = -1;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_CONNECT, &why), RDMACH_ERR_PROTOCOL);
    p = good(RCH_NET_CM_CONNECT);
    p.size = 9;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_CONNECT, &why), RDMACH_ERR_PROTOCOL);
    p = good(RCH_NET_CM_CONNECT);
    p.nslots = 64;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_CONNECT, &why), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(why, "RDMACH_NET_SLOTS"), "%s", why);
    p = good(RCH_NET_CM_ACCEPT);
    p.ring_addr = 0;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_ACCEPT, &why), RDMACH_ERR_PROTOCOL);
    /* a REVERSE carries no ring: its geometry is not looked at */
    p = good(RCH_NET_CM_REVERSE);
    p.ring_addr = 0;
    p.nslots = 2;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_REVERSE, &why), RDMACH_OK);
}

Test(net_proto, rail_requests_carry_a_rail_in_range_and_no_other_kind_does)
{
    const char *why = NULL;
    struct rch_net_cm_priv p = good(RCH_NET_CM_RAIL);
    p.ring_addr = 0;   /* a rail has no ring */
    for (unsigned k = 1; k < RCH_NET_MAX_RAILS; k++) {
        p.rail = (uint16_t)k;
        cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_RAIL, &why), RDMACH_OK, "rail %u: %s", k, why);
    }
    p.rail = 0;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_RAIL, &why), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(why, "rail"), "%s", why);
    p.rail = RCH_NET_MAX_RAILS;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_RAIL, &why), RDMACH_ERR_PROTOCOL);
    p = good(RCH_NET_CM_RAIL_ACCEPT);
    p.rail = 1;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_RAIL_ACCEPT, &why), RDMACH_OK, "%s", why);
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_RAIL, &why), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(why, "wrong kind"), "%s", why);
    /* the connection itself is rail 0, always */
    p = good(RCH_NET_CM_CONNECT);
    p.rail = 1;
    cr_assert_eq(check(&p, sizeof(p), RCH_NET_CM_CONNECT, &why), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(why, "rail"), "%s", why);
}

Test(net_proto, control_messages_are_validated)
{
    struct rch_net_ctl m = { .magic = RCH_NET_MAGIC, .version = RCH_NET_VERSION, .op = RCH_NET_CTL_NOOP,
                             .rank = 1, .key = 7 };
    struct rch_net_ctl out;
    const char *why = NULL;
    cr_assert_eq(rch_net_ctl_check(&m, sizeof(m), &out, &why), RDMACH_OK);
    cr_assert_eq(out.key, 7);
    cr_assert_eq(rch_net_ctl_check(&m, sizeof(m) - 1, &out, &why), RDMACH_ERR_PROTOCOL);
    m.op = RCH_NET_CTL_NOOP_ACK;
    cr_assert_eq(rch_net_ctl_check(&m, sizeof(m), &out, &why), RDMACH_OK);
    cr_assert_eq(out.op, RCH_NET_CTL_NOOP_ACK);
    m.op = RCH_NET_CTL_OP_MAX;
    cr_assert_eq(rch_net_ctl_check(&m, sizeof(m), &out, &why), RDMACH_ERR_PROTOCOL);
    m.op = 0;
    cr_assert_eq(rch_net_ctl_check(&m, sizeof(m), &out, &why), RDMACH_ERR_PROTOCOL);
    m.op = RCH_NET_CTL_DOORBELL;
    m.magic = 0;
    cr_assert_eq(rch_net_ctl_check(&m, sizeof(m), &out, &why), RDMACH_ERR_PROTOCOL);
}

Test(net_proto, the_locked_memory_error_names_ulimit_and_the_size)
{
    rdmach_status_t st = rch_net_reg_limit_err(123456789, "ibv_reg_mr: Cannot allocate memory");
    cr_assert_eq(st, RDMACH_ERR_REG_LIMIT);
    const char *msg = rdmach_last_error();
    cr_assert(strstr(msg, "ulimit -l"), "%s", msg);
    cr_assert(strstr(msg, "123456789 bytes"), "%s", msg);
    cr_assert(strstr(msg, "ibv_reg_mr"), "%s", msg);
}
