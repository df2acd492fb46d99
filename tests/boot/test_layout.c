/* Node layout: PMI_process_mapping, host ids, pretend nodes. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "boot/layout.h"

static void expect_nodes(const int *got, const int *want, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_eq(got[i], want[i], "rank %d: node %d, expected %d", i, got[i], want[i]);
}

Test(mapping, hydra_one_host_repeats_for_every_rank)
{
    int node_of[8], want[8] = { 0 };
    cr_assert_eq(rch_boot_parse_mapping("(vector,(0,1,1))", 8, node_of), RDMACH_OK);
    expect_nodes(node_of, want, 8);
}

Test(mapping, blocks_of_several_nodes)
{
    int node_of[10];
    /* nodes 0,1 with 3 ranks each, then node 2 with 4 */
    cr_assert_eq(rch_boot_parse_mapping("(vector,(0,2,3),(2,1,4))", 10, node_of), RDMACH_OK);
    int want[10] = { 0, 0, 0, 1, 1, 1, 2, 2, 2, 2 };
    expect_nodes(node_of, want, 10);
    /* a pattern shorter than the job repeats (round-robin placement) */
    cr_assert_eq(rch_boot_parse_mapping(" ( vector , (0,2,1) ) ", 5, node_of), RDMACH_OK);
    int want2[5] = { 0, 1, 0, 1, 0 };
    expect_nodes(node_of, want2, 5);
}

Test(mapping, empty_mapping_is_not_found)
{
    int node_of[2];
    cr_assert_eq(rch_boot_parse_mapping("", 2, node_of), RDMACH_ERR_NOT_FOUND);
    cr_assert_eq(rch_boot_parse_mapping("(vector)", 2, node_of), RDMACH_ERR_NOT_FOUND);
}

Test(mapping, malformed_mappings_are_protocol_errors_with_position)
{
    int node_of[4];
    const char *bad[] = { "vector,(0,1,1)", "(vectr,(0,1,1))", "(vector,(0,1))", "(vector,(0,1,1)",
                          "(vector,(0,0,1))", "(vector,(0,1,0))", "(vector,(-1,1,1))", "(vector,(0,1,1))x",
                          "(vector,(a,1,1))", "(vector,(0,1,99999999999))" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_assert_eq(rch_boot_parse_mapping(bad[i], 4, node_of), RDMACH_ERR_BOOT_PROTOCOL, "%s accepted", bad[i]);
        cr_assert(strstr(rdmach_last_error(), "PMI_process_mapping"), "%s", rdmach_last_error());
        cr_assert(strstr(rdmach_last_error(), "offset"), "%s", rdmach_last_error());
    }
}

Test(layout, host_ids_group_in_order_of_first_appearance)
{
    const char *ids[6] = { "b", "a", "b", "c", "a", "b" };
    int node_of[6], want[6] = { 0, 1, 0, 2, 1, 0 };
    cr_assert_eq(rch_boot_group_ids(ids, 6, node_of), 3);
    expect_nodes(node_of, want, 6);
}

Test(layout, renumber_makes_ids_dense)
{
    int node_of[5] = { 7, 3, 7, 12, 3 }, want[5] = { 0, 1, 0, 2, 1 };
    cr_assert_eq(rch_boot_renumber(node_of, 5), 3);
    expect_nodes(node_of, want, 5);
}

Test(vnodes, one_machine_gives_consecutive_groups)
{
    int node_of[7] = { 0 }, want[7] = { 0, 0, 0, 1, 1, 1, 2 };
    cr_assert_eq(rch_boot_apply_vnodes(node_of, 7, 3), 3);
    expect_nodes(node_of, want, 7);
}

Test(vnodes, zero_leaves_real_nodes_and_one_makes_a_node_per_rank)
{
    int a[4] = { 0, 0, 1, 1 }, b[4] = { 0, 0, 0, 0 };
    cr_assert_eq(rch_boot_apply_vnodes(a, 4, 0), 2);
    int wa[4] = { 0, 0, 1, 1 }, wb[4] = { 0, 1, 2, 3 };
    expect_nodes(a, wa, 4);
    cr_assert_eq(rch_boot_apply_vnodes(b, 4, 1), 4);
    expect_nodes(b, wb, 4);
}

Test(vnodes, never_span_two_real_nodes)
{
    /* round-robin placement over 2 real nodes, pretend nodes of 2 */
    int node_of[6] = { 0, 1, 0, 1, 0, 1 }, want[6] = { 0, 1, 0, 1, 2, 3 };
    cr_assert_eq(rch_boot_apply_vnodes(node_of, 6, 2), 4);
    expect_nodes(node_of, want, 6);
}

Test(layout, fill_computes_local_ranks)
{
    struct rch_boot_info b = { .rank = 4, .size = 6 };
    int *node_of = malloc(6 * sizeof(int));
    int src[6] = { 0, 1, 0, 1, 1, 2 };
    memcpy(node_of, src, sizeof(src));
    cr_assert_eq(rch_boot_layout_fill(&b, node_of), RDMACH_OK);
    cr_assert_eq(b.node, 1);
    cr_assert_eq(b.num_nodes, 3);
    cr_assert_eq(b.local_rank, 2);
    cr_assert_eq(b.local_size, 3);
    int want[3] = { 1, 3, 4 };
    expect_nodes(b.local_ranks, want, 3);
    rch_boot_layout_free(&b);
    cr_assert_null(b.node_of);
}
