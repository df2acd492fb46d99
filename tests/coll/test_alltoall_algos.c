/*
 * The alltoall algorithms of src/coll (pairwise, bruck, linear, leader,
 * coreparallel, shmseg; alltoall and alltoallv) against a naive reference on the
 * thread-based fake device, over node layouts the real device cannot give
 * one machine yet: one node, blocks of 1..4 ranks per node with an uneven
 * last node (7 ranks in nodes of 3: 3 + 3 + 1), nodes of different sizes in
 * any order, nodes whose ranks are interleaved (not consecutive), and a
 * communicator whose ranks are a permutation of the world's. Random block
 * sizes (element sizes 1, 4 and 12 bytes; alltoallv counts per pair, zeros
 * included), in place, all-eager and all-rendezvous delivery.
 *
 * Then selection: the built-in table by layout, size and network profile,
 * RDMACH_ALLTOALL(V) through the tunables, RDMACH_COLL_VNODE_SIZE, tuning
 * files (rows used; every malformed form refused naming file:line), and
 * mismatched alltoallv counts reported by the node-aware algorithms.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/tunables.h"
#include "coll/coll.h"
#include "fake_dev.h"

#define MAXP 16

struct a2a_case {
    int p, v, in_place;
    size_t esize;                  /* bytes per element */
    size_t cnt[MAXP][MAXP];        /* elements from comm rank i to comm rank j */
    size_t rexp[MAXP][MAXP];       /* with has_rexp: what j expects from i instead */
    int has_rexp;
    int perm[MAXP];                /* comm rank -> world rank */
    int nnodes, max_ppn;           /* 0: no layout (node_of NULL) */
    int node_of[MAXP];
    char err[MAXP][320];
    const char *algo[MAXP];        /* what each rank ran */
    int with_state;                /* views with collective state (shmseg keeps its segment there) */
};

#define FAIL(t, r, ...) snprintf((t)->err[r], sizeof((t)->err[r]), __VA_ARGS__)

static unsigned char pat(int from, int to, size_t i)
{
    uint32_t x = (uint32_t)from * 2654435761u + (uint32_t)to * 40503u + (uint32_t)i * 977u + 7;
    x ^= x >> 15;
    return (unsigned char)(x * 2246822519u >> 24);
}

static void body(int world, void *arg)
{
    struct a2a_case *t = arg;
    int me = 0, p = t->p;
    while (t->perm[me] != world)
        me++;
    struct rch_coll_comm c = { .rank = me, .size = p, .world_of = t->perm, .ctx = 41,
                               .nnodes = t->nnodes, .max_ppn = t->max_ppn,
                               .node_of = t->nnodes ? t->node_of : NULL };
    size_t scnt[MAXP], sdsp[MAXP], rcnt[MAXP], rdsp[MAXP], off = 0, es = t->esize;
    /* send blocks in reverse rank order with a gap of 3 bytes; receive blocks
     * in rank order with a gap of 5 (alltoall: contiguous, as it must be) */
    for (int q = p - 1; q >= 0; q--) {
        scnt[q] = t->cnt[me][q] * es;
        sdsp[q] = t->v ? off : (size_t)q * t->cnt[0][0] * es;
        off += scnt[q] + (t->v ? 3 : 0);
    }
    size_t stotal = off + 8;
    off = 0;
    for (int q = 0; q < p; q++) {
        rcnt[q] = (t->has_rexp ? t->rexp[q][me] : t->cnt[q][me]) * es;
        rdsp[q] = t->v ? off : (size_t)q * t->cnt[0][0] * es;
        off += rcnt[q] + (t->v ? 5 : 0);
    }
    size_t rtotal = off + 8;
    unsigned char *s = malloc(stotal), *r = malloc(rtotal);
    memset(s, 0xcc, stotal);
    memset(r, 0xee, rtotal);
    for (int q = 0; q < p; q++)
        for (size_t i = 0; i < (t->in_place ? rcnt[q] : scnt[q]); i++) {
            if (t->in_place)
                r[rdsp[q] + i] = pat(me, q, i);   /* symmetric counts: send = receive layout */
            else
                s[sdsp[q] + i] = pat(me, q, i);
        }
    const void *sb = t->in_place ? RCH_COLL_IN_PLACE : s;
    if (t->with_state && rch_coll_comm_init(&c) != RDMACH_OK) {
        FAIL(t, me, "comm init: %s", rdmach_last_error());
        goto out;
    }
    rdmach_status_t st = t->v ? rch_coll_alltoallv(&c, sb, scnt, sdsp, r, rcnt, rdsp)
                              : rch_coll_alltoall(&c, sb, r, t->cnt[0][0] * es);
    t->algo[me] = rch_coll_last_algo(t->v ? RCH_COLL_ALLTOALLV : RCH_COLL_ALLTOALL);
    if (st != RDMACH_OK) {
        FAIL(t, me, "status %d: %s", st, rdmach_last_error());
        goto out;
    }
    /* every received block, and nothing written in the gaps */
    off = 0;
    for (int q = 0; q < p; q++) {
        for (; off < rdsp[q]; off++)
            if (r[off] != 0xee) {
                FAIL(t, me, "byte %zu (a gap before the block from rank %d) was written", off, q);
                goto out;
            }
        for (size_t i = 0; i < rcnt[q]; i++, off++)
            if (r[off] != pat(q, me, i)) {
                FAIL(t, me, "byte %zu of the block from rank %d is %02x, expected %02x", i, q,
                     r[off], pat(q, me, i));
                goto out;
            }
    }
    for (; off < rtotal; off++)
        if (r[off] != 0xee) {
            FAIL(t, me, "byte %zu after the last block was written", off);
            goto out;
        }
out:
    rch_coll_comm_free(&c);
    free(s);
    free(r);
}

