/*
 * Collective communicator creation: Comm_dup, Comm_dup_with_info, Comm_split
 * (Comm_split_type: comm_split_type.c; Comm_create and Comm_create_group:
 * comm_group.c).
 *
 * Each is one rch_mpi_exchange over the parent (ctxid.c): every member
 * contributes its (color, key) and its free context-id mask, everyone gets
 * the whole table and the AND of the masks, and computes the same result
 * locally: the lowest context pair free at every member, and for split the
 * members of its color ordered by (key, parent rank).
 */
#include <stdlib.h>
#include <string.h>
#include "boot/boot.h"
#include "mpi/mpi_impl.h"

struct split_entry {
    int color, key;
};

int rch_mpi_member_cmp(const void *a, const void *b)
{
    const struct rch_mpi_member *x = a, *y = b;
    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->prank > y->prank) - (x->prank < y->prank);
}

int rch_mpi_comm_child(const char *fn, struct rch_mpi_comm *p, int rank, int size, int *world_of, uint32_t ctx,
                       struct rch_mpi_comm **out)
{
    struct rch_mpi_comm *c = rch_mpi_comm_create(rank, size, world_of, ctx);
    if (!c) {
        free(world_of);
        rch_mpi_ctx_release(ctx);     /* the agreement took it here */
        return rch_mpi_err(p->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    rch_mpi_ctx_take(ctx);
    c->errhandler = p->errhandler;
    c->session = p->session;
    *out = c;
    return MPI_SUCCESS;
}

/* The common part: exchange, agree on a context id, build my communicator
 * (or none if my color is MPI_UNDEFINED). */
int rch_mpi_comm_split_common(const char *fn, struct rch_mpi_comm *p, int color, int key, MPI_Comm *newcomm,
                              int is_dup)
{
    if (p->is_inter)
        return rch_mpi_inter_split(fn, p, color, key, newcomm, is_dup);
    struct split_entry mine = { color, key };
    struct split_entry *all = malloc((size_t)p->size * sizeof(*all));
    if (!all)
        return rch_mpi_err(p->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    struct rch_mpi_ctxmask mask;
    rdmach_status_t st;
    uint32_t ctx;
    /* the key space of rch_mpi_comm_from_members (ctxid.c, "Threads"):
     * parent context first, then the tag; a dup or split ranks after every
     * group creation from the same parent */
    uint64_t pkey = (uint64_t)p->ctx << 32 | UINT32_MAX;
    int round = 0;
    do {
        int holder = rch_mpi_ctx_round_begin(pkey, p->size, round++, &mask);
        st = rch_mpi_exchange(p, &mine, sizeof(mine), all, &mask);
        ctx = rch_mpi_ctx_round_end(holder, pkey, &mask, st == RDMACH_OK);
    } while (ctx == RCH_MPI_CTX_AGAIN);
    if (st != RDMACH_OK) {
        free(all);
        return rch_mpi_err(p->handle, rch_mpi_class_of(st), "%s: exchange with the other members failed: %s",
                           fn, rdmach_last_error());
    }
    if (ctx == UINT32_MAX) {
        free(all);
        return rch_mpi_err(p->handle, MPI_ERR_INTERN,
                           "%s: no context id is free at every member (%d communicators exist)", fn,
                           RCH_MPI_CTX_NB_FIRST);
    }
    if (color == MPI_UNDEFINED) {          /* no communicator here: the pair stays free */
        rch_mpi_ctx_release(ctx);
        free(all);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }

    int n = 0;
    struct rch_mpi_member *mem = malloc((size_t)p->size * sizeof(*mem));
    if (!mem) {
        free(all);
        rch_mpi_ctx_release(ctx);
        return rch_mpi_err(p->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    for (int r = 0; r < p->size; r++)
        if (all[r].color == color)
            mem[n++] = (struct rch_mpi_member){ all[r].key, r };
    free(all);
    if (!is_dup)
        qsort(mem, (size_t)n, sizeof(*mem), rch_mpi_member_cmp);
    int *world_of = malloc((size_t)n * sizeof(int));
    if (!world_of) {
        free(mem);
        rch_mpi_ctx_release(ctx);
        return rch_mpi_err(p->handle, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    int myrank = -1;
    for (int i = 0; i < n; i++) {
        world_of[i] = p->world_of[mem[i].prank];
        if (mem[i].prank == p->rank)
            myrank = i;
    }
    free(mem);
    struct rch_mpi_comm *c = NULL;
    int err = rch_mpi_comm_child(fn, p, myrank, n, world_of, ctx, &c);
    if (err)
        return err;
    if (is_dup)
        return rch_mpi_comm_dup_extras(p, c, newcomm);
    *newcomm = c->handle;
    return MPI_SUCCESS;
}

int rch_mpi_comm_dup_extras(struct rch_mpi_comm *p, struct rch_mpi_comm *c, MPI_Comm *newcomm)
{
    if (p->topo) {
        /* MPI: a duplicate has the same topology. */
        c->topo = rch_mpi_topo_dup(p->topo);
        if (!c->topo) {
            rch_mpi_comm_destroy(c);
            return rch_mpi_err(p->handle, MPI_ERR_NO_MEM, "MPI_Comm_dup: out of memory");
        }
    }
    c->hw_level = p->hw_level;    /* MPI: a duplicate has the parent's hints */
    int err = rch_mpi_attr_copy(p->attrs, p->handle, &c->attrs);
    if (err) {
        /* MPI: the duplicate fails with the callback's code; the copies
         * made so far are deleted as a free would delete them. */
        rch_mpi_attr_delete_all(&c->attrs, c->handle, 0);
        rch_mpi_comm_destroy(c);
        *newcomm = MPI_COMM_NULL;
        return rch_mpi_err_raise(p->handle, err);
    }
    *newcomm = c->handle;
    return MPI_SUCCESS;
}

int rch_mpi_comm_maker_check(const char *fn, MPI_Comm comm, MPI_Comm *newcomm, struct rch_mpi_comm **pp)
{
    int err;
    *pp = rch_mpi_comm_arg(fn, comm, &err);
    if (!*pp)
        return err;
    if (!newcomm)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument newcomm is NULL", fn);
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *p;
    int err = rch_mpi_comm_maker_check("MPI_Comm_dup", comm, newcomm, &p);
    if (err)
        return err;
    return rch_mpi_comm_split_common("MPI_Comm_dup", p, 0, 0, newcomm, 1);
}
#pragma weak MPI_Comm_dup = PMPI_Comm_dup

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *p;
    int err = rch_mpi_comm_maker_check("MPI_Comm_split", comm, newcomm, &p);
    if (err)
        return err;
    if (color < 0 && color != MPI_UNDEFINED)
        return rch_mpi_err(comm, MPI_ERR_ARG,
                           "MPI_Comm_split: invalid color %d (must be >= 0 or MPI_UNDEFINED)", color);
    return rch_mpi_comm_split_common("MPI_Comm_split", p, color, key, newcomm, 0);
}
#pragma weak MPI_Comm_split = PMPI_Comm_split

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *p;
    int err = rch_mpi_comm_maker_check("MPI_Comm_dup_with_info", comm, newcomm, &p);
    if (err)
        return err;
    err = rch_mpi_info_check(comm, "MPI_Comm_dup_with_info", info);
    if (err)
        return err;
    err = rch_mpi_comm_split_common("MPI_Comm_dup_with_info", p, 0, 0, newcomm, 1);
    /* MPI: the duplicate has info's hints instead of comm's, and rdmach
     * acts on none of them. */
    if (!err)
        rch_mpi_comm_get(*newcomm)->hw_level = NULL;
    return err;
}
#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
