/*
 * The verbs channel's choice of device and address, the parts that need no
 * RDMA device (these run on the host, label "unit"): the per-node lists of
 * RDMACH_VERBS_DEVICE / RDMACH_VERBS_ADDR, and malformed values named before
 * any RDMA call is made.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "base/base.h"
#include "base/tunables.h"
#include "rdma/verbs/verbs.h"

Test(verbs_addr, a_list_element_is_taken_by_node_modulo_its_length)
{
    char out[64];
    cr_assert_eq(rch_verbs_list_pick("VERBS_DEVICE", "siw0,siw1", 0, out, sizeof(out)), RDMACH_OK);
    cr_assert_str_eq(out, "siw0");
    cr_assert_eq(rch_verbs_list_pick("VERBS_DEVICE", "siw0,siw1", 1, out, sizeof(out)), RDMACH_OK);
    cr_assert_str_eq(out, "siw1");
    cr_assert_eq(rch_verbs_list_pick("VERBS_DEVICE", "siw0,siw1", 5, out, sizeof(out)), RDMACH_OK);
    cr_assert_str_eq(out, "siw1");
    cr_assert_eq(rch_verbs_list_pick("VERBS_ADDR", " 192.0.2.1 , 192.0.2.2 ", 0, out, sizeof(out)), RDMACH_OK);
    cr_assert_str_eq(out, "192.0.2.1", "spaces are trimmed: '%s'", out);
    cr_assert_eq(rch_verbs_list_pick("VERBS_ADDR", "10.0.0.7", 3, out, sizeof(out)), RDMACH_OK);
    cr_assert_str_eq(out, "10.0.0.7", "one element serves every node");
}

Test(verbs_addr, an_empty_or_overlong_element_is_a_config_error_naming_the_variable)
{
    char out[16];
    cr_assert_eq(rch_verbs_list_pick("VERBS_ADDR", "192.0.2.1,,192.0.2.3", 1, out, sizeof(out)), RDMACH_ERR_CONFIG);
    cr_assert(strstr(rdmach_last_error(), "RDMACH_VERBS_ADDR") && strstr(rdmach_last_error(), "empty"), "%s",
              rdmach_last_error());
    cr_assert_eq(rch_verbs_list_pick("VERBS_DEVICE", "a-device-name-longer-than-16", 0, out, sizeof(out)),
                 RDMACH_ERR_CONFIG);
    cr_assert(strstr(rdmach_last_error(), "too long"), "%s", rdmach_last_error());
}

Test(verbs_addr, an_address_that_is_no_ip_is_named_before_any_rdma_call)
{
    struct rch_verbs_where w;
    rch_tun.verbs_device[0] = '\0';
    snprintf(rch_tun.verbs_addr, sizeof(rch_tun.verbs_addr), "not-an-address,192.0.2.2");   /* node 0 */
    cr_assert_eq(rch_verbs_choose(&w), RDMACH_ERR_CONFIG);
    cr_assert(strstr(rdmach_last_error(), "RDMACH_VERBS_ADDR: 'not-an-address'"), "%s", rdmach_last_error());
    rch_tun.verbs_addr[0] = '\0';
}