/* ---- layouts ---- */

static unsigned rng = 2024;
static unsigned rnd(unsigned n)
{
    rng = rng * 1103515245u + 12345u;
    return n ? (rng >> 8) % n : 0;
}

enum layout { L_NONE, L_BLOCK1, L_BLOCK2, L_BLOCK3, L_BLOCK4, L_UNEVEN, L_INTERLEAVED, L_MAX };
static const char *const layout_names[L_MAX] = {
    "one node", "1 per node", "2 per node", "3 per node", "4 per node", "uneven sizes",
    "interleaved",
};

/* Give node_of dense ids in order of first appearance (as the MPI layer does). */
static void finish_layout(struct a2a_case *t)
{
    int map[MAXP], ppn[MAXP] = { 0 };
    for (int i = 0; i < MAXP; i++)
        map[i] = -1;
    t->nnodes = 0;
    t->max_ppn = 0;
    for (int r = 0; r < t->p; r++) {
        if (map[t->node_of[r]] < 0)
            map[t->node_of[r]] = t->nnodes++;
        t->node_of[r] = map[t->node_of[r]];
        if (++ppn[t->node_of[r]] > t->max_ppn)
            t->max_ppn = ppn[t->node_of[r]];
    }
}

static void make_layout(struct a2a_case *t, enum layout l)
{
    int p = t->p;
    switch (l) {
    case L_NONE:
        t->nnodes = 0;
        return;
    case L_BLOCK1: case L_BLOCK2: case L_BLOCK3: case L_BLOCK4:
        for (int r = 0; r < p; r++)
            t->node_of[r] = r / (int)(l - L_BLOCK1 + 1);
        break;
    case L_UNEVEN: {   /* consecutive nodes of random sizes 1..4 */
        int node = 0, left = 1 + (int)rnd(4);
        for (int r = 0; r < p; r++) {
            if (left == 0) {
                node++;
                left = 1 + (int)rnd(4);
            }
            t->node_of[r] = node;
            left--;
        }
        break;
    }
    default:           /* each rank on a random one of up to 3 nodes */
        for (int r = 0; r < p; r++)
            t->node_of[r] = (int)rnd(p < 3 ? (unsigned)p : 3u);
        break;
    }
    finish_layout(t);
}

