/* Node layout from data: PMI_process_mapping, host ids, pretend nodes (see layout.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "boot/layout.h"

#define MAP_BLOCKS_MAX 4096
#define MAP_VALUE_MAX  (1 << 24)

struct map_block { long start, nodes, ppn; };

struct map_parser { const char *s, *p; };

static void skip_ws(struct map_parser *mp)
{
    while (isspace((unsigned char)*mp->p))
        mp->p++;
}

static int eat(struct map_parser *mp, char c)
{
    skip_ws(mp);
    if (*mp->p != c)
        return 0;
    mp->p++;
    return 1;
}

static rdmach_status_t malformed(const struct map_parser *mp, const char *what)
{
    return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL,
                        "PMI_process_mapping '%.80s': %s at offset %d", mp->s, what, (int)(mp->p - mp->s));
}

static rdmach_status_t number(struct map_parser *mp, long min, long *out)
{
    skip_ws(mp);
    if (!isdigit((unsigned char)*mp->p))
        return malformed(mp, "expected a number");
    char *end;
    errno = 0;
    long v = strtol(mp->p, &end, 10);
    if (errno || v < min || v > MAP_VALUE_MAX)
        return malformed(mp, "number out of range");
    mp->p = end;
    *out = v;
    return RDMACH_OK;
}

rdmach_status_t rch_boot_parse_mapping(const char *text, int size, int *node_of)
{
    struct map_parser mp = { text, text };
    struct map_block *blk;
    int nblk = 0;
    rdmach_status_t st = RDMACH_OK;

    skip_ws(&mp);
    if (*mp.p == '\0')
        return rch_base_err(RDMACH_ERR_NOT_FOUND, "PMI_process_mapping is empty");
    if (!eat(&mp, '('))
        return malformed(&mp, "expected '('");
    skip_ws(&mp);
    if (strncmp(mp.p, "vector", 6) != 0)
        return malformed(&mp, "expected 'vector'");
    mp.p += 6;
    blk = malloc(sizeof(*blk) * MAP_BLOCKS_MAX);
    if (blk == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "PMI_process_mapping: out of memory");
    while (eat(&mp, ',')) {
        if (nblk == MAP_BLOCKS_MAX) {
            st = malformed(&mp, "too many blocks");
            goto out;
        }
        struct map_block *b = &blk[nblk];
        if (!eat(&mp, '(')) {
            st = malformed(&mp, "expected '(' opening a block");
            goto out;
        }
        if ((st = number(&mp, 0, &b->start)) != RDMACH_OK)
            goto out;
        if (!eat(&mp, ',')) {
            st = malformed(&mp, "expected ','");
            goto out;
        }
        if ((st = number(&mp, 1, &b->nodes)) != RDMACH_OK)
            goto out;
        if (!eat(&mp, ',')) {
            st = malformed(&mp, "expected ','");
            goto out;
        }
        if ((st = number(&mp, 1, &b->ppn)) != RDMACH_OK)
            goto out;
        if (!eat(&mp, ')')) {
            st = malformed(&mp, "expected ')' closing a block");
            goto out;
        }
        nblk++;
    }
    if (!eat(&mp, ')')) {
        st = malformed(&mp, "expected ',' or ')'");
        goto out;
    }
    skip_ws(&mp);
    if (*mp.p != '\0') {
        st = malformed(&mp, "trailing characters");
        goto out;
    }
    if (nblk == 0) {
        st = rch_base_err(RDMACH_ERR_NOT_FOUND, "PMI_process_mapping '%s' has no blocks", text);
        goto out;
    }
    /* Blocks repeat until every rank has a node (as MPICH reads them). */
    for (int r = 0; r < size;)
        for (int i = 0; i < nblk && r < size; i++)
            for (long n = 0; n < blk[i].nodes && r < size; n++)
                for (long k = 0; k < blk[i].ppn && r < size; k++)
                    node_of[r++] = (int)(blk[i].start + n);
out:
    free(blk);
    return st;
}

int rch_boot_group_ids(const char *const *ids, int size, int *node_of)
{
    int k = 0;
    for (int r = 0; r < size; r++) {
        node_of[r] = -1;
        for (int q = 0; q < r; q++) {
            if (strcmp(ids[q], ids[r]) == 0) {
                node_of[r] = node_of[q];
                break;
            }
        }
        if (node_of[r] < 0)
            node_of[r] = k++;
    }
    return k;
}

int rch_boot_renumber(int *node_of, int size)
{
    /* ids are small (< size after grouping, < MAP_VALUE_MAX from a mapping):
     * a map from old id to new id, sized by the largest id */
    int maxid = 0;
    for (int r = 0; r < size; r++)
        if (node_of[r] > maxid)
            maxid = node_of[r];
    int *newid = malloc(sizeof(int) * ((size_t)maxid + 1));
    if (newid == NULL)
        return -1;
    for (int i = 0; i <= maxid; i++)
        newid[i] = -1;
    int k = 0;
    for (int r = 0; r < size; r++) {
        if (newid[node_of[r]] < 0)
            newid[node_of[r]] = k++;
        node_of[r] = newid[node_of[r]];
    }
    free(newid);
    return k;
}

int rch_boot_apply_vnodes(int *node_of, int size, int vnode_size)
{
    int k = rch_boot_renumber(node_of, size);
    if (vnode_size <= 0 || k < 0)
        return k;
    /* count[n]: ranks of real node n seen so far; cur[n]: the pretend node
     * they are filling. A pretend node is (real node, index there / vnode_size),
     * numbered as it first appears in rank order. */
    int *count = calloc((size_t)k, sizeof(int));
    int *cur = calloc((size_t)k, sizeof(int));
    int *vid = malloc(sizeof(int) * (size_t)size);
    if (count == NULL || cur == NULL || vid == NULL) {
        free(count);
        free(cur);
        free(vid);
        return -1;
    }
    int next = 0;
    for (int r = 0; r < size; r++) {
        int n = node_of[r];
        if (count[n]++ % vnode_size == 0)
            cur[n] = next++;
        vid[r] = cur[n];
    }
    memcpy(node_of, vid, sizeof(int) * (size_t)size);
    free(count);
    free(cur);
    free(vid);
    return next;
}

void rch_boot_local_index(const int *node_of, int size, int rank, int *local_rank, int *local_size)
{
    int lr = 0, ls = 0;
    for (int r = 0; r < size; r++) {
        if (node_of[r] != node_of[rank])
            continue;
        if (r < rank)
            lr++;
        ls++;
    }
    *local_rank = lr;
    *local_size = ls;
}

rdmach_status_t rch_boot_layout_fill(struct rch_boot_info *b, int *node_of)
{
    int num = 0;
    for (int r = 0; r < b->size; r++)
        if (node_of[r] + 1 > num)
            num = node_of[r] + 1;
    b->node_of = node_of;
    b->num_nodes = num;
    b->node = node_of[b->rank];
    rch_boot_local_index(node_of, b->size, b->rank, &b->local_rank, &b->local_size);
    b->local_ranks = malloc(sizeof(int) * (size_t)b->local_size);
    if (b->local_ranks == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "boot: out of memory for %d local ranks", b->local_size);
    for (int r = 0, i = 0; r < b->size; r++)
        if (node_of[r] == b->node)
            b->local_ranks[i++] = r;
    return RDMACH_OK;
}

void rch_boot_layout_free(struct rch_boot_info *b)
{
    free(b->node_of);
    free(b->local_ranks);
    b->node_of = NULL;
    b->local_ranks = NULL;
}
