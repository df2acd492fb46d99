/*
 * MPI_Op objects: the predefined operations (MPICH's built-in handles
 * 0x58000001 .. 0x5800000e) and user operations from MPI_Op_create, which get
 * MPICH-style "direct" handles (kind 2, object 6: 0x98000000 | index).
 * MPI_Op_create(_c), MPI_Op_free, MPI_Op_commutative and MPI_Reduce_local.
 *
 * User operations live in a table that grows by doubling; a freed slot is
 * reused. Threading: MPI_THREAD_SERIALIZED at most (as the rest of src/mpi).
 */
#include <stdio.h>
#include <stdlib.h>
#include "mpi/coll_bind.h"

#define BUILTIN_BASE 0x58000000u

/* Predefined operations, by the low bits of their handle. */
static const struct rch_mpi_op builtin[] = {
    [0x01] = { RCH_COLL_OP_MAX, NULL, 1 },
    [0x02] = { RCH_COLL_OP_MIN, NULL, 1 },
    [0x03] = { RCH_COLL_OP_SUM, NULL, 1 },
    [0x04] = { RCH_COLL_OP_PROD, NULL, 1 },
    [0x05] = { RCH_COLL_OP_LAND, NULL, 1 },
    [0x06] = { RCH_COLL_OP_BAND, NULL, 1 },
    [0x07] = { RCH_COLL_OP_LOR, NULL, 1 },
    [0x08] = { RCH_COLL_OP_BOR, NULL, 1 },
    [0x09] = { RCH_COLL_OP_LXOR, NULL, 1 },
    [0x0a] = { RCH_COLL_OP_BXOR, NULL, 1 },
    [0x0b] = { RCH_COLL_OP_MINLOC, NULL, 1 },
    [0x0c] = { RCH_COLL_OP_MAXLOC, NULL, 1 },
    [0x0d] = { RCH_COLL_OP_REPLACE, NULL, 0 },   /* "the target's value is replaced": not symmetric */
    [0x0e] = { RCH_COLL_OP_NO_OP, NULL, 0 },
};
#define NBUILTIN ((unsigned)(sizeof(builtin) / sizeof(builtin[0])))

/* A user operation lives while refs > 0: the program's reference (until
 * MPI_Op_free, which sets freed) and one per pending operation that binds
 * the op after its call returned (MPI-4.1 6.9.5: freeing marks the op for
 * deallocation, pending operations complete normally). A freed op that a
 * pending operation holds still resolves, so its slot is not reused. */
struct user_op {
    struct rch_mpi_op op;
    int in_use;
    int refs, freed;
};
static struct user_op *user_ops;
static unsigned n_user, cap_user;

const struct rch_mpi_op *rch_mpi_op_get(MPI_Op op)
{
    unsigned h = (unsigned)op;
    if ((h & ~0xffu) == BUILTIN_BASE) {
        unsigned i = h & 0xffu;
        return i >= 1 && i < NBUILTIN ? &builtin[i] : NULL;
    }
    if (RCH_MPI_HKIND(op) == 2 && RCH_MPI_HOBJ(op) == RCH_MPI_OBJ_OP) {
        unsigned i = RCH_MPI_HINDEX(op);
        return i < n_user && user_ops[i].in_use ? &user_ops[i].op : NULL;
    }
    return NULL;
}

static struct user_op *user_of(MPI_Op op)
{
    const struct rch_mpi_op *o = rch_mpi_op_get(op);
    return o && o->kind < 0 ? &user_ops[RCH_MPI_HINDEX(op)] : NULL;
}

void rch_mpi_op_retain(MPI_Op op)
{
    struct user_op *u = user_of(op);
    if (u)
        u->refs++;
}

void rch_mpi_op_release(MPI_Op op)
{
    struct user_op *u = user_of(op);
    if (u && --u->refs == 0)
        u->in_use = 0;
}

const char *rch_mpi_op_name(MPI_Op op, char *buf, size_t len)
{
    static const char *const names[] = {
        [0x01] = "MPI_MAX", [0x02] = "MPI_MIN", [0x03] = "MPI_SUM", [0x04] = "MPI_PROD",
        [0x05] = "MPI_LAND", [0x06] = "MPI_BAND", [0x07] = "MPI_LOR", [0x08] = "MPI_BOR",
        [0x09] = "MPI_LXOR", [0x0a] = "MPI_BXOR", [0x0b] = "MPI_MINLOC", [0x0c] = "MPI_MAXLOC",
        [0x0d] = "MPI_REPLACE", [0x0e] = "MPI_NO_OP",
    };
    const struct rch_mpi_op *o = rch_mpi_op_get(op);
    if (op == MPI_OP_NULL)
        snprintf(buf, len, "MPI_OP_NULL");
    else if (o && o->kind >= 0)
        snprintf(buf, len, "%s", names[(unsigned)op & 0xffu]);
    else if (o)
        snprintf(buf, len, "user operation 0x%x", (unsigned)op);
    else
        snprintf(buf, len, "0x%x", (unsigned)op);
    return buf;
}