static void setup(struct a2a_case *t, int p, int v, int in_place, enum layout l)
{
    static const size_t esizes[] = { 1, 4, 12 };
    memset(t, 0, sizeof(*t));
    t->p = p;
    t->v = v;
    t->in_place = in_place;
    t->esize = esizes[rnd(3)];
    size_t n = rnd(6) == 0 ? 0 : 1 + rnd(20);
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            if (!v)
                t->cnt[i][j] = n;
            else if (!in_place || j <= i)
                t->cnt[i][j] = rnd(4) == 0 ? 0 : rnd(16);
            if (v && in_place)
                t->cnt[j][i] = t->cnt[i][j];
        }
    for (int i = 0; i < p; i++)
        t->perm[i] = i;
    for (int i = p - 1; i > 0; i--) {
        int j = (int)rnd((unsigned)i + 1), x = t->perm[i];
        t->perm[i] = t->perm[j];
        t->perm[j] = x;
    }
    make_layout(t, l);
}

static void layout_text(const struct a2a_case *t, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "nodes of ranks:");
    for (int r = 0; r < t->p && used < len; r++)
        used += (size_t)snprintf(buf + used, len - used, " %d", t->nnodes ? t->node_of[r] : 0);
}

static void run_case(struct a2a_case *t, const char *algo, enum layout l, int eager)
{
    char lay[128];
    int rc = fake_dev_run(t->p, eager ? (size_t)-1 : 0, body, t);
    layout_text(t, lay, sizeof(lay));
    for (int q = 0; q < t->p; q++) {
        cr_assert(t->err[q][0] == 0, "%s%s p=%d (%s: %s) esize=%zu in_place=%d %s: rank %d: %s",
                  t->v ? "alltoallv/" : "alltoall/", algo, t->p, layout_names[l], lay, t->esize,
                  t->in_place, eager ? "eager" : "rendezvous", q, t->err[q]);
        int seg = strcmp(algo, "shmseg") == 0 || strcmp(algo, "adaptive") == 0;
        if (seg && t->nnodes > 1)   /* one node only: the table's choice */
            cr_assert_str_neq(t->algo[q], algo, "rank %d ran %s across %d nodes", q, algo, t->nnodes);
        else if (strcmp(algo, "adaptive") == 0)   /* the segment or the table's choice besides */
            cr_assert(strcmp(t->algo[q], "shmseg") == 0 || strcmp(t->algo[q], "linear") == 0 ||
                      strcmp(t->algo[q], "pairwise") == 0 || strcmp(t->algo[q], "bruck") == 0,
                      "rank %d ran %s under adaptive", q, t->algo[q]);
        else
            cr_assert_str_eq(t->algo[q], algo, "rank %d ran %s, not the forced %s", q, t->algo[q],
                             algo);
    }
    cr_assert_eq(rc, 0, "%s p=%d (%s): deadlock", algo, t->p, layout_names[l]);
    cr_assert_eq(fake_dev_leftovers(), 0, "%s p=%d (%s): %d messages or receives left over", algo,
                 t->p, layout_names[l], fake_dev_leftovers());
}

static const int sizes[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16 };

static void every_algorithm(enum rch_coll_id id, int reps)
{
    static struct a2a_case t;
    int v = id == RCH_COLL_ALLTOALLV;
    for (int ai = 0; ai < rch_coll_algo_count(id); ai++) {
        const char *algo = rch_coll_algo_name(id, ai);
        cr_assert_eq(rch_coll_force(id, algo), RDMACH_OK, "%s", rdmach_last_error());
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
            for (int l = 0; l < L_MAX; l++)
                for (int rep = 0; rep < reps; rep++)
                    for (int ip = 0; ip < 2; ip++)
                        for (int eager = 0; eager < 2; eager++) {
                            setup(&t, sizes[si], v, ip, (enum layout)l);
                            t.with_state = strcmp(algo, "shmseg") == 0;
                            run_case(&t, algo, (enum layout)l, eager);
                        }
    }
}

Test(alltoall_algos, alltoall_every_algorithm_every_layout) { every_algorithm(RCH_COLL_ALLTOALL, 2); }
Test(alltoall_algos, alltoallv_every_algorithm_every_layout) { every_algorithm(RCH_COLL_ALLTOALLV, 2); }

