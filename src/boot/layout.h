/*
 * The job's node layout as pure functions of data (testable without a job):
 * parsing PMI_process_mapping, grouping host identities into nodes, pretend
 * nodes (RDMACH_VNODE_SIZE) and filling struct rch_boot_info.
 */
#ifndef RCH_BOOT_LAYOUT_H
#define RCH_BOOT_LAYOUT_H

#include "boot/boot.h"

/* Parse Hydra's/Slurm's "(vector,(start,nodes,ranks_per_node),...)" into
 * node_of[size]. The blocks give consecutive ranks to nodes; when they cover
 * fewer than `size` ranks the pattern repeats (Hydra sends "(vector,(0,1,1))"
 * for any -n on one host, meaning every rank is on node 0).
 * RDMACH_ERR_BOOT_PROTOCOL naming the problem if malformed; RDMACH_ERR_NOT_FOUND
 * for an empty mapping "(vector)" or "" (the caller then exchanges host ids). */
rdmach_status_t rch_boot_parse_mapping(const char *text, int size, int *node_of);

/* node_of[i] := dense ids 0..k-1 in order of first appearance of ids[i]
 * (strings, e.g. host identities); returns k. */
int rch_boot_group_ids(const char *const *ids, int size, int *node_of);

/* Renumber node ids densely in order of first appearance; returns the count. */
int rch_boot_renumber(int *node_of, int size);

/* Split every node into pretend nodes of `vnode_size` of its ranks (in rank
 * order) and renumber; vnode_size 0 leaves the layout alone. On one machine
 * this makes node_of[r] = r / vnode_size. Returns the number of nodes. */
int rch_boot_apply_vnodes(int *node_of, int size, int vnode_size);

/* The index of `rank` among the ranks with the same node id, and their count. */
void rch_boot_local_index(const int *node_of, int size, int rank, int *local_rank, int *local_size);

/* Fill b->node, num_nodes, local_rank, local_size, local_ranks from
 * b->rank, b->size and node_of (taken over by b; freed by rch_boot_layout_free). */
rdmach_status_t rch_boot_layout_fill(struct rch_boot_info *b, int *node_of);
void rch_boot_layout_free(struct rch_boot_info *b);

#endif