/* MPI_Op_create(_c): exactly one of user_fn and user_fn_c is the function. */
static int create(const char *fn, MPI_User_function *user_fn, MPI_User_function_c *user_fn_c, int commute,
                  MPI_Op *op)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!user_fn && !user_fn_c)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument user_fn", fn);
    if (!op)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument op", fn);
    unsigned i;
    for (i = 0; i < n_user && user_ops[i].in_use; i++)
        ;
    if (i == n_user) {
        if (n_user == cap_user) {
            unsigned cap = cap_user ? 2 * cap_user : 16;
            struct user_op *t = cap <= RCH_MPI_HINDEX(0xffffffffu) + 1u
                                    ? realloc(user_ops, cap * sizeof(*t)) : NULL;
            if (!t)
                return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM,
                                   "%s: no memory for another operation (%u exist)", fn, n_user);
            user_ops = t;
            cap_user = cap;
        }
        n_user++;
    }
    user_ops[i] = (struct user_op){ .op = { -1, user_fn, commute ? 1 : 0, user_fn_c }, .in_use = 1, .refs = 1 };
    *op = RCH_MPI_HDIRECT(RCH_MPI_OBJ_OP, i);
    return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    RCH_MPI_CS();
    return create("MPI_Op_create", user_fn, NULL, commute, op);
}
#pragma weak MPI_Op_create = PMPI_Op_create

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    RCH_MPI_CS();
    return create("MPI_Op_create_c", NULL, user_fn, commute, op);
}
#pragma weak MPI_Op_create_c = PMPI_Op_create_c

int PMPI_Op_free(MPI_Op *op)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Op_free";
    char d[48];
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!op)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument op", fn);
    const struct rch_mpi_op *o = rch_mpi_op_get(*op);
    if (!o)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OP, "%s: invalid operation %s in argument op", fn,
                           rch_mpi_op_name(*op, d, sizeof(d)));
    if (o->kind >= 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OP,
                           "%s: %s in argument op is predefined and cannot be freed", fn,
                           rch_mpi_op_name(*op, d, sizeof(d)));
    if (user_ops[RCH_MPI_HINDEX(*op)].freed)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OP, "%s: %s in argument op was freed already", fn,
                           rch_mpi_op_name(*op, d, sizeof(d)));
    user_ops[RCH_MPI_HINDEX(*op)].freed = 1;
    rch_mpi_op_release(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Op_free = PMPI_Op_free

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Op_commutative";
    char d[48];
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    const struct rch_mpi_op *o = rch_mpi_op_get(op);
    if (!o)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OP, "%s: invalid operation %s in argument op", fn,
                           rch_mpi_op_name(op, d, sizeof(d)));
    if (!commute)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument commute", fn);
    *commute = o->commute;
    return MPI_SUCCESS;
}
#pragma weak MPI_Op_commutative = PMPI_Op_commutative

/* inoutbuf = inbuf op inoutbuf, locally. */
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Reduce_local";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *t;
    struct rch_mpi_red red;
    struct rch_mpi_stage in, io;
    int err = rch_mpi_coll_begin(fn, MPI_COMM_WORLD, &c);
    if (err)
        return err;
    /* the datatype whatever the count: the operation is bound to it (MPICH too) */
    if ((err = rch_mpi_coll_check_type(fn, c, datatype, "datatype", &t)) ||
        (err = rch_mpi_coll_check_buf(fn, c, inbuf, count, datatype, "inbuf", "count", "datatype", &t)) ||
        (err = rch_mpi_coll_check_buf(fn, c, inoutbuf, count, datatype, "inoutbuf", "count",
                                      "datatype", &t)) ||
        (err = rch_mpi_red_bind(fn, c, op, datatype, t, 0, &red)))
        return err;
    if (count == 0)
        return MPI_SUCCESS;
    if ((err = rch_mpi_stage_in(fn, c, inbuf, (size_t)count, t, &in)))
        return err;
    if ((err = rch_mpi_stage_in(fn, c, inoutbuf, (size_t)count, t, &io))) {
        rch_mpi_stage_free(&in);
        return err;
    }
    red.cop.fn(in.ptr, io.ptr, (size_t)count * red.per_elem, red.cop.arg);
    rch_mpi_stage_free(&in);
    rch_mpi_stage_done(&io, inoutbuf, (size_t)count, t);
    return MPI_SUCCESS;
}
#pragma weak MPI_Reduce_local = PMPI_Reduce_local