/* The layout of the brief: 7 ranks on virtual nodes of 3 (3 + 3 + 1). */
Test(alltoall_algos, seven_ranks_on_nodes_of_three)
{
    static struct a2a_case t;
    const char *algos[] = { "leader", "coreparallel" };
    for (int v = 0; v < 2; v++)
        for (int a = 0; a < 2; a++) {
            enum rch_coll_id id = v ? RCH_COLL_ALLTOALLV : RCH_COLL_ALLTOALL;
            cr_assert_eq(rch_coll_force(id, algos[a]), RDMACH_OK);
            for (int ip = 0; ip < 2; ip++) {
                setup(&t, 7, v, ip, L_BLOCK3);
                cr_assert_eq(t.nnodes, 3);
                cr_assert_eq(t.node_of[6], 2);
                run_case(&t, algos[a], L_BLOCK3, 0);
            }
        }
}

/* ---- selection ---- */

static void uniform(struct a2a_case *t, int p, int per_node, size_t bytes)
{
    memset(t, 0, sizeof(*t));
    t->p = p;
    t->esize = 1;
    for (int i = 0; i < p; i++) {
        t->perm[i] = i;
        for (int j = 0; j < p; j++)
            t->cnt[i][j] = bytes;
    }
    if (per_node > 0) {
        for (int r = 0; r < p; r++)
            t->node_of[r] = r / per_node;
        finish_layout(t);
    }
}

/* Run an alltoall on (p, per_node, bytes) and return what rank 0 ran. */
static const char *chosen(int p, int per_node, size_t bytes, int v)
{
    static struct a2a_case t;
    uniform(&t, p, per_node, bytes);
    t.v = v;
    cr_assert_eq(fake_dev_run(p, (size_t)-1, body, &t), 0);
    for (int q = 0; q < p; q++) {
        cr_assert(t.err[q][0] == 0, "rank %d: %s", q, t.err[q]);
        cr_assert_str_eq(t.algo[q], t.algo[0], "ranks chose differently");
    }
    return t.algo[0];
}

Test(alltoall_select, builtin_table_by_layout_size_and_nic)
{
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLTOALL, "auto"), RDMACH_OK);
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLTOALLV, "auto"), RDMACH_OK);
    rch_coll_set_nic(RCH_COLL_NIC_ONLOAD);
    /* two ranks: a single exchange */
    cr_assert_str_eq(chosen(2, 0, 8, 0), "pairwise");
    cr_assert_str_eq(chosen(2, 1, 4096, 1), "pairwise");
    /* one node: the original algorithms by size */
    cr_assert_str_eq(chosen(4, 0, 8, 0), "linear");
    cr_assert_str_eq(chosen(6, 0, 8, 0), "bruck");
    cr_assert_str_eq(chosen(6, 6, 8, 0), "bruck");
    cr_assert_str_eq(chosen(6, 0, 4096, 0), "linear");
    cr_assert_str_eq(chosen(3, 0, 512 * 1024, 0), "pairwise");
    cr_assert_str_eq(chosen(4, 0, 8, 1), "linear");
    /* several nodes, onload: core-parallel for medium and large blocks */
    cr_assert_str_eq(chosen(4, 2, 8, 0), "bruck");
    cr_assert_str_eq(chosen(4, 2, 4096, 0), "coreparallel");
    cr_assert_str_eq(chosen(8, 2, 64 * 1024, 0), "coreparallel");
    cr_assert_str_eq(chosen(6, 2, 8, 1), "coreparallel");
    /* one rank per node: no node structure to use */
    cr_assert_str_eq(chosen(4, 1, 4096, 0), "pairwise");
    cr_assert_str_eq(chosen(4, 1, 8, 1), "pairwise");
    /* offload: leader-based at every size */
    rch_coll_set_nic(RCH_COLL_NIC_OFFLOAD);
    cr_assert_str_eq(chosen(4, 2, 8, 0), "leader");
    cr_assert_str_eq(chosen(8, 4, 4096, 0), "leader");
    cr_assert_str_eq(chosen(6, 3, 8, 1), "leader");
    cr_assert_str_eq(chosen(6, 0, 8, 0), "bruck");      /* within a node: still the original */
}

Test(alltoall_select, nic_profile_comes_from_the_tunable_or_the_device)
{
    setenv("RDMACH_NIC_PROFILE", "offload", 1);
    cr_assert_eq(rch_base_tun_load(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_coll_nic(), RCH_COLL_NIC_OFFLOAD);
    rch_coll_set_nic(RCH_COLL_NIC_ONLOAD);
    cr_assert_eq(rch_coll_nic(), RCH_COLL_NIC_ONLOAD);
    rch_coll_set_nic(RCH_COLL_NIC_ANY);
    cr_assert_eq(rch_coll_nic(), RCH_COLL_NIC_OFFLOAD);
}

Test(alltoall_select, nic_profile_auto_without_a_network_is_onload)
{
    unsetenv("RDMACH_NIC_PROFILE");
    cr_assert_eq(rch_base_tun_load(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_coll_nic(), RCH_COLL_NIC_ONLOAD);   /* the fake device has no network */
}

Test(alltoall_select, environment_forces_an_algorithm)
{
    setenv("RDMACH_ALLTOALL", "leader", 1);
    setenv("RDMACH_ALLTOALLV", "coreparallel", 1);
    cr_assert_eq(rch_base_tun_load(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_coll_init(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_str_eq(chosen(4, 0, 8, 0), "leader");
    cr_assert_str_eq(chosen(5, 2, 8, 1), "coreparallel");
    /* rch_coll_force after the environment wins */
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLTOALL, "pairwise"), RDMACH_OK);
    cr_assert_str_eq(chosen(4, 0, 8, 0), "pairwise");
}

Test(alltoall_select, unknown_algorithm_in_the_environment_is_a_config_error)
{
    setenv("RDMACH_ALLTOALL", "corepar", 1);
    cr_assert_eq(rch_base_tun_load(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_coll_init(), RDMACH_ERR_CONFIG);
    const char *msg = rdmach_last_error();
    cr_assert(strstr(msg, "RDMACH_ALLTOALL=corepar"), "%s", msg);
    cr_assert(strstr(msg, "pairwise|bruck|linear|leader|coreparallel|shmseg|adaptive|auto"), "%s", msg);
    /* and a collective reports it too, instead of running */
    static struct a2a_case t;
    uniform(&t, 2, 0, 4);
    cr_assert_eq(fake_dev_run(2, (size_t)-1, body, &t), 0);
    cr_assert(strstr(t.err[0], "RDMACH_ALLTOALL=corepar"), "%s", t.err[0]);
}

Test(alltoall_select, coll_vnode_size_gives_the_algorithms_pretend_nodes)
{
    static struct a2a_case t;
    struct rch_coll_comm c = { .rank = 0, .size = 7, .world_of = t.perm };
    int nodes, ppn;
    uniform(&t, 7, 0, 16);
    rch_coll_shape(&c, &nodes, &ppn);
    cr_assert(nodes == 1 && ppn == 7, "%d x %d", nodes, ppn);
    rch_tun.coll_vnode_size = 3;
    rch_coll_shape(&c, &nodes, &ppn);
    cr_assert(nodes == 3 && ppn == 3, "%d x %d", nodes, ppn);
    rch_coll_set_nic(RCH_COLL_NIC_ONLOAD);
    cr_assert_eq(rch_coll_force(RCH_COLL_ALLTOALL, "auto"), RDMACH_OK);
    cr_assert_str_eq(chosen(7, 0, 4096, 0), "coreparallel");
    rch_coll_set_nic(RCH_COLL_NIC_OFFLOAD);
    cr_assert_str_eq(chosen(7, 0, 4096, 0), "leader");
}

/* ---- tuning files ---- */

static char *write_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof(path), "/tmp/rdmach-tuning-XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

Test(alltoall_tuning, file_rows_come_before_the_builtin_table)
{
    char *path = write_file("# measured by hand\n"
                            "rdmach-tuning 1\n"
                            "\n"
                            "alltoall  any  1  *  4   0-100   pairwise   # 4 ranks, small\n"
                            "alltoall  any  *  *  4   101-    leader\n"
                            "alltoallv any  *  *  2-5 *       bruck_is_not_here_so_never\n");
    /* the last row is malformed: nothing of the file may be used */
    cr_assert_eq(rch_coll_load_tuning(path), RDMACH_ERR_CONFIG);
    cr_assert(strstr(rdmach_last_error(), ":6:"), "%s", rdmach_last_error());
    cr_assert_str_eq(chosen(4, 0, 8, 0), "linear");
    unlink(path);

    path = write_file("rdmach-tuning 1\n"
                      "alltoall  any  1  *  4   0-100   pairwise\n"
                      "alltoall  any  *  *  4   101-    leader\n"
                      "alltoallv onload 2 2 4 * leader\n");
    rch_coll_set_nic(RCH_COLL_NIC_ONLOAD);
    cr_assert_eq(rch_coll_load_tuning(path), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_str_eq(chosen(4, 0, 8, 0), "pairwise");
    cr_assert_str_eq(chosen(4, 0, 4096, 0), "leader");
    cr_assert_str_eq(chosen(5, 0, 8, 0), "bruck");          /* no row for 5 ranks: built-in */
    cr_assert_str_eq(chosen(4, 2, 8, 1), "leader");
    cr_assert_str_eq(chosen(6, 2, 8, 1), "coreparallel");   /* 3 nodes: built-in */
    rch_coll_set_nic(RCH_COLL_NIC_OFFLOAD);
    cr_assert_str_eq(chosen(4, 2, 8, 1), "leader");         /* built-in offload row */
    unlink(path);
    cr_assert_eq(rch_coll_load_tuning(""), RDMACH_OK);
    cr_assert_str_eq(chosen(4, 0, 8, 0), "linear");
}

Test(alltoall_tuning, environment_names_the_file)
{
    char *path = write_file("rdmach-tuning 1\nalltoall any * * * * linear\n");
    setenv("RDMACH_TUNING_FILE", path, 1);
    cr_assert_eq(rch_base_tun_load(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_coll_init(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_str_eq(chosen(3, 0, 8, 0), "linear");
    unlink(path);
}

Test(alltoall_tuning, a_formatted_row_parses_back)
{
    struct rch_coll_tuning_row_text { const char *line; } lines[] = {
        { "alltoall onload 2 4 8 0-1023 coreparallel" },
        { "alltoall offload 2- * * 64k- leader" },
        { "allreduce any * * 3-9 * recdbl" },
    };
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        char text[256];
        snprintf(text, sizeof(text), "rdmach-tuning 1\n%s\n", lines[i].line);
        char *path = write_file(text);
        cr_assert_eq(rch_coll_load_tuning(path), RDMACH_OK, "%s: %s", lines[i].line,
                     rdmach_last_error());
        unlink(path);
    }
}

Test(alltoall_tuning, malformed_files_are_errors_naming_file_and_line)
{
    static const struct { const char *text; const char *expect; } bad[] = {
        { "", ":0: no 'rdmach-tuning 1' header" },
        { "# only a comment\n", ":1: no 'rdmach-tuning 1' header" },
        { "alltoall any * * * * pairwise\n", ":1: expected the header 'rdmach-tuning 1'" },
        { "rdmach-tuning 2\n", ":1: format version '2' is not supported" },
        { "rdmach-tuning 1\nalltoall any * * * pairwise\n", ":2: expected 7 fields" },
        { "rdmach-tuning 1\nalltoall any * * * * pairwise extra\n", ":2: expected 7 fields" },
        { "rdmach-tuning 1\n\nalltoal any * * * * pairwise\n", ":3: 'alltoal' is not a collective" },
        { "rdmach-tuning 1\nalltoall fast * * * * pairwise\n", ":2: nic 'fast' is not one of" },
        { "rdmach-tuning 1\nalltoall any x * * * pairwise\n", ":2: nodes 'x' is not a range" },
        { "rdmach-tuning 1\nalltoall any * -2 * * pairwise\n", ":2: ppn '-2' is not a range" },
        { "rdmach-tuning 1\nalltoall any * * 9-3 * pairwise\n", ":2: size '9-3' is an empty range" },
        { "rdmach-tuning 1\nalltoall any * * * 12q pairwise\n", ":2: bytes '12q' is not a range" },
        { "rdmach-tuning 1\nalltoall any * * * * fastest\n",
          ":2: 'fastest' is not an algorithm of alltoall; accepted: pairwise|bruck|linear|leader|"
          "coreparallel" },
        { "rdmach-tuning 1\nalltoall any * * * 99999999999999999999999 pairwise\n",
          ":2: bytes '99999999999999999999999' is not a range" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *path = write_file(bad[i].text);
        cr_assert_eq(rch_coll_load_tuning(path), RDMACH_ERR_CONFIG, "accepted: %s", bad[i].text);
        const char *msg = rdmach_last_error();
        cr_assert(strstr(msg, path), "message does not name the file: %s", msg);
        cr_assert(strstr(msg, bad[i].expect), "expected '%s' in: %s", bad[i].expect, msg);
        unlink(path);
    }
    cr_assert_eq(rch_coll_load_tuning("/nonexistent/tuning"), RDMACH_ERR_CONFIG);
    cr_assert(strstr(rdmach_last_error(), "/nonexistent/tuning: cannot open it"), "%s",
              rdmach_last_error());
}

Test(alltoall_tuning, an_overlong_line_is_an_error)
{
    char text[3000];
    int n = snprintf(text, sizeof(text), "rdmach-tuning 1\nalltoall any * * * * pairwise #");
    memset(text + n, 'x', 2000);
    strcpy(text + n + 2000, "\n");
    char *path = write_file(text);
    cr_assert_eq(rch_coll_load_tuning(path), RDMACH_ERR_CONFIG);
    cr_assert(strstr(rdmach_last_error(), ":2: line longer than"), "%s", rdmach_last_error());
    unlink(path);
}

/* ---- mismatches between ranks ---- */

/* 2 nodes of 2; what some rank sends is not what its receiver expects, while
 * the totals between the nodes (and per network message) still agree, so
 * only the size headers of the node-aware algorithms can tell. The receiver
 * concerned reports it; nothing is silently misplaced. */
Test(alltoall_errors, mismatched_alltoallv_counts_are_reported_not_misplaced)
{
    static struct a2a_case t;
    const char *algos[] = { "leader", "coreparallel" };
    for (int a = 0; a < 2; a++)
        for (int variant = 0; variant < 2; variant++) {
            cr_assert_eq(rch_coll_force(RCH_COLL_ALLTOALLV, algos[a]), RDMACH_OK);
            uniform(&t, 4, 2, 1);
            t.v = 1;
            memcpy(t.rexp, t.cnt, sizeof(t.cnt));
            t.has_rexp = 1;
            if (variant == 0) {      /* 0 -> 2 and 0 -> 3 swapped */
                t.cnt[0][2] = 2;
                t.rexp[0][3] = 2;
            } else {                 /* 0 -> 2 and 1 -> 2 swapped */
                t.cnt[0][2] = 2;
                t.rexp[1][2] = 2;
            }
            fake_dev_run(4, (size_t)-1, body, &t);
            int reported = 0;
            for (int q = 0; q < 4; q++)
                reported |= strstr(t.err[q], "(counts or datatypes differ between ranks)") != NULL;
            cr_assert(reported, "%s variant %d: no rank reported the mismatch: [%s] [%s] [%s] [%s]",
                      algos[a], variant, t.err[0], t.err[1], t.err[2], t.err[3]);
            for (int q = 2; q < 4; q++)
                if (t.rexp[0][q] != t.cnt[0][q] || t.rexp[1][q] != t.cnt[1][q])
                    cr_assert(t.err[q][0], "%s variant %d: rank %d expected other sizes and "
                              "succeeded", algos[a], variant, q);
        }
}
